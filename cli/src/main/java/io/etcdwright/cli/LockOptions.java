package io.etcdwright.cli;

import io.etcdwright.run.LockSettings;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** How long a command that changes a cluster waits for another holding its lock. */
final class LockOptions {
    @Option(names = "--lock-timeout", defaultValue = "0s", paramLabel = "DURATION",
            description = "Wait this long for another etcdwright holding the cluster's lock (30s, 5m; default: refuse at once).")
    String lockTimeout;

    @Option(names = "--no-lock", description = "Do not take the cluster's lock (Terraform's -lock=false): only when you know"
            + " nothing else changes this cluster meanwhile (docs/locking.md).")
    boolean noLock;

    Duration waitFor() {
        return parse(lockTimeout);
    }

    /** What the run service takes; --lock-timeout is not read with --no-lock, which waits for nothing. */
    LockSettings settings() {
        return new LockSettings(noLock ? Duration.ZERO : waitFor(), noLock);
    }

    /** {@code 30s}, {@code 5m}, {@code 1h}, or a bare number of seconds. */
    static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
            } else if (t.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            } else if (t.endsWith("h")) {
                d = Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
            } else {
                d = Duration.ofSeconds(Long.parseLong(t));
            }
            if (d.isNegative()) {
                throw new IllegalArgumentException("--lock-timeout must not be negative, got " + text);
            }
            return d;
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("--lock-timeout: '" + text + "' is no duration (30s, 5m, 1h)");
        }
    }
}
