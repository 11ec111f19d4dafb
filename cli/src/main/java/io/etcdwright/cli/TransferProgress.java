package io.etcdwright.cli;

import java.io.PrintWriter;
import java.util.Locale;
import io.etcdwright.run.TransferListener;

/**
 * One line that shows a long transfer moving: bytes so far and the rate, rewritten in place on a
 * terminal; on anything else (a log, CI) one plain line every ten seconds, never escape codes.
 */
final class TransferProgress implements TransferListener {
    private static final long TERMINAL_EVERY_NANOS = 200_000_000L;
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private final PrintWriter err;
    private final String label;
    private final boolean terminal;
    private final long started = System.nanoTime();
    private long lastShown = started;
    private long bytes;
    private boolean shown;

    TransferProgress(PrintWriter err, String label) {
        this.err = err;
        this.label = label;
        this.terminal = Terminal.live();
    }

    @Override
    public synchronized void accept(long soFar) {
        bytes = soFar;
        long now = System.nanoTime();
        if (now - lastShown < (terminal ? TERMINAL_EVERY_NANOS : LOG_EVERY_NANOS)) {
            return;
        }
        lastShown = now;
        shown = true;
        if (terminal) {
            err.print("\r" + line(now) + "   ");
        } else {
            err.println(line(now));
        }
        err.flush();
    }

    /** Ends the line on a terminal so the next output starts clean. */
    @Override
    public synchronized void done() {
        if (terminal && shown) {
            err.print("\r" + line(System.nanoTime()) + "   \n");
            err.flush();
        }
    }

    private String line(long now) {
        double seconds = Math.max(1e-9, (now - started) / 1e9);
        return String.format(Locale.ROOT, "%s: %s (%s/s)", label, size(bytes), size((long) (bytes / seconds)));
    }

    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        double value = bytes;
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
