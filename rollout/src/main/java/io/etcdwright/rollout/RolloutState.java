package io.etcdwright.rollout;

/** Where a rollout as a whole is. */
public enum RolloutState {
    /** A process is walking its waves (or died doing so: {@code resume} picks it up). */
    RUNNING,
    /** Stopped after a wave as asked ({@code --pause-after-wave}): {@code resume} starts the next. */
    PAUSED,
    /** A wave's failures exceeded its budget: later waves untouched; {@code resume} after the fix. */
    STOPPED,
    /** {@code rollout abort}: clusters not started are skipped and stay untouched. */
    ABORTED,
    /** Every wave ran. */
    DONE;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Nothing more happens unless a person resumes it (an aborted or finished rollout is not resumed). */
    public boolean resumable() {
        return this == RUNNING || this == PAUSED || this == STOPPED;
    }
}
