package io.etcdwright.engine.spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Backups of the keyspace: where they go, whom they are encrypted to, whether the members take
 * them on a schedule, and which ones are kept.
 *
 * @param stores     named stores; the first is where {@code backup} writes unless told otherwise
 * @param encryption recipients' public keys; empty: backups are not encrypted
 * @param schedule   empty: backups are taken only on demand
 */
public record BackupPolicy(List<BackupStore> stores, Optional<Encryption> encryption, Optional<Schedule> schedule,
                           Retention retention) {

    public BackupPolicy {
        stores = List.copyOf(stores);
        if (stores.isEmpty()) {
            throw new IllegalArgumentException("a backup policy needs at least one store");
        }
        Objects.requireNonNull(encryption, "encryption");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(retention, "retention");
    }

    /** The store {@code backup} and {@code restore} use when no {@code --store} is given. */
    public BackupStore defaultStore() {
        return stores.get(0);
    }

    public Optional<BackupStore> store(String name) {
        return stores.stream().filter(store -> store.name().equals(name)).findFirst();
    }

    /** The store scheduled backups go to. */
    public Optional<BackupStore> scheduledStore() {
        return schedule.flatMap(s -> store(s.store()));
    }

    /**
     * Which backups survive pruning, etcd-manager's rules: every backup younger than
     * {@code keepAllForHours}; the oldest of each hour younger than {@code hourlyForDays}; the
     * oldest of each day younger than {@code dailyForDays}. The newest backup is always kept.
     */
    public record Retention(int keepAllForHours, int hourlyForDays, int dailyForDays) {
        public static final int DEFAULT_KEEP_ALL_FOR_HOURS = 1;
        public static final int DEFAULT_HOURLY_FOR_DAYS = 7;
        public static final int DEFAULT_DAILY_FOR_DAYS = 730;

        public static Retention defaults() {
            return new Retention(DEFAULT_KEEP_ALL_FOR_HOURS, DEFAULT_HOURLY_FOR_DAYS, DEFAULT_DAILY_FOR_DAYS);
        }
    }

    /**
     * Backups are encrypted to every recipient (CMS, AES-256-GCM); any one recipient's private
     * key restores them. Only public keys are named here: no private key is needed to back up.
     *
     * @param recipients X.509 certificates or PEM public keys, resolved relative to the spec file
     */
    public record Encryption(List<Path> recipients) {
        public Encryption {
            recipients = List.copyOf(recipients);
        }
    }

    /**
     * Backups the members take on their own: a systemd timer on every member, where only the
     * member that leads at the tick takes the snapshot.
     *
     * @param store           the name of the store they go to
     * @param credentialsFile the credentials the hosts use for that store, on the workstation,
     *                        copied root-only onto the members: for S3 an environment file
     *                        ({@code AWS_ACCESS_KEY_ID=...}, {@code AWS_SECRET_ACCESS_KEY=...}),
     *                        for SFTP an SSH private key; none for a directory
     */
    public record Schedule(int intervalMinutes, String store, Optional<Path> credentialsFile) {
        public static final int DEFAULT_INTERVAL_MINUTES = 15;

        public Schedule {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(credentialsFile, "credentialsFile");
        }
    }
}
