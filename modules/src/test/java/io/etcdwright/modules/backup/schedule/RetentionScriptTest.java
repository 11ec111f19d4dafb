package io.etcdwright.modules.backup.schedule;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The script's retention: etcd-manager's rules (backupcleanup.go), case by case. */
class RetentionScriptTest {
    static final long NOW = Instant.parse("2026-11-24T20:00:00Z").getEpochSecond();

    static List<String> drops(Path dir, String names, int keepAllHours, int hourlyDays, int dailyDays, String newest)
            throws Exception {
        BackupScript.Result r = BackupScript.run(dir, "retention_drops \"$@\"", names, Long.toString(NOW),
                Integer.toString(keepAllHours), Integer.toString(hourlyDays), Integer.toString(dailyDays), newest);
        assertEquals(0, r.exitCode(), r.stderr());
        return r.stdout().isEmpty() ? List.of() : List.of(r.stdout().split("\n"));
    }

    @Test
    void keepsAllYoungTheOldestPerHourThenPerDayAndDropsTheRest(@TempDir Path dir) throws Exception {
        String names = String.join("\n",
                "2024-01-01T00:00:00Z-000001",  // older than two years: dropped
                "2026-11-10T03:00:00Z-000001",  // 14 days: the oldest of its day, kept
                "2026-11-10T15:00:00Z-000002",  //          same day: dropped
                "2026-11-20T10:15:00Z-000001",  // 4 days: the oldest of its hour, kept
                "2026-11-20T10:45:00Z-000002",  //         same hour: dropped
                "2026-11-24T18:05:00Z-000001",  // 1 h 55: oldest of the 18:00 hour, kept
                "2026-11-24T18:20:00Z-000002",  //         dropped
                "2026-11-24T18:40:00Z-000003",  //         dropped
                "2026-11-24T19:10:00Z-000004",  // under an hour: kept
                "2026-11-24T19:30:00Z-000005",  // under an hour: kept
                "control",                      // not a backup: never touched
                "") + "\n";
        assertEquals(List.of("2024-01-01T00:00:00Z-000001", "2026-11-10T15:00:00Z-000002", "2026-11-20T10:45:00Z-000002",
                        "2026-11-24T18:20:00Z-000002", "2026-11-24T18:40:00Z-000003"),
                drops(dir, names, 1, 7, 730, "2026-11-24T19:30:00Z-000005"));
    }

    @Test
    void theNewestBackupIsKeptWhateverTheRules(@TempDir Path dir) throws Exception {
        String names = "2026-11-01T00:00:00Z-000001\n2026-11-02T00:00:00Z-000002\n";
        assertEquals(List.of("2026-11-01T00:00:00Z-000001"), drops(dir, names, 0, 0, 0, "2026-11-02T00:00:00Z-000002"));
    }

    @Test
    void configurableWindows(@TempDir Path dir) throws Exception {
        // keep everything for 48 h: the two of one hour a day ago both stay
        String names = "2026-11-23T18:05:00Z-000001\n2026-11-23T18:40:00Z-000002\n2026-11-24T19:00:00Z-000003\n";
        assertEquals(List.of(), drops(dir, names, 48, 7, 730, "2026-11-24T19:00:00Z-000003"));
        assertEquals(List.of("2026-11-23T18:40:00Z-000002"), drops(dir, names, 1, 7, 730, "2026-11-24T19:00:00Z-000003"));
    }
    /**
     * A failed run whose cleanup the store refused (it was down) leaves a data file without metas.
     * Counted as a backup, that leftover was the oldest of its hour, and retention deleted the good
     * backup taken later in the same hour: a failed run cost a good backup.
     */
    @Test
    void aLeftoverOfAFailedRunNeverTakesTheSlotOfAGoodBackup(@TempDir Path dir) throws Exception {
        String listing = String.join("\n",
                "2026-11-24T17:05:00Z-000001/etcd.backup.gz",            // failed run, data only: not a backup
                "2026-11-24T17:30:00Z-000002/_etcd_backup.meta",         // good: the oldest complete of 17:00
                "2026-11-24T17:30:00Z-000002/etcd.backup.gz",
                "2026-11-24T17:30:00Z-000002/etcdwright-backup.json",
                "2026-11-24T17:40:00Z-000003/_etcd_backup.meta",         // good, same hour: dropped by the rules
                "2026-11-24T17:40:00Z-000003/etcd.backup.gz.p7m",
                "2026-11-24T18:10:00Z-000004/etcdwright-backup.json",    // failed run, metas half written
                "2026-11-24T18:10:00Z-000004/etcd.backup.gz",
                "2026-11-24T18:50:00Z-000005/_etcd_backup.meta",         // good: the oldest complete of 18:00
                "2026-11-24T18:50:00Z-000005/etcd.backup.gz",
                "2026-11-24T19:30:00Z-000006/_etcd_backup.meta",         // the newest
                "2026-11-24T19:30:00Z-000006/etcd.backup.gz",
                "control/etcd-cluster-spec",
                "") + "\n";
        BackupScript.Result r = BackupScript.run(dir, "listing_drops \"$@\"", listing, Long.toString(NOW), "1", "7", "730",
                "2026-11-24T19:30:00Z-000006");
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals("2026-11-24T17:40:00Z-000003\n", r.stdout(), "only a complete backup the rules drop; leftovers are no backups");
    }

    /** A run that cannot reach S3 says why in its record: curl's own first line, not just that it failed. */
    @Test
    void anUnreachableStoreIsNamedInTheRunsReason(@TempDir Path dir) throws Exception {
        BackupScript.Result r = BackupScript.run(dir, """
                WORK=$(mktemp -d); : > "$WORK/curl.conf"
                s3_curl --connect-timeout 5 http://127.0.0.1:1/bucket/key || printf 'S3_ERROR=%s\\n' "$S3_ERROR"
                rm -rf -- "$WORK"
                """, "");
        assertEquals(0, r.exitCode(), r.stderr());
        org.junit.jupiter.api.Assertions.assertTrue(r.stdout().startsWith("S3_ERROR=curl: (7) ")
                && r.stdout().contains("127.0.0.1"), r.stdout() + r.stderr());
    }
}
