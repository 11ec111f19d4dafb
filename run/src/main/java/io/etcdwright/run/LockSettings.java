package io.etcdwright.run;

import java.time.Duration;

/**
 * How a run that changes a cluster takes its lock (docs/locking.md).
 *
 * @param waitFor how long to wait for another run holding it (zero: refuse at once)
 * @param noLock  take no lock at all (Terraform's -lock=false): only when nothing else changes the cluster meanwhile
 */
public record LockSettings(Duration waitFor, boolean noLock) {
    /** Refuse at once when another run holds it. */
    public static final LockSettings NO_WAIT = new LockSettings(Duration.ZERO, false);
}
