package io.etcdwright.engine.ssh;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Transport-wide settings.
 *
 * @param knownHostsFile     the file host keys are checked against
 * @param acceptNewHostKeys  trust on first use: record an unknown host's key instead of refusing
 *                           it. A changed key is refused whatever this says.
 * @param connectTimeout     TCP connect plus SSH handshake
 * @param commandTimeout     default upper bound for one remote command
 */
public record SshOptions(Path knownHostsFile, boolean acceptNewHostKeys,
                         Duration connectTimeout, Duration commandTimeout) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMinutes(5);

    public SshOptions {
        Objects.requireNonNull(knownHostsFile, "knownHostsFile");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
    }

    public static Path defaultKnownHostsFile() {
        return Path.of(System.getProperty("user.home"), ".ssh", "known_hosts");
    }
}
