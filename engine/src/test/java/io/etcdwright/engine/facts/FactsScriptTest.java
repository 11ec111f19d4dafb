package io.etcdwright.engine.facts;

import io.etcdwright.engine.ssh.LocalHost;
import io.etcdwright.engine.ssh.RemoteCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;
import java.util.Map;
import java.util.Set;

import io.etcdwright.engine.facts.Probe.UnitProperties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FactsScriptTest {
    record Echo(String name, String script, List<String> arguments) implements Probe<String> {
        Echo(String name, String script) {
            this(name, script, List.of());
        }

        @Override
        public String parse(String output) {
            return output.strip();
        }
    }

    /** Prints how many arguments the probe got, then each one hex-encoded on its own line. */
    static final String HEX_ARGS = "echo \"$#\"; for a do printf '%s' \"$a\" | od -An -v -tx1 | tr -d ' \\n'; echo; done";

    @TempDir
    java.nio.file.Path dir;

    private String runFacts(List<? extends Probe<?>> probes) throws Exception {
        LocalHost host = new LocalHost(dir);
        LocalHost.Run run = host.run(FactsScript.command(probes), new byte[0], false);
        assertEquals(0, run.exitCode(), "one probe exiting early must not fail the whole script: " + run.stderr());
        host.assertNoMarkers();
        return run.stdout();
    }

    @Test
    void everyProbeRunsInItsOwnSubshellAndOutputsSplitBack() throws Exception {
        Map<String, String> sections = FactsScript.split(runFacts(List.of(new Echo("a", "echo one; exit 3"),
                new Echo("b", "echo two"))));
        assertEquals("one", sections.get("a").strip());
        assertEquals("two", sections.get("b").strip(), "the last probe's output is kept too");
        assertTrue(sections.get(FactsScript.CLOCK).matches("\\d{13}"), "the host clock comes last, in ms");
    }

    @Test
    void filesProbeReportsDigestModeOwnerAndOnlyTheContentAskedFor()
            throws Exception {
        java.nio.file.Path pub = dir.resolve("ca.crt");
        java.nio.file.Path secret = dir.resolve("server.key");
        java.nio.file.Files.writeString(pub, "public text\n");
        java.nio.file.Files.writeString(secret, "SECRET\n");
        FilesProbe probe = new FilesProbe("files", List.of(pub.toString(), secret.toString(), dir.resolve("none").toString()),
                Set.of(pub.toString()));
        String out = FactsScript.split(runFacts(List.of(probe))).get("files");
        assertFalse(out.contains("SECRET"), "a key's content must never leave the host");
        Map<String, FileState> files = probe.parse(out);
        assertTrue(files.get(pub.toString()).hasContent("public text\n"));
        assertEquals("public text\n", files.get(pub.toString()).content().orElseThrow());
        assertTrue(files.get(secret.toString()).exists());
        assertTrue(files.get(secret.toString()).content().isEmpty());
        assertTrue(files.get(secret.toString()).hasContent("SECRET\n"));
        assertFalse(files.get(dir.resolve("none").toString()).exists());
    }

    @Test
    void eachProbeReceivesExactlyItsOwnValuesAsLiteralArgumentsAndTheScriptTextNeverChanges() throws Exception {
        LocalHost host = new LocalHost(dir);
        List<String> hostile = host.hostileValues();
        List<Echo> probes = List.of(new Echo("none", HEX_ARGS), new Echo("hostile", HEX_ARGS, hostile),
                new Echo("one", HEX_ARGS, List.of("-n")), new Echo("long", HEX_ARGS, List.of(LocalHost.longValue())),
                new Echo("last", HEX_ARGS, List.of("a", "b")));
        Map<String, String> sections = FactsScript.split(runFacts(probes));
        for (Echo probe : probes) {
            assertEquals(probe.arguments(), decode(sections.get(probe.name())), probe.name());
        }
        List<Echo> benign = probes.stream().map(p -> new Echo(p.name(), p.script(),
                p.arguments().stream().map(a -> "x").toList())).toList();
        RemoteCommand.StdinScript a = (RemoteCommand.StdinScript) FactsScript.command(probes);
        RemoteCommand.StdinScript b = (RemoteCommand.StdinScript) FactsScript.command(benign);
        assertEquals(b.code(), a.code(), "the facts script is the same text whatever the values");
        host.assertArrivesLiterally(a, a.args());
    }

    record UnitsProbe(String name, String script, List<UnitProperties> units) implements Probe<String> {
        @Override
        public String parse(String output) {
            return output.strip();
        }
    }

    @Test
    void systemdIsAskedOnceForEveryProbesUnitsAndEachReadsItsOwnProperties() throws Exception {
        // What 'systemctl show --timestamp=us+utc -p Id,... -- etcd.service x.timer' prints: a block a unit.
        String shown = "ActiveState=active\nId=etcd.service\nUnitFileState=enabled\nNRestarts=2\n\n"
                + "UnitFileState=disabled\nActiveState=inactive\nId=x.timer\n";
        String fake = "etcdwright_units=$(printf '%s' '" + shown + "' | units_by_id)\n";
        List<UnitsProbe> probes = List.of(
                new UnitsProbe("service", fake + "unit_show etcd.service ActiveState,UnitFileState; v='a b'; set -- $v /bi?; echo \"$# $3\"",
                        List.of(new UnitProperties("etcd.service", List.of("ActiveState", "UnitFileState")))),
                new UnitsProbe("member", fake + "[ \"$(unit_show etcd.service ActiveState)\" = ActiveState=active ] && echo up",
                        List.of(new UnitProperties("etcd.service", List.of("ActiveState")))),
                new UnitsProbe("timer", fake + "unit_show x.timer UnitFileState,ActiveStat timer_; unit_show y.timer ActiveState; unit_show x ActiveState",
                        List.of(new UnitProperties("x.timer", List.of("UnitFileState")))));
        Map<String, String> sections = FactsScript.split(runFacts(probes));
        assertEquals("ActiveState=active\nUnitFileState=enabled\n3 /bin", sections.get("service").strip(),
                "that unit's lines of those properties, in systemd's order; then words split and globs expand as before");
        assertEquals("up", sections.get("member").strip());
        assertEquals("timer_UnitFileState=disabled", sections.get("timer").strip(), "a unit systemd did not show: nothing");

        // The units and properties are arguments of the script (values, never its text), each unit once.
        RemoteCommand.StdinScript command = (RemoteCommand.StdinScript) FactsScript.command(probes);
        assertEquals(List.of("Id,ActiveState,UnitFileState", "2", "etcd.service", "x.timer"), command.args().subList(0, 4));
        List<UnitsProbe> renamed = probes.stream().map(p -> new UnitsProbe(p.name(), p.script(), p.units().stream()
                .map(u -> new UnitProperties("$(touch pwned).service", u.properties())).toList())).toList();
        assertEquals(command.code(), ((RemoteCommand.StdinScript) FactsScript.command(renamed)).code());
    }

    @Test
    void filesProbeTreatsHostilePathsAsData() throws Exception {
        LocalHost host = new LocalHost(dir);
        List<String> paths = new java.util.ArrayList<>();
        for (String value : host.hostileValues()) {
            if (value.isEmpty() || value.contains("\n")) {
                continue;
            }
            java.nio.file.Path file = dir.resolve("f " + value.replace("/", "_"));
            java.nio.file.Files.writeString(file, "content of " + value);
            paths.add(file.toString());
        }
        paths.add(dir.resolve("new\nline; $(touch " + host.marker("missing") + ")").toString());
        // Every other file by digest only: sha256sum prints a name holding a backslash with a
        // backslash before the digest, which the probe's numbering must take off.
        Set<String> readContent = new java.util.HashSet<>();
        for (int i = 0; i < paths.size(); i += 2) {
            readContent.add(paths.get(i));
        }
        FilesProbe probe = new FilesProbe("files", paths, readContent);
        Map<String, FileState> files = probe.parse(FactsScript.split(runFacts(List.of(probe))).get("files"));
        for (String path : paths.subList(0, paths.size() - 1)) {
            assertTrue(files.get(path).exists(), path);
            byte[] bytes = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(path));
            assertEquals(io.etcdwright.engine.ssh.HostSession.sha256(bytes), files.get(path).sha256(), path);
            if (readContent.contains(path)) {
                assertEquals(new String(bytes, java.nio.charset.StandardCharsets.UTF_8), files.get(path).content().orElseThrow());
            } else {
                assertTrue(files.get(path).content().isEmpty(), path);
            }
        }
        assertTrue(paths.stream().anyMatch(p -> p.contains("\\") && !readContent.contains(p)),
                "a digest-only file's name holds a backslash");
        assertFalse(files.get(paths.get(paths.size() - 1)).exists());
        assertEquals(new FilesProbe("files", List.of("/a", "/b"), Set.of()).script(), probe.script(),
                "the probe's script is the same text whatever the paths");
    }

    private static List<String> decode(String section) {
        String[] lines = section.split("\n", -1);
        int n = Integer.parseInt(lines[0].strip());
        List<String> values = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
            values.add(new String(java.util.HexFormat.of().parseHex(lines[i].strip()), java.nio.charset.StandardCharsets.UTF_8));
        }
        return values;
    }

    @Test
    void keyValuesTakeTheLastValueAndIgnoreNoise() {
        KeyValues kv = KeyValues.parse("a=1\nnoise\nb= two \na=3\n");
        assertEquals("3", kv.getOr("a", ""));
        assertEquals("two", kv.getOr("b", ""));
        assertEquals(3L, kv.getLong("a").orElseThrow());
        assertTrue(kv.get("missing").isEmpty());
    }

    @Test
    void architecturesUseReleaseNames() {
        assertEquals("amd64", SystemFacts.architecture("x86_64"));
        assertEquals("arm64", SystemFacts.architecture("aarch64"));
    }
}
