package io.etcdwright.engine.ssh;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RemoteCommandTest {
    @TempDir
    Path dir;
    LocalHost host;

    @BeforeEach
    void setUp() throws Exception {
        host = new LocalHost(dir);
    }

    @Test
    void everyHostileValueReachesAProgramAsOneLiteralArgument() throws Exception {
        List<String> values = host.hostileValues();
        List<String> argv = new ArrayList<>(List.of("program"));
        argv.addAll(values);
        host.assertArrivesLiterally(new RemoteCommand.Exec(argv), values);
        for (String value : values) {
            host.assertArrivesLiterally(RemoteCommand.exec("program", value), List.of(value));
        }
    }

    @Test
    void everyHostileValueReachesAScriptAsOneLiteralPositionalParameter() throws Exception {
        List<String> values = host.hostileValues();
        host.assertArrivesLiterally(new RemoteCommand.Script("true", values), values);
        host.assertArrivesLiterally(new RemoteCommand.StdinScript("true", values), values);
        for (String value : values) {
            host.assertArrivesLiterally(RemoteCommand.script("true", value), List.of(value));
            host.assertArrivesLiterally(new RemoteCommand.StdinScript("true", List.of(value)), List.of(value));
        }
    }

    @Test
    void aHundredKilobyteValueArrivesWhole() throws Exception {
        String big = LocalHost.longValue();
        host.assertArrivesLiterally(RemoteCommand.exec("program", big), List.of(big));
        host.assertArrivesLiterally(RemoteCommand.script("true", big, "-x"), List.of(big, "-x"));
        host.assertArrivesLiterally(new RemoteCommand.StdinScript("true", List.of(big)), List.of(big));
    }

    @Test
    void aCommandLineLongerThanAHostAcceptsIsRefusedBeforeSending() {
        RemoteCommand c = RemoteCommand.exec("program", "'".repeat(40_000));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.wire(false));
        assertTrue(e.getMessage().contains("more than the"), e.getMessage());
    }

    @Test
    void theRealScriptSeesItsValuesAsDataNotCode() throws Exception {
        // Not the recorder: the script's own code, using its parameters the way the modules do.
        RemoteCommand c = RemoteCommand.script("set -eu\nv=$1\nprintf '%s' \"$v\" > \"$2\"\n",
                "$(touch " + host.marker("real") + ")'; touch " + host.marker("real2"), dir.resolve("out; x").toString());
        LocalHost.Run run = host.run(c, new byte[0], true);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("$(touch " + host.marker("real") + ")'; touch " + host.marker("real2"),
                Files.readString(dir.resolve("out; x")));
        host.assertNoMarkers();
    }

    @Test
    void leadingDashesAreOperandsOfShNeverOptions() throws Exception {
        // sh -c CODE NAME ARGS: after the code everything is a parameter, even "-c" or "-x".
        LocalHost.Run run = host.run(RemoteCommand.script("printf '%s|' \"$#\" \"$@\"", "-x", "-c", "--", "-e"),
                new byte[0], false);
        assertEquals("4|-x|-c|--|-e|", run.stdout());
        run = host.run(new RemoteCommand.StdinScript("printf '%s|' \"$#\" \"$@\"", List.of("-x", "--", "-s")),
                new byte[0], false);
        assertEquals("3|-x|--|-s|", run.stdout());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RemoteCommand.exec("-rf", "/"));
        assertTrue(e.getMessage().contains("not a program name"), e.getMessage());
    }

    @Test
    void nulCannotBeCarriedSoItIsRefusedWithAClearMessage() {
        for (var make : List.<java.util.function.Supplier<RemoteCommand>>of(
                () -> RemoteCommand.exec("program", "a\0b"),
                () -> RemoteCommand.script("true", "a\0b"),
                () -> new RemoteCommand.StdinScript("true", List.of("ok", "a\0b")),
                () -> RemoteCommand.script("true\0"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::get);
            assertTrue(e.getMessage().contains("NUL"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Shell.quote("\0"));
    }

    @Test
    void becomeIsAnArgvPrefixNotAReQuotedString() {
        RemoteCommand c = RemoteCommand.exec("systemctl", "restart", "etcd.service");
        assertEquals("systemctl restart etcd.service", c.wire(false));
        assertEquals("sudo -n -- systemctl restart etcd.service", c.wire(true));
        assertEquals("sudo -n -- sh -c 'echo \"$1\"' etcdwright 'a b'", RemoteCommand.script("echo \"$1\"", "a b").wire(true));
    }

    @Test
    void uploadSendsPathDigestOwnerAndModeAsArgumentsOfAFixedScript() throws Exception {
        String owner = Files.getOwner(dir).getName();
        String group = new String(new ProcessBuilder("id", "-gn").start().getInputStream().readAllBytes()).strip();
        RemoteFile benign = new RemoteFile("/etc/etcd/etcd.conf.yml", "0644", "root", "root");
        for (String value : host.hostileValues()) {
            if (value.isEmpty() || value.contains("\n")) {
                continue; // not a file name the test can create; the recorder below covers them
            }
            String name = value.replace("/", "_");
            Path target = dir.resolve("up " + name + ".txt");
            RemoteFile file = new RemoteFile(target.toString(), "0640", owner, group);
            RemoteCommand c = HostSession.uploadCommand(HostSession.sha256("hello".getBytes()), file);
            RemoteCommand.Script plain = (RemoteCommand.Script) HostSession.uploadCommand("0", benign);
            assertEquals(plain.code(), ((RemoteCommand.Script) c).code(), "the upload script is the same for every value");
            host.assertArrivesLiterally(c, List.of(target.toString(), HostSession.sha256("hello".getBytes()),
                    owner + ":" + group, "0640"));
            LocalHost.Run run = host.run(c, "hello".getBytes(StandardCharsets.UTF_8), false);
            assertEquals(0, run.exitCode(), value + ": " + run.stderr());
            assertEquals("hello", Files.readString(target), value);
            assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
            host.assertNoMarkers();
        }
        // Hostile digests and owners are data too.
        for (String value : host.hostileValues()) {
            RemoteFile file = new RemoteFile(dir.resolve("x").toString(), "0600", value, value);
            host.assertArrivesLiterally(HostSession.uploadCommand(value, file),
                    List.of(dir.resolve("x").toString(), value, value + ":" + value, "0600"));
        }
        RemoteFile damaged = new RemoteFile(dir.resolve("d").toString(), "0600", owner, group);
        LocalHost.Run run = host.run(HostSession.uploadCommand(HostSession.sha256("other".getBytes()), damaged),
                "hello".getBytes(), false);
        assertEquals(3, run.exitCode());
        assertTrue(run.stderr().contains("arrived damaged"), run.stderr());
        assertTrue(Files.notExists(dir.resolve("d")));
    }
}
