package io.etcdwright.modules.data;

import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.LocalHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wipe guard, judged by path in Java and by content on a "host" played by the local sh. */
class DataDirWipeTest {
    @TempDir
    Path dir;
    LocalHost host;

    @BeforeEach
    void setUp() throws Exception {
        host = new LocalHost(dir);
    }

    private LocalHost.Run wipe(Path path) throws Exception {
        return host.run(DataDirWipe.command(path.toString()), new byte[0], false);
    }

    private static Path etcdLike(Path d) throws Exception {
        Files.createDirectories(d.resolve("member/wal"));
        Files.createDirectories(d.resolve("member/snap"));
        Files.writeString(d.resolve("member/wal/0000000000000000-0000000000000000.wal"), "wal");
        Files.writeString(d.resolve("member/snap/db"), "db");
        return d;
    }

    @Test
    void refusesPathsThatAreNotAbsoluteNormalizedOrAreSystemDirectories() {
        for (String bad : List.of("", "var/lib/etcd", "/", "/usr", "/usr/local/etcd", "/var", "/var/lib", "/etc",
                "/root", "/root/.ssh", "/root/.ssh/x", "/etc/ssh/keys", "/proc/1", "/sys/x", "/dev/shm/etcd", "/home",
                "/tmp", "/boot", "/bin", "/lib64", "/var/lib/../../etc", "/var/lib/etcd/", "//var/lib/etcd",
                "/var/./lib/etcd", "/var/lib/etcd/..", "/data/a\nb")) {
            assertTrue(DataDirWipe.pathRefusal(bad).isPresent(), "must refuse '" + bad + "'");
            assertThrows(DataDirWipe.RefusedException.class, () -> DataDirWipe.command(bad), bad);
        }
        for (String good : List.of("/var/lib/etcd", "/data/etcd", "/srv/etcd/data", "/home/etcd/data", "/var/lib/etcd-2")) {
            assertEquals(Optional.empty(), DataDirWipe.pathRefusal(good), good);
        }
        DataDirWipe.RefusedException e = assertThrows(DataDirWipe.RefusedException.class, () -> DataDirWipe.command("/usr"));
        assertTrue(e.getMessage().contains("/usr is a system directory") && e.getMessage().contains("Nothing was deleted"),
                e.getMessage());
    }

    @Test
    void wipesAnEtcdDataDirectoryAndAnEmptyOne() throws Exception {
        Path data = etcdLike(dir.resolve("etcd"));
        LocalHost.Run run = wipe(data);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("wiped", run.stdout().strip());
        assertTrue(Files.notExists(data));

        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertEquals("wiped", wipe(empty).stdout().strip());
        assertTrue(Files.notExists(empty));

        Path walOnly = Files.createDirectories(dir.resolve("walonly/member/wal"));
        assertEquals("wiped", wipe(walOnly.getParent().getParent()).stdout().strip());

        assertEquals("absent", wipe(dir.resolve("never-there")).stdout().strip());
    }

    @Test
    void refusesADirectoryHoldingAnythingElseAndLeavesItIntact() throws Exception {
        Path data = etcdLike(dir.resolve("etcd"));
        Files.writeString(data.resolve("notes.txt"), "mine");
        LocalHost.Run run = wipe(data);
        assertEquals(DataDirWipe.REFUSED, run.exitCode());
        assertTrue(run.stderr().contains("refusing to delete " + data) && run.stderr().contains("'notes.txt'"), run.stderr());
        assertTrue(Files.exists(data.resolve("notes.txt")) && Files.exists(data.resolve("member/wal")));

        Path home = Files.createDirectory(dir.resolve("home"));
        for (String name : List.of(".ssh", ".bashrc", "a", "b", "c", "d", "e")) {
            Files.createFile(home.resolve(name));
        }
        run = wipe(home);
        assertEquals(DataDirWipe.REFUSED, run.exitCode());
        assertTrue(run.stderr().contains("and 2 more"), run.stderr());
        try (var files = Files.list(home)) {
            assertEquals(7, files.count(), "nothing deleted");
        }

        Path notEtcd = Files.createDirectories(dir.resolve("fake/member/other"));
        run = wipe(notEtcd.getParent().getParent());
        assertEquals(DataDirWipe.REFUSED, run.exitCode());
        assertTrue(run.stderr().contains("neither wal/ nor snap/") && run.stderr().contains("'other'"), run.stderr());
        assertTrue(Files.exists(notEtcd));

        Path file = Files.writeString(dir.resolve("a-file"), "x");
        run = wipe(file);
        assertEquals(DataDirWipe.REFUSED, run.exitCode());
        assertTrue(run.stderr().contains("not a directory"), run.stderr());
        assertTrue(Files.exists(file));
    }

