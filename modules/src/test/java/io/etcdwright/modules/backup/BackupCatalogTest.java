package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.store.DirectoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import io.etcdwright.modules.backup.store.Store.StoredObject;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackupCatalogTest {
    @TempDir
    Path tmp;

    private static final EtcdManagerMeta EM = new EtcdManagerMeta("3.5.16", Instant.parse("2026-11-24T20:15:03Z"),
            Optional.of(new EtcdClusterSpec(3, "3.5.16")));

    @Test
    void anEtcdManagerBackupDirectoryIsReadWithoutOurMeta() throws IOException {
        Path root = tmp.resolve("store");
        // Exactly what etcd-manager leaves: data, its meta, its control files.
        Path dir = Files.createDirectories(root.resolve("2018-02-20T04:47:55Z-000002"));
        Files.write(dir.resolve("etcd.backup.gz"), new byte[] {31, -117, 8, 0});
        Files.writeString(dir.resolve("_etcd_backup.meta"), BackupLayoutTest.ETCD_MANAGER_META);
        Files.createDirectories(root.resolve("control/2018-02-21T00:00:00Z-000000"));
        Files.writeString(root.resolve("control/etcd-cluster-spec"), "{\n  \"memberCount\": 3,\n  \"etcdVersion\": \"3.5.16\"\n}");
        Files.writeString(root.resolve("control/etcd-cluster-created"), "{\"timestamp\":1519102075000000000}");
        Files.writeString(root.resolve("control/2018-02-21T00:00:00Z-000000/_command.json"), "{}");
        try (DirectoryStore store = new DirectoryStore(root)) {
            BackupCatalog catalog = new BackupCatalog(store);
            BackupCatalog.Listing listing = catalog.list();
            assertEquals(1, listing.backups().size(), listing.toString());
            BackupCatalog.Backup b = listing.backups().get(0);
            assertEquals("2018-02-20T04:47:55Z-000002", b.name().toString());
            assertEquals(4, b.size());
            assertFalse(b.encrypted());
            assertEquals(Optional.empty(), b.meta());
            assertEquals(List.of(), listing.incomplete());
            assertEquals(List.of(), listing.unrecognised());
            BackupCatalog.Meta meta = catalog.readMeta(b.name());
            assertEquals(Instant.ofEpochSecond(1795637703L), meta.etcdManager().timestamp());
            assertEquals(Optional.empty(), meta.etcdwright());
            assertEquals(new EtcdClusterSpec(3, "3.5.16"), catalog.readClusterSpec().orElseThrow());
            assertEquals(Instant.ofEpochSecond(1519102075L), catalog.clusterCreated().orElseThrow().createdAt());
        }
    }

    @Test
    void onlyBackupsWithTheirMetaAreCompleteAndDeletingRemovesTheMetaFirst() throws IOException {
        Path snapshot = Files.write(tmp.resolve("snap.gz"), "snapshot".getBytes(StandardCharsets.UTF_8));
        try (DirectoryStore store = new DirectoryStore(tmp.resolve("store"))) {
            BackupCatalog catalog = new BackupCatalog(store);
            BackupName first = catalog.nextName(Instant.parse("2026-11-24T20:15:03Z"));
            assertEquals("2026-11-24T20:15:03Z-000001", first.toString());
            catalog.add(first, snapshot, EM, BackupLayoutTest.ours(false));
            BackupName second = catalog.nextName(Instant.parse("2026-11-24T20:15:03Z"));
            assertEquals("2026-11-24T20:15:03Z-000002", second.toString(), "same second: the sequence breaks the tie");
            catalog.add(second, snapshot, EM, BackupLayoutTest.ours(true));
            // A write cut short after the data file: no meta, so not a backup.
            store.put("2026-11-24T20:16:00Z-000003/etcd.backup.gz", snapshot);
            store.put("stray.txt", new byte[] {1});

            BackupCatalog.Listing listing = catalog.list();
            assertEquals(List.of(first, second), listing.backups().stream().map(BackupCatalog.Backup::name).toList());
            assertEquals(BackupLayoutTest.ours(false), listing.backups().get(0).meta().orElseThrow());
            assertTrue(listing.backups().get(1).encrypted());
            assertEquals("2026-11-24T20:15:03Z-000002/etcd.backup.gz.p7m", listing.backups().get(1).dataKey());
            assertEquals(second, listing.newest().orElseThrow().name());
            assertEquals(1, listing.incomplete().size());
            assertEquals("2026-11-24T20:16:00Z-000003", listing.incomplete().get(0).name());
            assertEquals(List.of("stray.txt"), listing.unrecognised());
            assertEquals("2026-11-24T20:17:00Z-000004", catalog.nextName(Instant.parse("2026-11-24T20:17:00Z")).toString(),
                    "an incomplete backup's sequence is not reused");

            // A delete cut short after its first step must not leave a "complete" backup.
            store.delete(BackupLayout.key(first, BackupLayout.ETCD_MANAGER_META_FILE));
            assertEquals(List.of(second), catalog.list().backups().stream().map(BackupCatalog.Backup::name).toList());
            catalog.delete(first.toString());
            catalog.delete("2026-11-24T20:16:00Z-000003");
            assertEquals(List.of(), catalog.list().incomplete());
            assertFalse(Files.exists(tmp.resolve("store").resolve(first.toString())), "the emptied directory goes too");
            assertThrows(IllegalArgumentException.class, () -> catalog.delete("control"));
        }
    }
    /** A directory store that refuses writes of one file name, and every delete while {@code down}. */
    private static class Failing implements io.etcdwright.modules.backup.store.Store {
        final DirectoryStore inner;
        final String refusedFile;
        boolean down;

        Failing(Path root, String refusedFile) {
            this.inner = new DirectoryStore(root);
            this.refusedFile = refusedFile;
        }

        private void check(String key) throws IOException {
            if (down || key.endsWith("/" + refusedFile)) {
                throw new IOException("writing " + key + " at " + describe() + " failed: HTTP 503 SlowDown: try again");
            }
        }

        @Override
        public String describe() {
            return inner.describe();
        }

        @Override
        public void put(String key, Path file) throws IOException {
            check(key);
            inner.put(key, file);
        }

        @Override
        public void put(String key, byte[] content) throws IOException {
            check(key);
            inner.put(key, content);
        }

        @Override
        public java.io.InputStream open(String key) throws IOException {
            return inner.open(key);
        }

        @Override
        public java.util.Optional<Versioned> read(String key) throws IOException {
            return inner.read(key);
        }

        @Override
        public String putIfVersion(String key, byte[] content, java.util.Optional<String> expected) throws IOException {
            check(key);
            return inner.putIfVersion(key, content, expected);
        }

        @Override
        public void deleteIfVersion(String key, String expected) throws IOException {
            check(key);
            inner.deleteIfVersion(key, expected);
        }

        @Override
        public List<StoredObject> list(String prefix) throws IOException {
            return inner.list(prefix);
        }

        @Override
        public void delete(String key) throws IOException {
            if (down) {
                throw new IOException("deleting " + key + " failed: connection refused");
            }
            inner.delete(key);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /**
     * A store that fails the last meta (an S3 answering 503) had the data file and our meta already:
     * the on-demand backup left them behind for every listing to show, while the members' scheduled
     * runs remove what they wrote. Now a failed add removes its objects too.
     */
    @Test
    void aFailedAddRemovesWhatItWroteOrSaysWhatIsLeft() throws IOException {
        Path snapshot = Files.write(tmp.resolve("snap.gz"), "snapshot".getBytes(StandardCharsets.UTF_8));
        Failing store = new Failing(tmp.resolve("store"), BackupLayout.ETCD_MANAGER_META_FILE);
        BackupCatalog catalog = new BackupCatalog(store);
        BackupName name = catalog.nextName(Instant.parse("2026-11-24T20:15:03Z"));
        IOException failed = assertThrows(IOException.class, () -> catalog.add(name, snapshot, EM, BackupLayoutTest.ours(false)));
        assertTrue(failed.getMessage().contains("HTTP 503"), failed.getMessage());
        assertEquals(List.of(), store.list(""), "nothing of the failed backup is left");

        // The store goes down between the write and the cleanup: the error names what is left.
        Failing down = new Failing(tmp.resolve("store2"), BackupLayout.ETCD_MANAGER_META_FILE) {
            @Override
            public void put(String key, Path file) throws IOException {
                super.put(key, file);
                down = true;
            }
        };
        BackupCatalog second = new BackupCatalog(down);
        IOException left = assertThrows(IOException.class, () -> second.add(name, snapshot, EM, BackupLayoutTest.ours(false)));
        assertTrue(left.getMessage().startsWith("writing " + name + "/etcdwright-backup.json"), left.getMessage());
        assertTrue(left.getMessage().contains("the incomplete backup " + name + " (" + name + "/etcdwright-backup.json, "
                + name + "/etcd.backup.gz) may be left"), left.getMessage());
        assertTrue(left.getMessage().contains("'etcdwright backups prune' removes it"), left.getMessage());
        down.down = false;
        BackupCatalog.Listing listing = second.list();
        assertEquals(List.of(), listing.backups());
        assertEquals(List.of(name.toString()), listing.incomplete().stream().map(BackupCatalog.Incomplete::name).toList());
    }
}
