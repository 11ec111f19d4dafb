package io.etcdwright.cli;

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

    /** The defaults a command line without these options gets: for connections a command opens beside its own (an SFTP state store). */
    static ConnectionOptions defaults() {
        ConnectionOptions o = new ConnectionOptions();
        o.forks = 10;
        o.connectTimeoutSeconds = 10;
        o.commandTimeoutSeconds = 300;
        return o;
    }

    /** Zero or negative values would mean "no parallelism" or, to the SSH library, "wait forever". */
    void check() {
        positive("--forks", forks);
        positive("--connect-timeout", connectTimeoutSeconds);
        positive("--command-timeout", commandTimeoutSeconds);
    }

    static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, got " + value);
        }
    }
}
