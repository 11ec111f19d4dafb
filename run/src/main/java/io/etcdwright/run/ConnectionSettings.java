package io.etcdwright.run;

import java.time.Duration;

/**
 * How a run reaches its hosts: how many at once, whether a host key not yet known is trusted and
 * recorded, and how long a connection and one remote command may take. The command line's
 * {@code --forks}, {@code --accept-new-host-keys}, {@code --connect-timeout} and
 * {@code --command-timeout}; a watch loop or a rollout gives the same.
 */
public record ConnectionSettings(int forks, boolean acceptNewHostKeys, int connectTimeoutSeconds, int commandTimeoutSeconds) {
    /** What a run without these options gets: for connections a run opens beside its own (an SFTP state store). */
    public static ConnectionSettings defaults() {
        return new ConnectionSettings(10, false, 10, 300);
    }

    public Duration connectTimeout() {
        return Duration.ofSeconds(connectTimeoutSeconds);
    }

    public Duration commandTimeout() {
        return Duration.ofSeconds(commandTimeoutSeconds);
    }

    /**
     * Zero or negative values would mean "no parallelism" or, to the SSH library, "wait forever".
     * Checked when the connections are opened, after the input: bad input is reported first.
     */
    public void check() {
        positive("--forks", forks);
        positive("--connect-timeout", connectTimeoutSeconds);
        positive("--command-timeout", commandTimeoutSeconds);
    }

    /** A count or a number of seconds that must be at least 1, named by the option that gives it. */
    public static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, got " + value);
        }
    }
}
