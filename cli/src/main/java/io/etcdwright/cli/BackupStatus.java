package io.etcdwright.cli;

import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.modules.backup.schedule.BackupFreshness;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scheduled backups' part of {@code status}: each member's record of its runs (read over SSH by
 * {@link io.etcdwright.run.StatusReading}), summed up as the newest backup's age and the failed runs;
 * older than two intervals is a warning.
 */
final class BackupStatus {
    private BackupStatus() {
    }

    /** The {@code backups} object of {@code status -o json}, from what the members' schedule probes answered. */
    static Map<String, Object> document(BackupPolicy.Schedule schedule, List<ScheduleHostFacts> facts, List<String> unreachable,
                                        Instant now) {
        int interval = schedule.intervalMinutes();
        BackupFreshness f = BackupFreshness.of(facts);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("interval_minutes", interval);
        doc.put("store", schedule.store());
        doc.put("newest", f.newest().map(ScheduleHostFacts.Run::name).orElse(null));
        doc.put("newest_member", f.newest().map(ScheduleHostFacts.Run::member).orElse(null));
        doc.put("newest_time", f.newest().map(r -> r.time().toString()).orElse(null));
        doc.put("newest_age_seconds", f.age(now).map(java.time.Duration::toSeconds).orElse(null));
        doc.put("failed_runs", f.failedRuns());
        doc.put("last_failure", f.lastFailure().map(ScheduleHostFacts.Run::message).orElse(null));
        doc.put("stale", f.stale(interval, now));
        doc.put("timers_enabled", f.installed());
        doc.put("unreachable_hosts", unreachable);
        return doc;
    }

    static List<String> text(Map<String, Object> doc) {
        List<String> lines = new ArrayList<>();
        int interval = (Integer) doc.get("interval_minutes");
        String newest = doc.get("newest") == null ? "none yet"
                : doc.get("newest") + " from " + doc.get("newest_member") + ", "
                + BackupFreshness.describe(java.time.Duration.ofSeconds((Long) doc.get("newest_age_seconds"))) + " old";
        lines.add("scheduled backups (every " + interval + " min to store '" + doc.get("store") + "'): newest " + newest
                + "; failed runs: " + doc.get("failed_runs"));
        if (doc.get("last_failure") != null) {
            lines.add("  last failure: " + doc.get("last_failure"));
        }
        if (Boolean.TRUE.equals(doc.get("stale"))) {
            lines.add("WARNING: no scheduled backup within two intervals (" + 2 * interval + " min): see 'journalctl -u"
                    + " etcdwright-backup.service' on the leader's host");
        }
        if (!Boolean.TRUE.equals(doc.get("timers_enabled"))) {
            lines.add("WARNING: the backup timer is not enabled on every member: run etcdwright apply");
        }
        @SuppressWarnings("unchecked") List<String> unreachable = (List<String>) doc.get("unreachable_hosts");
        if (!unreachable.isEmpty()) {
            lines.add("  not reached over SSH: " + String.join(", ", unreachable));
        }
        return lines;
    }
}
