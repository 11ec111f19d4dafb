package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.plan.Drift;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.Maintenance;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.cluster.EtcdHostFacts;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the scheduled defragmentation is doing, from each member's record of its last run: what the
 * plan reports as drift (a run that failed) and what {@code status} shows (each member's last run
 * and its reason when it skipped or failed).
 */
public final class DefragRuns {
    private DefragRuns() {
    }

    /** A member whose last scheduled run failed: the maintenance the spec asks for is not being done there. */
    public static List<Drift> drift(ClusterSpec spec, Map<String, EtcdHostFacts> facts) {
        if (spec.maintenance().defragSchedule().isEmpty()) {
            return List.of();
        }
        List<Drift> drift = new ArrayList<>();
        facts.forEach((host, f) -> f.defragSchedule().lastRun().filter(r -> r.result().equals("failed")).ifPresent(r ->
                drift.add(new Drift("defrag-failed", host, "the scheduled defragmentation of member " + r.member() + " failed at "
                        + r.time() + ": " + r.message() + " (" + f.defragSchedule().failedRuns() + " failed run"
                        + (f.defragSchedule().failedRuns() == 1 ? "" : "s") + " in a row)",
                        "look at 'journalctl -u " + DefragScheduleJob.SERVICE + "' on " + host + "; 'systemctl start "
                                + DefragScheduleJob.SERVICE + "' there runs it again, 'etcdwright defrag' does it from here"))));
        return drift;
    }

    /**
     * The {@code defrag_schedule} object of {@code status -o json}: for each member its calendar and
     * its last run, from what the members' probes answered ({@code runs} by member name; a member
     * missing there was not reached).
     */
    public static Map<String, Object> document(Maintenance.Defrag defrag, List<Member> members,
                                               Map<String, ScheduleHostFacts> runs) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("min_fragmentation_percent", defrag.minFragmentationPercent());
        doc.put("min_db_size_mib", defrag.minDbSizeMiB());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            ScheduleHostFacts f = runs.get(m.name());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("member", m.name());
            row.put("calendar", DefragScheduleModule.calendar(defrag.schedule().orElseThrow(), i));
            row.put("reached", f != null);
            row.put("timer_enabled", f != null && f.timerEnabled());
            var last = f == null ? java.util.Optional.<ScheduleHostFacts.Run>empty() : f.lastRun();
            row.put("last_result", last.map(ScheduleHostFacts.Run::result).orElse(null));
            row.put("last_time", last.map(r -> r.time().toString()).orElse(null));
            row.put("last_message", last.map(ScheduleHostFacts.Run::message).orElse(null));
            row.put("failed_runs", f == null ? 0 : f.failedRuns());
            rows.add(row);
        }
        doc.put("members", rows);
        return doc;
    }

    public static List<String> text(Map<String, Object> doc) {
        List<String> lines = new ArrayList<>();
        lines.add("scheduled defragmentation (when at least " + doc.get("min_fragmentation_percent") + "% free and "
                + doc.get("min_db_size_mib") + " MiB):");
        @SuppressWarnings("unchecked") List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("members");
        for (Map<String, Object> r : rows) {
            String last = !Boolean.TRUE.equals(r.get("reached")) ? "not reached over SSH"
                    : r.get("last_result") == null ? "no run yet"
                    : r.get("last_result") + " at " + r.get("last_time") + ": " + r.get("last_message");
            lines.add(String.format("  %-10s %-32s %s", r.get("member"), r.get("calendar"), last));
            if (Boolean.TRUE.equals(r.get("reached")) && !Boolean.TRUE.equals(r.get("timer_enabled"))) {
                lines.add("  WARNING: the defrag timer is not enabled on " + r.get("member") + ": run etcdwright apply");
            }
            if ("failed".equals(r.get("last_result"))) {
                lines.add("  WARNING: " + r.get("member") + "'s last scheduled defragmentation failed: see 'journalctl -u "
                        + DefragScheduleJob.SERVICE + "' on its host");
            }
        }
        return lines;
    }
}
