package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.crypto.BackupEncryption;
import io.etcdwright.modules.backup.crypto.Recipients;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Compresses (and encrypts) a snapshot on a thread of its own while it is still arriving: what
 * is written here is queued (at most {@value #QUEUE_CHUNKS} chunks, so memory stays bounded
 * and a slow compressor slows the download rather than filling the heap) and encoded into the
 * object file. A backup then takes about as long as the slower of the two, not their sum.
 *
 * <p>gzip first, then CMS when encrypting, so an unencrypted backup is a plain .gz anyone can
 * gunzip. zlib's level 1: a snapshot is mostly free pages and repeated keys, which level 1
 * takes to nearly the size of level 6 at two to three times the speed.
 */
public final class BackgroundEncoder extends OutputStream {
    private static final int QUEUE_CHUNKS = 64;
    private static final byte[] END = new byte[0];

    private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE_CHUNKS);
    private final Thread thread;
    private volatile Throwable failure;
    private boolean closed;

    private BackgroundEncoder(Path object, Optional<Recipients> recipients) {
        thread = new Thread(() -> encode(object, recipients), "backup-encoder");
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts encoding into {@code object}, which must exist (created 0600 by the caller). */
    public static BackgroundEncoder into(Path object, Optional<Recipients> recipients) {
        return new BackgroundEncoder(object, recipients);
    }

    private void encode(Path object, Optional<Recipients> recipients) {
        try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(object), 1 << 16);
             OutputStream encrypted = recipients.isPresent() ? BackupEncryption.encrypting(file, recipients.get()) : file;
             OutputStream gzip = new FastGzip(encrypted)) {
            for (byte[] chunk = queue.take(); chunk != END; chunk = queue.take()) {
                gzip.write(chunk);
            }
        } catch (Throwable e) {
            failure = e;
            queue.clear(); // unblock a writer waiting for room
        }
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[]{(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return;
        }
        failIfFailed();
        try {
            queue.put(Arrays.copyOfRange(b, off, off + len));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while compressing the snapshot");
        }
    }

    /** Waits until everything written is encoded and the object file is closed. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            while (thread.isAlive() && !queue.offer(END, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                failIfFailed();
            }
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            thread.interrupt();
            throw new InterruptedIOException("interrupted while compressing the snapshot");
        }
        failIfFailed();
    }

    /** Stops encoding without finishing: the object file is incomplete and the caller removes it. */
    public void abandon() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void failIfFailed() throws IOException {
        Throwable e = failure;
        if (e != null) {
            throw e instanceof IOException io ? io : new IOException("compressing the snapshot failed: " + e, e);
        }
    }

    private static final class FastGzip extends GZIPOutputStream {
        FastGzip(OutputStream out) throws IOException {
            super(out, 1 << 16);
            def.setLevel(Deflater.BEST_SPEED);
        }
    }
}
