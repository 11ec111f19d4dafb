package io.etcdwright.modules.backup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BoltSnapshotTest {
    @TempDir
    Path dir;

    /**
     * A real snapshot ({@code etcdctl snapshot save} of etcd 3.5.16 after 300 puts, a delete and
     * a 5 kB value), and what {@code etcdutl snapshot status -w json} printed for it:
     * {"hash":3893503318,"revision":303,"totalKey":308,"totalSize":61440}.
     */
    private Path fixture() throws IOException {
        Path db = dir.resolve("fixture.db");
        try (InputStream in = new GZIPInputStream(getClass().getResourceAsStream("/snapshots/etcd-3.5.16-rev303.db.gz"))) {
            Files.copy(in, db);
        }
        return db;
    }

    @Test
    void readsWhatEtcdutlReports() throws IOException {
        assertEquals(new BoltSnapshot.Status(303, 308, 61440, 3893503318L, 300), BoltSnapshot.status(fixture()));
    }

    @Test
    void aCopiedDatabaseWithoutTheTrailerReadsTheSame() throws IOException {
        Path db = fixture();
        Path bare = dir.resolve("db");
        byte[] all = Files.readAllBytes(db);
        Files.write(bare, java.util.Arrays.copyOf(all, all.length - 32));
        assertEquals(new BoltSnapshot.Status(303, 308, 61440, 3893503318L, 300), BoltSnapshot.status(bare));
    }

    /**
     * A member's database right after 'etcdutl snapshot restore --bump-revision 1000
     * --mark-compacted' of the fixture: the file is 16 MiB (bbolt grows files ahead), the bump
     * left an empty entry at the new revision, and etcdutl says
     * {"hash":445622533,"revision":1303,"totalKey":310,"totalSize":69632}.
     */
    @Test
    void aRestoredMembersDatabaseWithItsRevisionBumpReads() throws IOException {
        Path db = dir.resolve("db");
        try (InputStream in = new GZIPInputStream(getClass().getResourceAsStream("/snapshots/etcd-3.5.16-restored-bump1000.db.gz"))) {
            Files.copy(in, db);
        }
        assertEquals(new BoltSnapshot.Status(1303, 310, 69632, 445622533L, 300), BoltSnapshot.status(db));
    }

    @Test
    void aTruncatedDatabaseIsRefused() throws IOException {
        byte[] all = Files.readAllBytes(fixture());
        Path cut = dir.resolve("cut.db");
        Files.write(cut, java.util.Arrays.copyOf(all, 20000));
        IOException e = assertThrows(IOException.class, () -> BoltSnapshot.status(cut));
        assertTrue(e.getMessage().contains("cut short"), e.getMessage());
    }

    @Test
    void somethingElseIsNotTakenForASnapshot() throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a database\n".repeat(1000));
        IOException e = assertThrows(IOException.class, () -> BoltSnapshot.status(text));
        assertTrue(e.getMessage().contains("is not an etcd snapshot"), e.getMessage());
    }

    @Test
    void aDamagedPageReferenceIsFound() throws IOException {
        byte[] all = Files.readAllBytes(fixture());
        // Both meta pages name the root bucket's page at offset 16+16; point them past the end.
        for (int meta : new int[]{0, 4096}) {
            java.nio.ByteBuffer.wrap(all).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(meta + 32, 9999);
            rechecksum(all, meta);
        }
        Path damaged = Files.write(dir.resolve("damaged.db"), all);
        IOException e = assertThrows(IOException.class, () -> BoltSnapshot.status(damaged));
        assertTrue(e.getMessage().contains("outside the database"), e.getMessage());
    }

    private static void rechecksum(byte[] page, int offset) {
        long h = 0xcbf29ce484222325L;
        for (int i = offset + 16; i < offset + 16 + 56; i++) {
            h ^= page[i] & 0xff;
            h *= 0x100000001b3L;
        }
        java.nio.ByteBuffer.wrap(page).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(offset + 16 + 56, h);
    }
}
