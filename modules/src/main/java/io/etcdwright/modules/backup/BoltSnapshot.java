package io.etcdwright.modules.backup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Opens an etcd snapshot (a bbolt database, with or without etcd's sha256 trailer) on the
 * workstation and reads what {@code etcdutl snapshot status} reports: the revision, the number
 * of keys in all buckets, the database size and the same CRC-32C hash over bucket names, keys
 * and values. So a backup is described and proved readable without etcdutl on the workstation:
 * every page reached is bounds-checked, and a damaged file is refused with what is wrong.
 *
 * <p>Only what bbolt's format needs for reading is implemented (its {@code page.go}, {@code
 * node.go}, {@code bucket.go}): two meta pages, branch and leaf pages, overflow pages, inline
 * buckets. Pages are read one at a time, so memory stays small for a database of any size.
 */
public final class BoltSnapshot {
    private static final int PAGE_HEADER = 16;
    private static final int ELEMENT = 16;
    private static final int MAGIC = 0xED0CDAED;
    private static final int BRANCH = 0x01;
    private static final int LEAF = 0x02;
    private static final int META = 0x04;
    private static final int BUCKET_LEAF_FLAG = 0x01;
    private static final int BUCKET_HEADER = 16;
    private static final int MAX_DEPTH = 64;

    /**
     * What {@code etcdutl snapshot status -w json} prints, with the same meaning (its
     * {@code totalKey} counts every entry of every bucket: each revision of each key, members,
     * meta), and {@code liveKeys}: the keys a client sees, those whose newest revision is not a
     * delete, which is what a restored cluster must serve.
     */
    public record Status(long revision, long totalKeys, long totalSize, long hash, long liveKeys) {
    }

    private final FileChannel channel;
    private final long fileSize;
    private int pageSize;
    private long highWaterMark;
    private final CRC32C hash = new CRC32C();
    private long totalKeys;
    private long revision;
    private final LiveKeys live = new LiveKeys();

    private BoltSnapshot(FileChannel channel) throws IOException {
        this.channel = channel;
        this.fileSize = channel.size();
    }

    /**
     * @throws IOException when the file is not a bbolt database or is damaged: the message says
     *                     which page and what is wrong
     */
    public static Status status(Path db) throws IOException {
        try (FileChannel channel = FileChannel.open(db, StandardOpenOption.READ)) {
            return new BoltSnapshot(channel).read(db);
        }
    }

    private Status read(Path db) throws IOException {
        long root = readMeta(db);
        walkRootBucket(root);
        return new Status(revision, totalKeys, highWaterMark * pageSize, hash.getValue(), live.count());
    }

    /** The newest valid meta page of the two, as bbolt picks it; returns the root bucket's page. */
    private long readMeta(Path db) throws IOException {
        ByteBuffer first = readAt(0, Math.min(4096, fileSize), "meta page 0");
        Meta meta0 = Meta.parse(first);
        int size = meta0 != null ? meta0.pageSize : 4096;
        Meta meta1 = fileSize >= 2L * size ? Meta.parse(readAt(size, Math.min(4096, fileSize - size), "meta page 1")) : null;
        Meta chosen = meta0 == null ? meta1 : meta1 == null ? meta0 : meta1.txid > meta0.txid ? meta1 : meta0;
        if (chosen == null) {
            throw new IOException(db + " is not an etcd snapshot: neither meta page is a valid bbolt meta page"
                    + " (wrong magic number or checksum)");
        }
        pageSize = chosen.pageSize;
        highWaterMark = chosen.pageCount;
        if (highWaterMark * pageSize > fileSize) {
            throw new IOException(db + " is cut short: its database claims " + highWaterMark * pageSize
                    + " bytes but the file has " + fileSize);
        }
        return chosen.root;
    }

