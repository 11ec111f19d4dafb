package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.plan.Drift;
import io.etcdwright.modules.cluster.EtcdHostFacts;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How the scheduled backups are doing, from every member's record of its runs: the newest backup
 * any member wrote, and the runs that failed since. A newest backup older than two intervals (or
 * none, once the schedule has been installed for two intervals) is drift: the backups the spec
 * asks for are not being made.
 *
 * @param newest     the newest successful run across the members
 * @param failedRuns runs that failed since each member's last success, summed over the members
 * @param lastFailure the newest failed run, with its message
 * @param installed  every reachable member has the timer enabled
 */
public record BackupFreshness(Optional<ScheduleHostFacts.Run> newest, int failedRuns,
                              Optional<ScheduleHostFacts.Run> lastFailure, boolean installed) {

    public static BackupFreshness of(Collection<ScheduleHostFacts> facts) {
        Optional<ScheduleHostFacts.Run> newest = facts.stream().flatMap(f -> f.lastSuccess().stream())
                .max(Comparator.comparing(ScheduleHostFacts.Run::time));
        Optional<ScheduleHostFacts.Run> lastFailure = facts.stream().flatMap(f -> f.lastRun().stream())
                .filter(r -> r.result().equals("failed")).max(Comparator.comparing(ScheduleHostFacts.Run::time));
        int failed = facts.stream().mapToInt(ScheduleHostFacts::failedRuns).sum();
        boolean installed = !facts.isEmpty() && facts.stream().allMatch(ScheduleHostFacts::timerEnabled);
        return new BackupFreshness(newest, failed, lastFailure, installed);
    }

    /** Two intervals: one tick may be late or skipped (a leader change), two in a row is a problem. */
    public static Duration limit(int intervalMinutes) {
        return Duration.ofMinutes(2L * intervalMinutes);
    }

    public Optional<Duration> age(Instant now) {
        return newest.map(r -> Duration.between(r.time(), now));
    }

    /** Stale: the newest backup is older than two intervals, or runs failed and none ever succeeded. */
    public boolean stale(int intervalMinutes, Instant now) {
        return age(now).map(a -> a.compareTo(limit(intervalMinutes)) > 0).orElse(failedRuns > 0);
    }

    /** The drift the plan reports: nothing when backups are fresh, or when the schedule is not installed yet. */
    public static List<Drift> drift(ScheduleTarget target, Map<String, EtcdHostFacts> facts, Instant now) {
        if (facts.values().stream().noneMatch(f -> f.schedule().probed())) {
            return List.of(); // facts recorded before backups were probed: nothing known
        }
        BackupFreshness f = of(facts.values().stream().map(EtcdHostFacts::schedule).toList());
        int interval = target.schedule().intervalMinutes();
        if (!f.installed()) {
            return List.of(); // the plan installs it; its steps are the change
        }
        Optional<Duration> age = f.age(now);
        if (age.isPresent() && age.get().compareTo(limit(interval)) <= 0) {
            return List.of();
        }
        // A schedule (re)installed less than two intervals ago has had no time to back up yet:
        // the timer file's time on the hosts says when it was written.
        Instant installedAt = facts.values().stream().map(h -> h.file(ScheduleLayout.TIMER_FILE))
                .filter(io.etcdwright.engine.facts.FileState::exists)
                .map(t -> Instant.EPOCH.plus(t.modifiedMicros(), java.time.temporal.ChronoUnit.MICROS))
                .max(Comparator.naturalOrder()).orElse(Instant.EPOCH);
        if (Duration.between(installedAt, now).compareTo(limit(interval)) <= 0) {
            return List.of();
        }
        String what = age.map(a -> "the newest scheduled backup (" + f.newest().get().name() + " from "
                        + f.newest().get().member() + ") is " + describe(a) + " old")
                .orElse("no scheduled backup has been written yet") + ", more than two intervals (" + describe(limit(interval))
                + ")" + (f.failedRuns() > 0 ? "; " + f.failedRuns() + " run" + (f.failedRuns() == 1 ? "" : "s")
                + " failed since" + f.lastFailure().map(r -> ", the last on " + r.member() + ": " + r.message()).orElse("") : "");
        return List.of(new Drift("backup-stale", "cluster " + target.clusterName(), what,
                "look at 'journalctl -u " + ScheduleLayout.SERVICE + "' on the leader's host; 'systemctl start "
                        + ScheduleLayout.SERVICE + "' there runs a backup now"));
    }

    public static String describe(Duration d) {
        long minutes = d.toMinutes();
        if (minutes < 10) {
            // Near the limit of short intervals, whole minutes would read "2 min old, more than 2 min".
            return d.toSecondsPart() == 0 ? minutes + " min" : minutes + " min " + d.toSecondsPart() + " s";
        }
        if (minutes < 120) {
            return minutes + " min";
        }
        long hours = d.toHours();
        return hours < 48 ? hours + " h" : d.toDays() + " d";
    }
}
