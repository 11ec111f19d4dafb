package io.etcdwright.engine.facts;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FactsScriptTest {
    record Echo(String name, String script) implements Probe<String> {
        @Override
        public String parse(String output) {
            return output.strip();
        }
    }

    @Test
    void everyProbeRunsInItsOwnSubshellAndOutputsSplitBack() throws Exception {
        String script = FactsScript.build(List.of(new Echo("a", "echo one; exit 3"), new Echo("b", "echo two")));
        Process p = new ProcessBuilder("sh", "-s").start();
        p.getOutputStream().write(script.getBytes());
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "one probe exiting early must not fail the whole script");
        Map<String, String> sections = FactsScript.split(out);
        assertEquals("one", sections.get("a").strip());
        assertEquals("two", sections.get("b").strip(), "the last probe's output is kept too");
        assertTrue(sections.get(FactsScript.CLOCK).matches("\\d{13}"), "the host clock comes last, in ms");
    }

    @Test
    void filesProbeReportsDigestModeOwnerAndOnlyTheContentAskedFor(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path pub = dir.resolve("ca.crt");
        java.nio.file.Path secret = dir.resolve("server.key");
        java.nio.file.Files.writeString(pub, "public text\n");
        java.nio.file.Files.writeString(secret, "SECRET\n");
        FilesProbe probe = new FilesProbe("files", List.of(pub.toString(), secret.toString(), dir.resolve("none").toString()),
                Set.of(pub.toString()));
        Process p = new ProcessBuilder("sh", "-c", probe.script()).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
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
