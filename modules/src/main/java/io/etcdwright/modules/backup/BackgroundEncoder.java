package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.crypto.BackupEncryption;
import io.etcdwright.modules.backup.crypto.Recipients;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Compresses (and encrypts) a snapshot while it is still arriving, on threads of their own, so a
 * backup takes about as long as the slower of download and compression, not their sum.
 *
 * <p>The stream is cut into {@value #BLOCK_SIZE}-byte blocks, each compressed on its own as one
 * gzip member by a small pool (compression is the costliest part of a backup), and the members
 * are written in order. Concatenated members are one valid gzip file (RFC 1952): {@code gunzip},
 * Go's {@code gzip.Reader} (etcd-manager) and Java's {@code GZIPInputStream} read them as one
 * stream, as they read what {@code pigz} writes. At most {@value #IN_FLIGHT} blocks are in
 * flight, so memory stays bounded and a slow compressor slows the download rather than filling
 * the heap. Then CMS encryption when there are recipients, so an unencrypted backup is a plain
 * .gz anyone can gunzip. zlib's level 1: a snapshot is mostly free pages and repeated keys, which
 * level 1 takes to nearly the size of level 6 at two to three times the speed.
 */
public final class BackgroundEncoder extends OutputStream {
    private static final int BLOCK_SIZE = 4 << 20;
    private static final int IN_FLIGHT = 4;
    private static final Future<byte[]> END = CompletableFuture.completedFuture(new byte[0]);

    private final ExecutorService compressors;
    private final BlockingQueue<Future<byte[]>> ordered = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final Thread writer;
    private volatile Throwable failure;
    private byte[] block = new byte[BLOCK_SIZE];
    private int filled;
    private boolean anyBlock;
    private boolean closed;

    private BackgroundEncoder(Path object, Optional<Recipients> recipients) {
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        compressors = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "backup-compressor");
            t.setDaemon(true);
            return t;
        });
        writer = new Thread(() -> writeInOrder(object, recipients), "backup-writer");
        writer.setDaemon(true);
        writer.start();
    }

    /** Starts encoding into {@code object}, which must exist (created 0600 by the caller). */
    public static BackgroundEncoder into(Path object, Optional<Recipients> recipients) {
        return new BackgroundEncoder(object, recipients);
    }

    private void writeInOrder(Path object, Optional<Recipients> recipients) {
        try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(object), 1 << 16);
             OutputStream out = recipients.isPresent() ? BackupEncryption.encrypting(file, recipients.get()) : file) {
            for (Future<byte[]> member = ordered.take(); member != END; member = ordered.take()) {
                out.write(member.get());
            }
        } catch (ExecutionException e) {
            failure = e.getCause();
            ordered.clear();
        } catch (Throwable e) {
            failure = e;
            ordered.clear(); // unblock a writer waiting for room
        }
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[]{(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        failIfFailed();
        while (len > 0) {
            int n = Math.min(len, BLOCK_SIZE - filled);
            System.arraycopy(b, off, block, filled, n);
            filled += n;
            off += n;
            len -= n;
            if (filled == BLOCK_SIZE) {
                submitBlock();
            }
        }
    }

    private void submitBlock() throws IOException {
        byte[] full = block;
        int length = filled;
        anyBlock = true;
        block = new byte[BLOCK_SIZE];
        filled = 0;
        enqueue(compressors.submit(() -> gzipMember(full, length)));
    }

    private void enqueue(Future<byte[]> member) throws IOException {
        try {
            while (!ordered.offer(member, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                failIfFailed();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while compressing the snapshot");
        }
    }

    private static byte[] gzipMember(byte[] data, int length) throws IOException {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream(length / 2 + 1024);
        try (GZIPOutputStream gzip = new FastGzip(compressed)) {
            gzip.write(data, 0, length);
        }
        return compressed.toByteArray();
    }

    /** Waits until everything written is encoded and the object file is closed. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            // The last, partial block; and an empty stream still ends as one (empty) gzip member: a valid .gz.
            if (filled > 0 || !anyBlock) {
                submitBlock();
            }
            enqueue(END);
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            writer.interrupt();
            throw new InterruptedIOException("interrupted while compressing the snapshot");
        } finally {
            compressors.shutdownNow();
        }
        failIfFailed();
    }

    /** Stops encoding without finishing: the object file is incomplete and the caller removes it. */
    public void abandon() {
        closed = true;
        compressors.shutdownNow();
        writer.interrupt();
        try {
            writer.join(5000);
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
