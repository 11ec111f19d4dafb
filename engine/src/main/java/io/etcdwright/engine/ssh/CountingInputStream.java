package io.etcdwright.engine.ssh;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/** Passes a stream through, telling {@code progress} the bytes read so far after each read. */
public final class CountingInputStream extends FilterInputStream {
    private final LongConsumer progress;
    private long count;

    public CountingInputStream(InputStream in, LongConsumer progress) {
        super(in);
        this.progress = progress;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            progress.accept(++count);
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
            count += n;
            progress.accept(count);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(n);
        count += skipped;
        return skipped;
    }

    /** Counting is for progress only: a mark/reset would make the count lie. */
    @Override
    public boolean markSupported() {
        return false;
    }
}
