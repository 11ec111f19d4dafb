package io.etcdwright.modules.backup;

import io.etcdwright.modules.membership.EtcdAdminException;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.LongConsumer;

/**
 * A snapshot streamed from one member into a file on the workstation, never held in memory, and
 * verified against etcd's sha256 trailer as it arrives. One endpoint only, as etcd requires
 * ("snapshot must be requested to one selected node"): the caller picks the member (the leader
 * where it can, as etcd's docs advise).
 */
public final class SnapshotDownload {

    /** What was saved: the file (trailer included), its size and the database's sha256. */
    public record Saved(Path file, long bytes, String sha256) {
    }

    private SnapshotDownload() {
    }

    /**
     * Streams into {@code file} (created 0600: a snapshot holds every secret of the cluster).
     * On any failure the file is removed.
     *
     * @param progress told the bytes received so far
     */
    public static Saved take(MemberRpc member, Path file, LongConsumer progress) {
        return take(member, file, progress, OutputStream.nullOutputStream());
    }

    /**
     * The same, with every byte also written to {@code alongside} as it arrives (a compressor
     * working while the download goes on). {@code alongside} is closed when the stream ends
     * well; on a failure the caller discards what it made.
     */
    public static Saved take(MemberRpc member, Path file, LongConsumer progress, OutputStream alongside) {
        try {
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            TrailerCheck check;
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.WRITE), 1 << 20)) {
                check = new TrailerCheck(new Counting(new Tee(out, alongside), progress));
                member.snapshot(check);
                check.flush();
            }
            alongside.close();
            String sha256 = check.verify();
            return new Saved(file, check.count(), sha256);
        } catch (IOException e) {
            deleteQuietly(file);
            throw new EtcdAdminException("cannot take a snapshot from " + member.clientUrl() + ": " + message(e), e);
        } catch (RuntimeException e) {
            deleteQuietly(file);
            throw e;
        }
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the operator sees the first error
        }
    }

    /** Writes to both. */
    private static final class Tee extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        Tee(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            first.flush();
        }
    }

    /** Counts bytes for a progress display. */
    private static final class Counting extends java.io.FilterOutputStream {
        private final LongConsumer progress;
        private long count;

        Counting(OutputStream out, LongConsumer progress) {
            super(out);
            this.progress = progress;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
            progress.accept(count);
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }
    }
}
