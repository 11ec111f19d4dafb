package io.etcdwright.modules.backup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** etcd's snapshot trailer, checked as etcdctl checks it (real snapshots are taken in Resize36IT and Resize34IT). */
class SafetySnapshotTest {
    @TempDir
    Path dir;

    private Path snapshot(byte[] db, byte[] trailer) throws IOException {
        Path file = dir.resolve("s.db");
        byte[] all = new byte[db.length + trailer.length];
        System.arraycopy(db, 0, all, 0, db.length);
        System.arraycopy(trailer, 0, all, db.length, trailer.length);
        Files.write(file, all);
        return file;
    }

    private static byte[] pages(int count) {
        byte[] db = new byte[4096 * count];
        new Random(7).nextBytes(db);
        return db;
    }

    @Test
    void aWholeSnapshotIsVerifiedAndItsDatabaseHashReturned() throws Exception {
        byte[] db = pages(3);
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(db);
        assertEquals(HexFormat.of().formatHex(sha), SafetySnapshot.verify(snapshot(db, sha)));
    }

    @Test
    void aFlippedByteATruncatedFileAndAMissingTrailerAreRefused() throws Exception {
        byte[] db = pages(2);
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(db);
        byte[] flipped = db.clone();
        flipped[5000] ^= 1;
        IOException damaged = assertThrows(IOException.class, () -> SafetySnapshot.verify(snapshot(flipped, sha)));
        assertTrue(damaged.getMessage().contains("does not match its sha256 trailer"), damaged.getMessage());
        byte[] cut = java.util.Arrays.copyOf(sha, 20);
        IOException truncated = assertThrows(IOException.class, () -> SafetySnapshot.verify(snapshot(db, cut)));
        assertTrue(truncated.getMessage().contains("no sha256 trailer"), truncated.getMessage());
        IOException none = assertThrows(IOException.class, () -> SafetySnapshot.verify(snapshot(db, new byte[0])));
        assertTrue(none.getMessage().contains("no sha256 trailer"), none.getMessage());
    }
}
