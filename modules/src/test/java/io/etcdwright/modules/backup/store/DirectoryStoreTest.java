package io.etcdwright.modules.backup.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What only a local directory shows: modes and the temporary files; the contract is StoreContractIT's. */
class DirectoryStoreTest {
    @TempDir
    Path tmp;

    @Test
    void directoriesArePrivateAndFilesTooAndNoTemporaryFileRemains() throws IOException {
        Path root = tmp.resolve("backups");
        try (DirectoryStore store = new DirectoryStore(root)) {
            store.put("2026-11-24T20:15:03Z-000001/_etcd_backup.meta", new byte[] {1, 2});
            Path dir = root.resolve("2026-11-24T20:15:03Z-000001");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("_etcd_backup.meta"))));
            try (var files = Files.list(dir)) {
                assertEquals(List.of("_etcd_backup.meta"), files.map(p -> p.getFileName().toString()).toList());
            }
        }
    }

    @Test
    void aFailedWriteLeavesNeitherTheKeyNorATemporaryFile() throws IOException {
        Path root = tmp.resolve("backups");
        try (DirectoryStore store = new DirectoryStore(root)) {
            assertThrows(IOException.class, () -> store.put("a/etcd.backup.gz", tmp.resolve("no-such-snapshot")));
            assertEquals(List.of(), store.list(""));
            try (var files = Files.walk(root)) {
                assertFalse(files.anyMatch(Files::isRegularFile), "a temporary file was left behind");
            }
        }
    }

    @Test
    void keysThatWouldLeaveTheRootAreRefused() {
        DirectoryStore store = new DirectoryStore(tmp);
        for (String key : List.of("", "/etc/passwd", "../x", "a/../../x", "a//b", "a/", "./a", "a/.b.part")) {
            assertThrows(IllegalArgumentException.class, () -> store.put(key, new byte[0]), key);
        }
        assertThrows(IllegalArgumentException.class, () -> store.list("../"));
    }
}
