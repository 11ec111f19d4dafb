package io.etcdwright.modules.restore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnapshotSourceTest {
    @TempDir
    Path dir;

    /** A real snapshot of etcd 3.5.16 ('etcdctl snapshot save'): revision 303, 300 live keys, 61440 bytes and the trailer. */
    static byte[] snapshot() throws Exception {
        try (java.io.InputStream in = new java.util.zip.GZIPInputStream(
                SnapshotSourceTest.class.getResourceAsStream("/snapshots/etcd-3.5.16-rev303.db.gz"))) {
            return in.readAllBytes();
        }
    }

    /** Pages of noise with a correct trailer: whole, but no database. */
    static byte[] noiseWithTrailer() throws Exception {
        byte[] db = new byte[8192];
        new Random(7).nextBytes(db);
        byte[] trailer = MessageDigest.getInstance("SHA-256").digest(db);
        byte[] all = Arrays.copyOf(db, db.length + 32);
        System.arraycopy(trailer, 0, all, db.length, 32);
        return all;
    }

    @Test
    void aWholeFileThatIsNoDatabaseIsRefused() throws Exception {
        Path file = Files.write(dir.resolve("s.db"), noiseWithTrailer());
        InvalidSnapshotException e = assertThrows(InvalidSnapshotException.class,
                () -> SnapshotSource.local(file, dir, Optional.empty()));
        assertTrue(e.getMessage().contains("does not open as an etcd database"), e.getMessage());
    }

    @Test
    void whatTheSnapshotHoldsIsKnownBeforeAnyHost() throws Exception {
        Path file = Files.write(dir.resolve("s.db"), snapshot());
        SnapshotSource s = SnapshotSource.local(file, dir.resolve("work"), Optional.empty());
        assertEquals(Optional.of(303L), s.revision());
        assertEquals(Optional.of(300L), s.liveKeys());
    }

    @Test
    void aSnapshotWithItsTrailerIsTakenWithTheSha256OfTheWholeFile() throws Exception {
        byte[] bytes = snapshot();
        Path file = Files.write(dir.resolve("s.db"), bytes);
        SnapshotSource s = SnapshotSource.local(file, dir.resolve("work"), Optional.empty());
        assertTrue(s.hashTrailer());
        assertEquals(bytes.length, s.bytes());
        assertEquals(java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), s.sha256());
    }

    @Test
    void aFlippedByteIsRefused() throws Exception {
        byte[] bytes = snapshot();
        bytes[100] ^= 1;
        Path file = Files.write(dir.resolve("s.db"), bytes);
        InvalidSnapshotException e = assertThrows(InvalidSnapshotException.class,
                () -> SnapshotSource.local(file, dir, Optional.empty()));
        assertTrue(e.getMessage().contains("does not match its sha256 trailer"), e.getMessage());
    }

    @Test
    void aTruncatedSnapshotIsRefused() throws Exception {
        Path file = Files.write(dir.resolve("s.db"), Arrays.copyOf(snapshot(), 5000));
        InvalidSnapshotException e = assertThrows(InvalidSnapshotException.class,
                () -> SnapshotSource.local(file, dir, Optional.empty()));
        assertTrue(e.getMessage().contains("cut short"), e.getMessage());
    }

    @Test
    void aDatabaseCopiedFromADiskHasNoTrailerAndIsSaidSo() throws Exception {
        Path file = Files.write(dir.resolve("db"), Arrays.copyOf(snapshot(), 61440));
        assertFalse(SnapshotSource.local(file, dir, Optional.empty()).hashTrailer());
    }

    @Test
    void aGzippedSnapshotIsUnpackedPrivatelyAndChecked() throws Exception {
        Path gz = dir.resolve("s.db.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(snapshot());
        }
        SnapshotSource s = SnapshotSource.local(gz, dir.resolve("work"), Optional.empty());
        assertEquals(dir.resolve("work/s.db"), s.file());
        assertTrue(s.hashTrailer());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(s.file())));
    }

    @Test
    void aCutGzipIsRefused() throws Exception {
        Path gz = dir.resolve("s.db.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(snapshot());
        }
        byte[] bytes = Files.readAllBytes(gz);
        Files.write(gz, Arrays.copyOf(bytes, bytes.length / 2));
        assertThrows(InvalidSnapshotException.class, () -> SnapshotSource.local(gz, dir.resolve("work"), Optional.empty()));
    }

    @Test
    void theMarkerReadsBackWhatItWrote() {
        RestoreMarker m = new RestoreMarker("a".repeat(64), "c-restore-1", RestoreMarker.State.RESTORED, Optional.of("/var/lib/etcd.x"));
        assertEquals(Optional.of(m), RestoreMarker.parse(new String(m.render(), java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(m.resumes("a".repeat(64), "c-restore-1"));
        assertFalse(m.proven().resumes("a".repeat(64), "c-restore-1"), "a proven restore is not resumed: a new one starts");
        assertEquals(Optional.empty(), RestoreMarker.parse(""));
    }
}
