package io.etcdwright.cli;

import io.etcdwright.run.StepWaits;
import picocli.CommandLine.Option;

import java.time.Duration;

/** How long apply's steps wait for etcd: the same flags on plan (the plan shows them) and apply. */
final class WaitOptions {
    @Option(names = "--ready-timeout", defaultValue = "120", paramLabel = "SECONDS",
            description = "How long a step waits for the members to report healthy, or for a cluster version"
                    + " (default: ${DEFAULT-VALUE}).")
    int readySeconds;

    @Option(names = "--restart-timeout", defaultValue = "180", paramLabel = "SECONDS",
            description = "How long a restart waits for systemd to report etcd started (default: ${DEFAULT-VALUE}).")
    int restartSeconds;

    @Option(names = "--snapshot-timeout", defaultValue = "300", paramLabel = "SECONDS",
            description = "How long the safety snapshot before a risky change may take to stream (default: ${DEFAULT-VALUE}).")
    int snapshotSeconds;

    StepWaits timeouts() {
        ConnectionOptions.positive("--ready-timeout", readySeconds);
        ConnectionOptions.positive("--restart-timeout", restartSeconds);
        ConnectionOptions.positive("--snapshot-timeout", snapshotSeconds);
        return new StepWaits(Duration.ofSeconds(readySeconds), Duration.ofSeconds(restartSeconds),
                Duration.ofSeconds(snapshotSeconds));
    }
}
