package io.etcdwright.cli;

import io.etcdwright.run.RecoveryBackups;
import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupName;
import io.etcdwright.modules.backup.BackupsSeen;
import io.etcdwright.modules.backup.BackupsSeen.StoreAnswer;
import io.etcdwright.modules.backup.EtcdClusterSpec;
import io.etcdwright.modules.backup.EtcdManagerMeta;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.backup.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What a quorum-lost plan says of the backup stores: the newest backup of each, asked all at once
 * and bounded in time, a store that hangs named as not asked rather than holding the plan up.
 */
class RecoveryBackupsTest {
    @TempDir
    Path tmp;

    @Test
    void eachStoreAnswersItsNewestOrThatItHoldsNoneAndAHangingOneIsCutOff() throws IOException {
        Path snapshot = Files.write(tmp.resolve("snap.gz"), "snapshot".getBytes(StandardCharsets.UTF_8));
        BackupName older = BackupName.of(Instant.parse("2026-11-27T10:00:00Z"), 1);
        BackupName newer = BackupName.of(Instant.parse("2026-11-27T11:00:00Z"), 2);
        EtcdManagerMeta meta = new EtcdManagerMeta("3.5.16", older.time(), Optional.of(new EtcdClusterSpec(3, "3.5.16")));
        try (DirectoryStore local = new DirectoryStore(tmp.resolve("local"))) {
            BackupCatalog catalog = new BackupCatalog(local);
            catalog.add(older, snapshot, meta, ours(100));
            catalog.add(newer, snapshot, meta, ours(200));
        }
        List<BackupStore> stores = List.of(new BackupStore.Directory("local", tmp.resolve("local").toString()),
                new BackupStore.Directory("empty", tmp.resolve("empty").toString()),
                new BackupStore.Sftp("vault", "h4", "/srv/etcd-backups"),
                new BackupStore.Directory("broken", tmp.resolve("broken").toString()));
        RecoveryBackups lookup = new RecoveryBackups(stores, store -> switch (store.name()) {
            case "vault" -> hangs();
            case "broken" -> throw new IllegalStateException("cannot open store 'broken': h5: no answer\nmore lines");
            default -> new DirectoryStore(Path.of(((BackupStore.Directory) store).path()));
        }, Duration.ofMillis(700));
        BackupsSeen seen = assertTimeoutPreemptively(Duration.ofSeconds(5), lookup::look);
        assertEquals(new BackupsSeen.Looked(List.of(new StoreAnswer.Newest("local", newer, OptionalLong.of(200)),
                new StoreAnswer.Empty("empty"), new StoreAnswer.Unreachable("vault", "no answer within 700 ms"),
                new StoreAnswer.Unreachable("broken", "cannot open store 'broken': h5: no answer"))), seen);
        assertEquals("the newest backup is 2026-11-27T11:00:00Z-000002 in store 'local', taken 3 hours ago at revision 200"
                + " (writes since then are lost); no backup in 'empty'; store 'vault' could not be asked (no answer within"
                + " 700 ms), it may hold a newer one; store 'broken' could not be asked (cannot open store 'broken': h5: no"
                + " answer), it may hold a newer one", BackupsSeen.describe(seen, Instant.parse("2026-11-27T14:30:00Z")));
        assertEquals(new BackupsSeen.NoStores(), new RecoveryBackups(List.of(), s -> hangs(), Duration.ofSeconds(1)).look());
    }

    private static io.etcdwright.modules.backup.EtcdwrightBackupMeta ours(long revision) {
        return new io.etcdwright.modules.backup.EtcdwrightBackupMeta(1, "scn", revision, 10, 20480, "ab".repeat(32), 900, false,
                List.of(), "3.5.16", 3, Instant.parse("2026-11-27T10:00:00Z"), "h1");
    }

    /** A store whose listing never returns (a host that stopped answering mid-connection). */
    private static Store hangs() {
        return new Store() {
            @Override
            public String describe() {
                return "hanging";
            }

            @Override
            public void put(String key, Path file) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void put(String key, byte[] content) {
                throw new UnsupportedOperationException();
            }

            @Override
            public java.io.InputStream open(String key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<StoredObject> list(String prefix) throws IOException {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                return List.of();
            }

            @Override
            public void delete(String key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<Versioned> read(String key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String putIfVersion(String key, byte[] content, Optional<String> expected) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void deleteIfVersion(String key, String expected) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
            }
        };
    }
}
