package io.etcdwright.engine.spec;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Snapshots of the keyspace.
 *
 * @param intervalMinutes minutes between scheduled backups; 0: only on demand
 * @param encryption      AES-256-GCM encryption at rest, when a key file is given
 */
public record BackupPolicy(BackupStore store, int intervalMinutes, Retention retention, Optional<Encryption> encryption) {

    public static final int DEFAULT_INTERVAL_MINUTES = 60;

    public BackupPolicy {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(encryption, "encryption");
    }

    /**
     * Which snapshots survive pruning: the newest {@code keepLast} always, and any younger
     * than {@code keepDays} days (0: age does not matter).
     */
    public record Retention(int keepLast, int keepDays) {
        public static final int DEFAULT_KEEP_LAST = 24;
        public static final int DEFAULT_KEEP_DAYS = 7;

        public static Retention defaults() {
            return new Retention(DEFAULT_KEEP_LAST, DEFAULT_KEEP_DAYS);
        }
    }

    /** @param keyFile the AES-256-GCM key, resolved relative to the spec file */
    public record Encryption(Path keyFile) {
        public Encryption {
            Objects.requireNonNull(keyFile, "keyFile");
        }
    }
}
