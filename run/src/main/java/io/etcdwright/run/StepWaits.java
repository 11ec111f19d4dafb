package io.etcdwright.run;

import io.etcdwright.modules.cluster.ConvergePlanner;

import java.time.Duration;

/**
 * How long a change's steps wait for etcd when they run: for the members to report healthy (or a
 * cluster version), for systemd to report etcd started, for the safety snapshot to stream.
 */
public record StepWaits(Duration ready, Duration restart, Duration snapshot) {
    /** As the planners take them. */
    ConvergePlanner.Timeouts timeouts() {
        return new ConvergePlanner.Timeouts(ready, restart, snapshot);
    }
}