    @Test
    void refusesSymbolicLinksAndPathsThatResolveIntoSystemDirectories() throws Exception {
        Path real = etcdLike(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        LocalHost.Run run = wipe(link);
        assertEquals(DataDirWipe.REFUSED, run.exitCode());
        assertTrue(run.stderr().contains("symbolic link"), run.stderr());
        assertTrue(Files.exists(real.resolve("member/wal")) && Files.isSymbolicLink(link));

        Path memberLink = Files.createDirectory(dir.resolve("with-member-link"));
        Files.createSymbolicLink(memberLink.resolve("member"), real.resolve("member"));
        assertEquals(DataDirWipe.REFUSED, wipe(memberLink).exitCode(), "a member/ that is a link is not etcd's");
        assertTrue(Files.exists(real.resolve("member/wal")));

        // The path itself is fine, but a parent is a link into /proc: judged by where it really is.
        Path viaProc = Files.createSymbolicLink(dir.resolve("p"), Path.of("/proc")).resolve("sys");
        run = wipe(viaProc);
        assertEquals(DataDirWipe.REFUSED, run.exitCode());
        assertTrue(run.stderr().contains("inside a system directory"), run.stderr());
    }

    @Test
    void theScriptIsFixedAndAHostilePathIsOneLiteralArgument() throws Exception {
        String code = ((RemoteCommand.Script) DataDirWipe.command("/var/lib/etcd")).code();
        int tried = 0;
        for (String value : host.hostileValues()) {
            String path = "/data/x" + value;
            if (DataDirWipe.pathRefusal(path).isPresent()) {
                continue;
            }
            tried++;
            RemoteCommand c = DataDirWipe.command(path);
            assertEquals(code, ((RemoteCommand.Script) c).code());
            host.assertArrivesLiterally(c, List.of(path));
        }
        assertTrue(tried > 30, "most hostile values are valid file names and must be tried: " + tried);
        // And the real script on a real etcd-like directory with a hostile name.
        Path hostile = etcdLike(dir.resolve("-rf $(touch pwned-wipe);'\"`touch pwned-tick` *"));
        Path bystander = Files.writeString(dir.resolve("bystander"), "keep");
        LocalHost.Run run = wipe(hostile);
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(Files.notExists(hostile) && Files.exists(bystander));
        host.assertNoMarkers();
    }

    @Test
    void aRefusalFailsTheStepWithTheHostsWordsAndWhatToDo() {
        CommandResult refused = new CommandResult("sh script", DataDirWipe.REFUSED, "",
                "refusing to delete /data/etcd: it does not look like an etcd data directory: besides member/ it holds 'x'\n");
        DataDirWipe.RefusedException e = assertThrows(DataDirWipe.RefusedException.class,
                () -> DataDirWipe.interpret("h1", "/data/etcd", refused));
        assertTrue(e.getMessage().startsWith("h1: refusing to delete /data/etcd: it does not look like"), e.getMessage());
        assertTrue(e.getMessage().contains("Nothing was deleted"), e.getMessage());
        assertEquals(DataDirWipe.Result.WIPED, DataDirWipe.interpret("h1", "/d", new CommandResult("", 0, "wiped\n", "")));
        assertEquals(DataDirWipe.Result.ABSENT, DataDirWipe.interpret("h1", "/d", new CommandResult("", 0, "absent\n", "")));
        assertThrows(RuntimeException.class, () -> DataDirWipe.interpret("h1", "/d", new CommandResult("", 1, "", "rm: x")));
        assertFalse(DataDirWipe.SCRIPT.contains("/data/etcd"));
    }
}
