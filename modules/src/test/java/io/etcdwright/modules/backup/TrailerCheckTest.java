package io.etcdwright.modules.backup;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TrailerCheckTest {

    private static byte[] fixture() throws IOException {
        try (InputStream in = new GZIPInputStream(TrailerCheckTest.class.getResourceAsStream("/snapshots/etcd-3.5.16-rev303.db.gz"))) {
            return in.readAllBytes();
        }
    }

    /** Writes in random chunk sizes, 1 byte to 9 kB, so the 32-byte window is crossed every way. */
    private static TrailerCheck feed(byte[] data, ByteArrayOutputStream sink, long seed) throws IOException {
        TrailerCheck check = new TrailerCheck(sink);
        Random random = new Random(seed);
        int at = 0;
        while (at < data.length) {
            int n = Math.min(data.length - at, 1 + random.nextInt(random.nextBoolean() ? 40 : 9000));
            check.write(data, at, n);
            at += n;
        }
        return check;
    }

    @Test
    void aRealSnapshotProvesItselfWhateverTheChunking() throws IOException {
        byte[] data = fixture();
        for (long seed = 0; seed < 20; seed++) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            TrailerCheck check = feed(data, sink, seed);
            assertEquals(SafetySnapshotSha.of(data), check.verify());
            assertArrayEquals(data, sink.toByteArray(), "passes the stream through unchanged");
            assertEquals(data.length, check.count());
        }
    }

    @Test
    void aFlippedByteIsFound() throws IOException {
        byte[] data = fixture();
        data[5000] ^= 0x01;
        IOException e = assertThrows(IOException.class, () -> feed(data, new ByteArrayOutputStream(), 1).verify());
        assertTrue(e.getMessage().contains("does not match its sha256 trailer"), e.getMessage());
    }

    @Test
    void aCutStreamIsFound() throws IOException {
        byte[] data = Arrays.copyOf(fixture(), 4096 * 3);
        IOException e = assertThrows(IOException.class, () -> feed(data, new ByteArrayOutputStream(), 2).verify());
        assertTrue(e.getMessage().contains("no sha256 trailer"), e.getMessage());
    }

    /** The database's sha256 computed the plain way, to compare with. */
    private static final class SafetySnapshotSha {
        static String of(byte[] snapshot) {
            try {
                byte[] db = Arrays.copyOf(snapshot, snapshot.length - 32);
                return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(db));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
