package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.crypto.Openssl;
import io.etcdwright.modules.backup.crypto.PrivateKeys;
import io.etcdwright.modules.backup.crypto.Recipients;
import io.etcdwright.modules.backup.store.DirectoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real etcd snapshot written to a directory store and read back, plain and encrypted, and damaged. */
class BackupRoundTripTest {
    private static final Instant TAKEN = Instant.parse("2026-11-24T20:15:03Z");

    @TempDir
    Path dir;

    private byte[] snapshotBytes() throws IOException {
        try (InputStream in = new GZIPInputStream(getClass().getResourceAsStream("/snapshots/etcd-3.5.16-rev303.db.gz"))) {
            return in.readAllBytes();
        }
    }

    private Path snapshot() throws IOException {
        return Files.write(dir.resolve("snapshot.db"), snapshotBytes());
    }

    private static String sha(byte[] snapshot) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Arrays.copyOf(snapshot, snapshot.length - 32)));
    }

    private BackupWriter.Source source(Optional<Recipients> recipients) {
        return new BackupWriter.Source("three", "3.5.16", 3, "h1", recipients);
    }

    @Test
    void aPlainBackupIsAGzipOfTheSnapshotInEtcdManagersLayout() throws Exception {
        Path root = dir.resolve("store");
        BackupCatalog catalog = new BackupCatalog(new DirectoryStore(root));
        Files.createDirectories(dir.resolve("work"));
        BackupWriter.Written written = BackupWriter.write(catalog, snapshot(), sha(snapshotBytes()), source(Optional.empty()),
                TAKEN, dir.resolve("work"));

        assertEquals("2026-11-24T20:15:03Z-000001", written.name().toString());
        assertEquals(new BoltSnapshot.Status(303, 308, 61440, 3893503318L, 300), written.status());
        Path data = root.resolve("2026-11-24T20:15:03Z-000001/etcd.backup.gz");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(data))) {
            assertArrayEquals(snapshotBytes(), in.readAllBytes(), "a plain gunzip gives etcd's snapshot back, trailer included");
        }
        assertTrue(Files.exists(root.resolve("2026-11-24T20:15:03Z-000001/_etcd_backup.meta")));
        assertEquals("{\n  \"memberCount\": 3,\n  \"etcdVersion\": \"3.5.16\"\n}",
                Files.readString(root.resolve("control/etcd-cluster-spec")).strip());
        try (var files = Files.list(dir.resolve("work"))) {
            assertEquals(0, files.count(), "the encoded file does not stay behind");
        }

        BackupCatalog.Backup listed = catalog.list().newest().orElseThrow();
        BackupReader.Fetched fetched = BackupReader.fetch(catalog, listed, Optional.empty(), dir.resolve("back.db"), n -> { });
        assertArrayEquals(snapshotBytes(), Files.readAllBytes(fetched.snapshot()));
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(snapshotBytes())), fetched.fileSha256());
        assertEquals(written.status(), fetched.status());
        assertEquals(Optional.of("3.5.16"), fetched.etcdVersion());
    }

    @Test
    void anEncryptedBackupNeedsARecipientsKey() throws Exception {
        Openssl.KeyFiles ops = Openssl.ecKeyPair(dir, "ops");
        Openssl.KeyFiles other = Openssl.ecKeyPair(dir, "other");
        BackupCatalog catalog = new BackupCatalog(new DirectoryStore(dir.resolve("store")));
        Files.createDirectories(dir.resolve("work"));
        BackupWriter.Written written = BackupWriter.write(catalog, snapshot(), sha(snapshotBytes()),
                source(Optional.of(Recipients.load(List.of(ops.certificate())))), TAKEN, dir.resolve("work"));
        assertTrue(written.encrypted());
        byte[] stored = Files.readAllBytes(dir.resolve("store/2026-11-24T20:15:03Z-000001/etcd.backup.gz.p7m"));
        assertFalse(stored[0] == (byte) 0x1f && stored[1] == (byte) 0x8b, "not readable as gzip");

        BackupCatalog.Backup listed = catalog.list().newest().orElseThrow();
        IOException noKey = assertThrows(IOException.class,
                () -> BackupReader.fetch(catalog, listed, Optional.empty(), dir.resolve("a.db"), n -> { }));
        assertTrue(noKey.getMessage().contains("--key"), noKey.getMessage());
        assertThrows(IOException.class, () -> BackupReader.fetch(catalog, listed,
                Optional.of(PrivateKeys.read(other.key())), dir.resolve("b.db"), n -> { }));
        assertFalse(Files.exists(dir.resolve("b.db")), "nothing is left of a refused backup");

        BackupReader.Fetched fetched = BackupReader.fetch(catalog, listed, Optional.of(PrivateKeys.read(ops.key())),
                dir.resolve("c.db"), n -> { });
        assertArrayEquals(snapshotBytes(), Files.readAllBytes(fetched.snapshot()));
    }

    @Test
    void aFlippedByteOrACutFileIsRefused() throws Exception {
        BackupCatalog catalog = new BackupCatalog(new DirectoryStore(dir.resolve("store")));
        Files.createDirectories(dir.resolve("work"));
        BackupWriter.write(catalog, snapshot(), sha(snapshotBytes()), source(Optional.empty()), TAKEN, dir.resolve("work"));
        Path data = dir.resolve("store/2026-11-24T20:15:03Z-000001/etcd.backup.gz");
        byte[] good = Files.readAllBytes(data);
        BackupCatalog.Backup listed = catalog.list().newest().orElseThrow();

        try (RandomAccessFile file = new RandomAccessFile(data.toFile(), "rw")) {
            file.seek(good.length / 2);
            int b = file.read();
            file.seek(good.length / 2);
            file.write(b ^ 0x10);
        }
        IOException flipped = assertThrows(IOException.class,
                () -> BackupReader.fetch(catalog, listed, Optional.empty(), dir.resolve("x.db"), n -> { }));
        assertTrue(flipped.getMessage().contains("damaged") || flipped.getMessage().contains("does not match"), flipped.getMessage());

        Files.write(data, Arrays.copyOf(good, good.length - 100));
        IOException cut = assertThrows(IOException.class,
                () -> BackupReader.fetch(catalog, listed, Optional.empty(), dir.resolve("y.db"), n -> { }));
        assertTrue(cut.getMessage().contains("damaged") || cut.getMessage().contains("incomplete")
                || cut.getMessage().contains("Unexpected end"), cut.getMessage());
        assertFalse(Files.exists(dir.resolve("x.db")) || Files.exists(dir.resolve("y.db")));
    }
}
