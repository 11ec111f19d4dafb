package io.etcdwright.modules.backup;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A backup's name, etcd-manager's: {@code <UTC time, RFC 3339, seconds, 'Z'>-<sequence %06d>},
 * like {@code 2026-11-24T20:15:03Z-000001} (etcdadm etcd-manager/pkg/backup/vfs.go:58
 * {@code now.UTC().Format(time.RFC3339) + "-" + sequence}, pkg/etcd/backup.go:80
 * {@code fmt.Sprintf("%.6d", sequence)}). Names sort by time, so a listing sorted by key is
 * oldest first. The sequence only breaks ties between backups of the same second.
 *
 * @param time   when the backup was taken, to the second
 * @param suffix what follows "Z-": six digits when we or etcd-manager wrote it, possibly empty
 */
public record BackupName(Instant time, String suffix) implements Comparable<BackupName> {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    public BackupName {
        time = time.truncatedTo(ChronoUnit.SECONDS);
        if (suffix.contains("/")) {
            throw new IllegalArgumentException("a backup name's suffix cannot contain '/': " + suffix);
        }
    }

    public static BackupName of(Instant time, int sequence) {
        if (sequence < 0 || sequence > 999_999) {
            throw new IllegalArgumentException("a backup sequence has six digits, not " + sequence);
        }
        return new BackupName(time, String.format("%06d", sequence));
    }

    /**
     * Reads a name as etcd-manager does (backupcontroller/parse.go): the time is what precedes
     * the first "Z-" (or the whole name), parsed as RFC 3339; anything else is not a backup.
     */
    public static Optional<BackupName> parse(String name) {
        int z = name.indexOf("Z-");
        String time = z < 0 ? name : name.substring(0, z + 1);
        String suffix = z < 0 ? "" : name.substring(z + 2);
        try {
            Instant t = OffsetDateTime.parse(time, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
            if (suffix.contains("/")) {
                return Optional.empty();
            }
            // Go's RFC 3339 keeps fractions of a second; the names we and etcd-manager write have none.
            return Optional.of(new BackupName(t, suffix)).filter(n -> n.time().equals(t));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** The six-digit sequence, or -1 for a suffix that is not one. */
    public int sequence() {
        return suffix.matches("[0-9]{6}") ? Integer.parseInt(suffix) : -1;
    }

    @Override
    public String toString() {
        return FORMAT.format(time) + (suffix.isEmpty() ? "" : "-" + suffix);
    }

    @Override
    public int compareTo(BackupName o) {
        return toString().compareTo(o.toString());
    }
}
