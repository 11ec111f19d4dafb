package io.etcdwright.engine.ssh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HostSession#sync}'s script, run by the local shell as the host would run it: a file is
 * written only when its content differs, its mode fixed in place when only that differs, and the
 * answer says which, so steps report OK or CHANGED truthfully.
 */
class FileSyncTest {
    private static LocalHost.Run sync(LocalHost host, Path file, String content, String mode) throws Exception {
        String user = System.getProperty("user.name");
        String group = Files.readAttributes(host.dir, java.nio.file.attribute.PosixFileAttributes.class).group().getName();
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        return host.run(HostSession.syncCommand(bytes, new RemoteFile(file.toString(), mode, user, group)), bytes, false);
    }

    @Test
    void writesAMissingFileThenNothingWhileItIsRight(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        Path file = dir.resolve("conf/etcd.conf.yml");
        LocalHost.Run first = sync(host, file, "name: h1\n", "0644");
        assertEquals(0, first.exitCode(), first.stderr());
        assertEquals("changed", first.stdout().strip());
        assertEquals("name: h1\n", Files.readString(file));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

        LocalHost.Run second = sync(host, file, "name: h1\n", "0644");
        assertEquals(0, second.exitCode(), second.stderr());
        assertEquals("", second.stdout().strip());

        LocalHost.Run third = sync(host, file, "name: h2\n", "0644");
        assertEquals("changed", third.stdout().strip());
        assertEquals("name: h2\n", Files.readString(file));
        try (var left = Files.list(file.getParent())) {
            assertEquals(1, left.count(), "no temporary file is left behind");
        }
    }

    @Test
    void aWrongModeIsFixedInPlaceSoTheFileStillDatesFromItsLastContentChange(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        Path file = dir.resolve("etcd.conf.yml");
        Files.writeString(file, "name: h1\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        FileTime old = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
        Files.setLastModifiedTime(file, old);

        LocalHost.Run run = sync(host, file, "name: h1\n", "0644");
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("changed", run.stdout().strip());
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(old, Files.getLastModifiedTime(file), "the content did not change, so neither does its time");
    }

    @Test
    void aDamagedTransferIsRefusedAndLeavesTheFileAlone(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        Path file = dir.resolve("etcd.conf.yml");
        Files.writeString(file, "name: h1\n");
        byte[] sent = "name: h2\n".getBytes(StandardCharsets.UTF_8);
        RemoteCommand command = HostSession.syncCommand(sent, new RemoteFile(file.toString(), "0644",
                System.getProperty("user.name"), "root"));
        LocalHost.Run run = host.run(command, "name: h3\n".getBytes(StandardCharsets.UTF_8), false);
        assertEquals(3, run.exitCode());
        assertTrue(run.stderr().contains("arrived damaged"), run.stderr());
        assertEquals("name: h1\n", Files.readString(file));
    }
}
