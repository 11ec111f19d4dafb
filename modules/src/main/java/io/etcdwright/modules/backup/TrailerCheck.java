package io.etcdwright.modules.backup;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Passes a snapshot stream through unchanged while hashing all but its last 32 bytes: etcd ends
 * every snapshot stream with the sha256 of the database before it, so at the end the stream
 * proves itself whole ({@link #verify()}) without reading the file a second time. The same rules
 * as {@code etcdctl snapshot save}: the database is whole pages ({@code size % 512 == 32}) and
 * the trailer matches.
 */
public final class TrailerCheck extends FilterOutputStream {
    static final int SHA256_SIZE = 32;

    private final MessageDigest digest;
    /** The newest 32 bytes seen: the trailer, once the stream ends. */
    private final byte[] tail = new byte[SHA256_SIZE];
    private int tailLength;
    private long count;

    public TrailerCheck(OutputStream out) {
        super(out);
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[]{(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        count += len;
        int total = tailLength + len;
        int spill = Math.max(0, total - SHA256_SIZE);
        // What leaves the 32-byte window is database, and is hashed: first from the old tail, then from b.
        int fromTail = Math.min(spill, tailLength);
        digest.update(tail, 0, fromTail);
        int fromNew = spill - fromTail;
        digest.update(b, off, fromNew);
        byte[] window = new byte[SHA256_SIZE];
        int kept = tailLength - fromTail;
        System.arraycopy(tail, fromTail, window, 0, kept);
        System.arraycopy(b, off + fromNew, window, kept, len - fromNew);
        System.arraycopy(window, 0, tail, 0, kept + len - fromNew);
        tailLength = kept + len - fromNew;
    }

    /** Whether {@code size} bytes can be a whole snapshot: whole 512-byte pages and the 32-byte trailer. */
    static boolean wholeSnapshot(long size) {
        return size >= SHA256_SIZE && (size - SHA256_SIZE) % 512 == 0;
    }

    /** Bytes seen, trailer included. */
    public long count() {
        return count;
    }

    /**
     * @return the database's sha256, hex
     * @throws IOException when the stream is not a whole snapshot or its data does not match the trailer
     */
    public String verify() throws IOException {
        if (!wholeSnapshot(count)) {
            throw new IOException("the snapshot has no sha256 trailer (" + count + " bytes): it is incomplete");
        }
        byte[] actual = digest.digest();
        if (!Arrays.equals(actual, tail)) {
            throw new IOException("the snapshot's data does not match its sha256 trailer: it is damaged");
        }
        return HexFormat.of().formatHex(actual);
    }
}
