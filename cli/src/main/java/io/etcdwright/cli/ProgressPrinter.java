package io.etcdwright.cli;

import io.etcdwright.engine.exec.Activity;
import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.Step;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Live progress: a line when a step starts and when it finishes, and Ansible's recap at the end.
 * Transfers and waits inside steps (uploads, snapshots, health waits) are shown per host while
 * they run: on a terminal as one status line at the bottom, redrawn in place (the only escape
 * code used, erase-line, only there); in a log, CI or with NO_COLOR as a plain line every ten
 * seconds for each one still running, so a quiet stretch of an apply always says what it waits on.
 */
final class ProgressPrinter implements ProgressListener {
    /** Work shorter than this is not worth a line in a log. */
    static final Duration LOG_EVERY = Duration.ofSeconds(10);
    /** Nor worth drawing on a terminal (it would only flicker). */
    private static final Duration LIVE_AFTER = Duration.ofSeconds(1);
    private static final String ERASE_LINE = "\r\u001b[K";

    private final PrintWriter out;
    private final boolean live;
    private final int width;
    private final Map<Long, Shown> activities = new LinkedHashMap<>();
    private ScheduledExecutorService ticker;
    private boolean statusDrawn;

    private final LongSupplier clock;

    ProgressPrinter(PrintWriter out) {
        this(out, Terminal.live(), Terminal.width(), System::nanoTime);
    }

    /** With the clock tests drive, in nanoseconds as {@link System#nanoTime()}. */
    ProgressPrinter(PrintWriter out, boolean live, int width, LongSupplier clock) {
        this.out = out;
        this.live = live;
        this.width = width;
        this.clock = clock;
    }

    /** What is known of one activity, and when it was last written out (log mode). */
    private static final class Shown {
        final Step step;
        Activity activity;
        final long since;
        long lastLine;

        Shown(Step step, Activity activity, long since) {
            this.step = step;
            this.activity = activity;
            this.since = since;
        }

        /** Counted here, not from the last report: a wait that says nothing new still takes time. */
        Duration elapsed(long nowNanos) {
            return Duration.ofNanos(nowNanos - since);
        }
    }

    @Override
    public synchronized void started(Step step) {
        print(String.format("%-10s %s ...", step.target(), step.line()));
    }

    @Override
    public synchronized void finished(StepResult r) {
        // A step that ended without closing what it reported (it threw) must not leave a stale line.
        activities.values().removeIf(a -> a.step.id().equals(r.step().id()));
        String status = r.status().name().toLowerCase(Locale.ROOT);
        print(String.format(Locale.ROOT, "%-10s %s: %s (%.1f s)%s", r.step().target(), r.step().summary(), status,
                r.took().toMillis() / 1000.0, r.error().map(e -> "\n           " + e.replace("\n", "\n           ")).orElse("")));
    }

    @Override
    public synchronized void note(Step step, String message) {
        print(String.format("%-10s   %s", step.target(), message));
    }

    @Override
    public synchronized void moving(Step step, long id, Activity activity) {
        Shown shown = activities.get(id);
        if (shown == null) {
            activities.put(id, new Shown(step, activity, clock.getAsLong()));
            startTicker();
        } else {
            shown.activity = activity;
        }
    }

    @Override
    public synchronized void ended(Step step, long id, Activity activity) {
        Shown shown = activities.remove(id);
        // In a log, a transfer that was reported while it ran gets its total, so the log says how it ended.
        if (!live && shown != null && shown.lastLine != 0 && activity.kind() == Activity.Kind.TRANSFER) {
            print(String.format("%-10s   %s", step.target(), describe(activity, activity.elapsed(), true)));
        } else if (live) {
            redraw(clock.getAsLong());
        }
    }

    /** Shows what is running now; called by the ticker every 200 ms (terminal) or second (log). */
    synchronized void tick(long nowNanos) {
        if (live) {
            redraw(nowNanos);
            return;
        }
        for (Shown shown : activities.values()) {
            long since = shown.lastLine == 0 ? shown.since : shown.lastLine;
            if (nowNanos - since >= LOG_EVERY.toNanos()) {
                shown.lastLine = nowNanos;
                out.printf("%-10s   %s%n", shown.step.target(), describe(shown.activity, shown.elapsed(nowNanos), false));
            }
        }
        out.flush();
    }

    private void startTicker() {
        if (ticker != null) {
            return;
        }
        ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etcdwright-progress");
            t.setDaemon(true);
            return t;
        });
        long every = live ? 200 : 1000;
        ticker.scheduleAtFixedRate(() -> tick(clock.getAsLong()), every, every, TimeUnit.MILLISECONDS);
    }

    /** A line of its own, above the status line when one is drawn. */
    private void print(String line) {
        if (statusDrawn) {
            out.print(ERASE_LINE);
            statusDrawn = false;
        }
        out.println(line);
        if (live) {
            redraw(clock.getAsLong());
        }
        out.flush();
    }

    private void redraw(long nowNanos) {
        List<String> parts = new ArrayList<>();
        for (Shown shown : activities.values()) {
            if (nowNanos - shown.since >= LIVE_AFTER.toNanos()) {
                parts.add(shown.step.target() + " " + describe(shown.activity, shown.elapsed(nowNanos), false));
            }
        }
        if (parts.isEmpty() && !statusDrawn) {
            return;
        }
        String status = String.join(" | ", parts);
        if (status.length() > width - 1) {
            status = status.substring(0, Math.max(0, width - 2)) + "...";
        }
        out.print(ERASE_LINE + status);
        statusDrawn = !status.isEmpty();
        out.flush();
    }

    /** "upload etcd-v3.5.16-linux-amd64.tar.gz: 12.0 MiB of 20.1 MiB (59%), 5.1 MiB/s" or "members healthy: 12 s (h2: ...)". */
    static String describe(Activity a, Duration elapsed, boolean finished) {
        double seconds = Math.max(1e-3, elapsed.toMillis() / 1000.0);
        if (a.kind() == Activity.Kind.WAIT) {
            return String.format(Locale.ROOT, "waiting for %s: %d s%s", a.what(), elapsed.toSeconds(),
                    a.waitingOn().isEmpty() ? "" : " (" + a.waitingOn() + ")");
        }
        String rate = TransferProgress.size((long) (a.done() / seconds)) + "/s";
        if (finished) {
            return String.format(Locale.ROOT, "%s: %s in %.1f s, %s", a.what(), TransferProgress.size(a.done()), seconds, rate);
        }
        String amount = a.total() > 0
                ? String.format(Locale.ROOT, "%s of %s (%d%%)", TransferProgress.size(a.done()), TransferProgress.size(a.total()),
                a.done() * 100 / a.total())
                : TransferProgress.size(a.done());
        return String.format(Locale.ROOT, "%s: %s, %s", a.what(), amount, rate);
    }

    /** The recap, with a line for every host of the run, including those nothing happened on. */
    static void recap(Recap recap, java.util.Collection<String> hosts, PrintWriter out) {
        out.println();
        out.println("RECAP");
        recap.byHost(hosts).forEach((host, t) -> out.printf("%-10s ok=%d changed=%d failed=%d skipped=%d unreachable=%d%n",
                host, t.ok(), t.changed(), t.failed(), t.skipped(), t.unreachable()));
    }
}
