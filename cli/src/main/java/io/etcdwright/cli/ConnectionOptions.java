package io.etcdwright.cli;

import io.etcdwright.run.ConnectionSettings;
import picocli.CommandLine.Option;

/** How hosts are reached; the same flags on every command that touches hosts. */
final class ConnectionOptions {
    @Option(names = "--forks", defaultValue = "10", paramLabel = "N",
            description = "Hosts worked on at once (default: ${DEFAULT-VALUE}).")
    int forks;

    @Option(names = "--accept-new-host-keys",
            description = "Trust and record the SSH host key of hosts not yet in known_hosts. A changed key is refused regardless.")
    boolean acceptNewHostKeys;

    @Option(names = "--connect-timeout", defaultValue = "10", paramLabel = "SECONDS",
            description = "SSH connect timeout (default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds;

    @Option(names = "--command-timeout", defaultValue = "300", paramLabel = "SECONDS",
            description = "Upper bound for one remote command (default: ${DEFAULT-VALUE}).")
    int commandTimeoutSeconds;

    /** What the run service takes; checked when it opens the connections (after the input is read). */
    ConnectionSettings settings() {
        return new ConnectionSettings(forks, acceptNewHostKeys, connectTimeoutSeconds, commandTimeoutSeconds);
    }

    static void positive(String option, int value) {
        ConnectionSettings.positive(option, value);
    }
}
