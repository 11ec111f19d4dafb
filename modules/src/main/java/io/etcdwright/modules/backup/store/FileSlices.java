package io.etcdwright.modules.backup.store;

import software.amazon.awssdk.http.ContentStreamProvider;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One part of a file for an S3 upload: a fresh stream over the same bytes each time the SDK
 * asks (it asks again to retry), read from disk, never buffered whole.
 */
final class FileSlices implements ContentStreamProvider, AutoCloseable {
    private final Path file;
    private final long offset;
    private final long length;
    private InputStream current;

    FileSlices(Path file, long offset, long length) {
        this.file = file;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public synchronized InputStream newStream() {
        closeCurrent();
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ).position(offset);
            current = new Bounded(Channels.newInputStream(channel), length);
            return current;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " for the upload: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        closeCurrent();
    }

    private void closeCurrent() {
        if (current != null) {
            try {
                current.close();
            } catch (IOException ignored) {
                // a read-only file: nothing is lost by a failed close
            }
            current = null;
        }
    }

    /** At most {@code remaining} bytes of the underlying stream. */
    private static final class Bounded extends FilterInputStream {
        private long remaining;

        Bounded(InputStream in, long remaining) {
            super(in);
            this.remaining = remaining;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = super.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = super.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(Math.min(n, remaining));
            remaining -= skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(super.available(), remaining);
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
