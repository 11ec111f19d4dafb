package io.etcdwright.watch;

import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.PlanSettings;

import java.time.Duration;
import java.util.Objects;

/**
 * How a watcher runs: the same connection and plan settings a person's {@code apply} takes, plus its
 * own pace.
 *
 * @param interval   from one cycle's start to the next one's (the spec's {@code automation.interval}
 *                   unless {@code --interval} says otherwise); at least {@link #MIN_INTERVAL}
 * @param connection how hosts are reached
 * @param plan       what a plan takes (the safety snapshot before risky steps, step waits)
 */
public record WatchSettings(Duration interval, ConnectionSettings connection, PlanSettings plan) {
    /** Under this, a watcher of a few clusters would spend its life gathering facts. */
    public static final Duration MIN_INTERVAL = Duration.ofSeconds(5);

    /**
     * What a cycle's plans take: the safety snapshot before risky steps, never downtime, and no
     * wait of a step longer than the spec's {@code automation.stepDeadlineMinutes}: an unattended
     * step that runs into it fails, and is held for a person (not tried again on the same facts).
     */
    public PlanSettings plan(io.etcdwright.engine.spec.Automation automation) {
        java.time.Duration deadline = automation.stepDeadline();
        io.etcdwright.run.StepWaits w = plan.waits();
        return new PlanSettings(plan.snapshot(), false, new io.etcdwright.run.StepWaits(min(w.ready(), deadline),
                min(w.restart(), deadline), min(w.snapshot(), deadline)));
    }

    private static java.time.Duration min(java.time.Duration a, java.time.Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    public WatchSettings {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("--interval must be at least " + MIN_INTERVAL.toSeconds() + " s, got "
                    + interval.toMillis() / 1000.0 + " s");
        }
    }
}