    private void walkRootBucket(long rootPage) throws IOException {
        // The root bucket holds one entry per top-level bucket ("key", "meta", "members", ...).
        forEachLeafEntry(page(rootPage), 0, (flags, key, value) -> {
            if ((flags & BUCKET_LEAF_FLAG) == 0) {
                throw new IOException("the root bucket holds a plain key; not an etcd snapshot");
            }
            hash.update(key);
            boolean keyBucket = "key".equals(new String(key, StandardCharsets.ISO_8859_1));
            walkBucket(ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN), keyBucket);
        });
    }

    private void walkBucket(ByteBuffer bucketValue, boolean keyBucket) throws IOException {
        if (bucketValue.remaining() < BUCKET_HEADER) {
            throw new IOException("a bucket header is cut short");
        }
        long root = bucketValue.getLong(0);
        ByteBuffer start = root == 0
                ? bucketValue.slice(BUCKET_HEADER, bucketValue.remaining() - BUCKET_HEADER).order(ByteOrder.LITTLE_ENDIAN)
                : page(root);
        forEachLeafEntry(start, 0, (flags, key, value) -> {
            hash.update(key);
            // A nested bucket's value is its header, and etcdutl hashes what ForEach gives: nil.
            if ((flags & BUCKET_LEAF_FLAG) == 0) {
                hash.update(value);
            }
            if (keyBucket) {
                if (key.length < 8) {
                    throw new IOException("a key in the 'key' bucket is shorter than a revision");
                }
                revision = ByteBuffer.wrap(key, 0, 8).order(ByteOrder.BIG_ENDIAN).getLong();
                // Revisions come in order; a key ending in 't' is a delete (etcd's mvcc tombstone).
                // An empty value is no key at all: the marker a restore's --bump-revision leaves.
                if (value.length > 0) {
                    live.apply(userKey(value), key.length == 18 && key[17] == 't');
                }
            }
            totalKeys++;
        });
    }

    /** The key of an mvccpb.KeyValue: protobuf field 1, length-delimited. */
    private static byte[] userKey(byte[] keyValue) throws IOException {
        int at = 0;
        while (at < keyValue.length) {
            long tag = 0;
            int shift = 0;
            int b;
            do {
                b = keyValue[at++] & 0xff;
                tag |= (long) (b & 0x7f) << shift;
                shift += 7;
            } while ((b & 0x80) != 0 && at < keyValue.length);
            int wire = (int) (tag & 7);
            long length = 0;
            shift = 0;
            if (wire == 2 || wire == 0) {
                do {
                    b = keyValue[at++] & 0xff;
                    length |= (long) (b & 0x7f) << shift;
                    shift += 7;
                } while ((b & 0x80) != 0 && at < keyValue.length);
            }
            if (wire == 2) {
                if (tag >>> 3 == 1) {
                    if (at + length > keyValue.length) {
                        break;
                    }
                    return java.util.Arrays.copyOfRange(keyValue, at, (int) (at + length));
                }
                at += (int) length;
            } else if (wire != 0) {
                break;
            }
        }
        throw new IOException("a revision in the 'key' bucket holds no key: the snapshot is damaged");
    }

    /**
     * The set of keys alive so far, as 64-bit hashes in an open-addressing table: 16 bytes a key
     * at most, so a keyspace of millions fits in a small heap (a collision would only miscount).
     */
    private static final class LiveKeys {
        private long[] slots = new long[1 << 12];
        private int size;

        void apply(byte[] key, boolean deleted) {
            long h = hash(key);
            int at = find(h);
            boolean present = slots[at] == h;
            if (deleted && present) {
                remove(at);
            } else if (!deleted && !present) {
                slots[at] = h;
                if (++size * 2 > slots.length) {
                    grow();
                }
            }
        }

        long count() {
            return size;
        }

        private int find(long h) {
            int mask = slots.length - 1;
            int at = (int) (h ^ (h >>> 32)) & mask;
            while (slots[at] != 0 && slots[at] != h) {
                at = (at + 1) & mask;
            }
            return at;
        }

        private void remove(int at) {
            int mask = slots.length - 1;
            slots[at] = 0;
            size--;
            // Re-place the rest of the run so lookups that passed over this slot still find theirs.
            for (int next = (at + 1) & mask; slots[next] != 0; next = (next + 1) & mask) {
                long moved = slots[next];
                slots[next] = 0;
                slots[find(moved)] = moved;
            }
        }

        private void grow() {
            long[] old = slots;
            slots = new long[old.length * 2];
            for (long h : old) {
                if (h != 0) {
                    slots[find(h)] = h;
                }
            }
        }

        /** FNV-1a then a mix; 0 is the empty slot, so it is mapped away. */
        private static long hash(byte[] key) {
            long h = 0xcbf29ce484222325L;
            for (byte b : key) {
                h ^= b & 0xff;
                h *= 0x100000001b3L;
            }
            h ^= h >>> 33;
            h *= 0xff51afd7ed558ccdL;
            h ^= h >>> 33;
            return h == 0 ? 1 : h;
        }
    }

    private interface EntryVisitor {
        void visit(int flags, byte[] key, byte[] value) throws IOException;
    }

    /** Depth-first over a branch/leaf tree, in key order, as a bbolt cursor walks it. */
    private void forEachLeafEntry(ByteBuffer page, int depth, EntryVisitor visitor) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IOException("the page tree is deeper than " + MAX_DEPTH + ": the file is damaged (a loop?)");
        }
        int flags = Short.toUnsignedInt(page.getShort(8));
        int count = Short.toUnsignedInt(page.getShort(10));
        long id = page.getLong(0);
        if ((long) PAGE_HEADER + (long) count * ELEMENT > page.limit()) {
            throw new IOException("page " + id + " lists " + count + " elements that do not fit in it");
        }
        if ((flags & BRANCH) != 0) {
            for (int i = 0; i < count; i++) {
                int element = PAGE_HEADER + i * ELEMENT;
                forEachLeafEntry(page(page.getLong(element + 8)), depth + 1, visitor);
            }
        } else if ((flags & LEAF) != 0) {
            for (int i = 0; i < count; i++) {
                int element = PAGE_HEADER + i * ELEMENT;
                int entryFlags = page.getInt(element);
                long keyStart = element + Integer.toUnsignedLong(page.getInt(element + 4));
                long keySize = Integer.toUnsignedLong(page.getInt(element + 8));
                long valueSize = Integer.toUnsignedLong(page.getInt(element + 12));
                if (keyStart + keySize + valueSize > page.limit()) {
                    throw new IOException("page " + id + " element " + i + " reaches past the page's end");
                }
                byte[] key = new byte[(int) keySize];
                byte[] value = new byte[(int) valueSize];
                page.get((int) keyStart, key);
                page.get((int) (keyStart + keySize), value);
                visitor.visit(entryFlags, key, value);
            }
        } else {
            throw new IOException("page " + id + " should be a branch or leaf page but has flags 0x" + Integer.toHexString(flags));
        }
    }

    /** Page {@code id} with its overflow pages, checked to lie inside the database. */
    private ByteBuffer page(long id) throws IOException {
        if (id < 2 || id >= highWaterMark) {
            throw new IOException("a page reference points at page " + id + ", outside the database's "
                    + highWaterMark + " pages: the file is damaged");
        }
        ByteBuffer header = readAt(id * pageSize, PAGE_HEADER, "page " + id);
        long overflow = Integer.toUnsignedLong(header.getInt(12));
        if (header.getLong(0) != id) {
            throw new IOException("page " + id + " says it is page " + header.getLong(0) + ": the file is damaged");
        }
        long length = (overflow + 1) * pageSize;
        if (id + overflow >= highWaterMark || length > Integer.MAX_VALUE) {
            throw new IOException("page " + id + " overflows past the database's end: the file is damaged");
        }
        return readAt(id * pageSize, length, "page " + id);
    }

    private ByteBuffer readAt(long position, long length, String what) throws IOException {
        if (position + length > fileSize) {
            throw new IOException(what + " lies past the end of the file: it is cut short");
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new IOException(what + " ends early");
            }
        }
        return buffer.flip();
    }

    /** bbolt's meta: magic, version, page size, flags, root bucket, freelist, page count, txid, checksum. */
    private record Meta(int pageSize, long root, long pageCount, long txid) {
        static Meta parse(ByteBuffer page) {
            if (page.limit() < PAGE_HEADER + 64 || (Short.toUnsignedInt(page.getShort(8)) & META) == 0) {
                return null;
            }
            int at = PAGE_HEADER;
            if (page.getInt(at) != MAGIC || page.getInt(at + 4) != 2) {
                return null;
            }
            long checksum = page.getLong(at + 56);
            if (fnv64a(page, at, 56) != checksum) {
                return null;
            }
            int pageSize = page.getInt(at + 8);
            if (pageSize < 512 || Integer.bitCount(pageSize) != 1) {
                return null;
            }
            return new Meta(pageSize, page.getLong(at + 16), page.getLong(at + 40), page.getLong(at + 48));
        }

        private static long fnv64a(ByteBuffer buffer, int from, int length) {
            long h = 0xcbf29ce484222325L;
            for (int i = from; i < from + length; i++) {
                h ^= buffer.get(i) & 0xff;
                h *= 0x100000001b3L;
            }
            return h;
        }
    }
}
