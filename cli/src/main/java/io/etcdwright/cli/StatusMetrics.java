package io.etcdwright.cli;

import io.etcdwright.engine.output.OpenMetrics;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.maintenance.MaintenanceChecks;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code status -o openmetrics}: what no single member's host can tell Prometheus, as the
 * workstation (or a CI job, a cron job) sees it: members healthy against the spec's, the leader, the
 * cluster version, each database against the quota, the alarms, the newest scheduled backup, who
 * holds the cluster's lock. For node_exporter's textfile collector or a Pushgateway; every name is in
 * docs/monitoring.md, and the shipped alert rules (monitoring/etcdwright-alerts.yml) read them.
 */
final class StatusMetrics {
    private StatusMetrics() {
    }

    static String openMetrics(StatusCommand.Report r, Instant now) {
        return openMetrics(List.of(r), now);
    }

    /** One document for several clusters (a fleet): each family once, a sample per cluster. */
    static String openMetrics(List<StatusCommand.Report> reports, Instant now) {
        OpenMetrics doc = new OpenMetrics();
        OpenMetrics.Family asked = doc.gauge("etcdwright_cluster_status_timestamp_seconds", "seconds",
                "When etcdwright status asked the cluster (seconds since the epoch): how fresh the rest is.");
        reports.forEach(r -> asked.sample(cluster(r), now.toEpochMilli() / 1000.0));
        OpenMetrics.Family healthy = doc.gauge("etcdwright_cluster_healthy", "", "1 when every member of the spec answers healthy"
                + " and no alarm is raised (etcdwright's own write fence aside): what the exit code of etcdwright status says.");
        reports.forEach(r -> healthy.sample(cluster(r), r.allHealthy()));
        OpenMetrics.Family members = doc.gauge("etcdwright_cluster_members", "", "Members the spec asks for.");
        reports.forEach(r -> members.sample(cluster(r), r.desired().members().size()));
        OpenMetrics.Family membersHealthy = doc.gauge("etcdwright_cluster_members_healthy", "", "Members that answered healthy.");
        reports.forEach(r -> membersHealthy.sample(cluster(r),
                r.rows().stream().filter(row -> Boolean.TRUE.equals(row.get("healthy"))).count()));
        OpenMetrics.Family hasLeader = doc.gauge("etcdwright_cluster_has_leader", "", "1 when a member says it leads.");
        reports.forEach(r -> hasLeader.sample(cluster(r), r.rows().stream().anyMatch(row -> Boolean.TRUE.equals(row.get("leader")))));

        OpenMetrics.Family up = doc.gauge("etcdwright_member_healthy", "", "1 when the member answered healthy.");
        OpenMetrics.Family leader = doc.gauge("etcdwright_member_leader", "", "1 for the member that leads.");
        OpenMetrics.Family size = doc.gauge("etcdwright_member_db_size_bytes", "bytes",
                "The size of the member's database file (what the quota is checked against).");
        OpenMetrics.Family inUse = doc.gauge("etcdwright_member_db_size_in_use_bytes", "bytes",
                "What of the member's database file holds data; the rest is what a defragmentation gives back.");
        for (StatusCommand.Report r : reports) {
            String name = r.desired().spec().name();
            for (String m : members(r)) {
                Optional<Map<String, Object>> row = row(r, m);
                up.sample(labels(name, m), row.map(x -> Boolean.TRUE.equals(x.get("healthy"))).orElse(false));
                leader.sample(labels(name, m), row.map(x -> Boolean.TRUE.equals(x.get("leader"))).orElse(false));
                row.map(x -> x.get("db_size_bytes")).ifPresent(v -> size.sample(labels(name, m), ((Number) v).doubleValue()));
                row.map(x -> x.get("db_in_use_bytes")).ifPresent(v -> inUse.sample(labels(name, m), ((Number) v).doubleValue()));
            }
        }
        OpenMetrics.Family quota = doc.gauge("etcdwright_cluster_quota_backend_bytes", "bytes", "The database quota"
                + " (quota-backend-bytes): a member whose database reaches it raises NOSPACE and the cluster refuses writes.");
        reports.forEach(r -> quota.sample(cluster(r), MaintenanceChecks.quotaBytes(r.desired().spec().etcd())));
        OpenMetrics.Family version = doc.gauge("etcdwright_cluster_version_info", "", "The cluster version, the minor every"
                + " member speaks, as a label; always 1.");
        reports.forEach(r -> r.clusterVersion().ifPresent(v -> version.sample(with(cluster(r), "version", v), 1)));

        OpenMetrics.Family alarms = doc.gauge("etcdwright_cluster_alarm", "", "1 for each alarm raised (NOSPACE, CORRUPT), by"
                + " member; etcdwright's own write fence is not one.");
        for (StatusCommand.Report r : reports) {
            for (Map<String, Object> a : r.alarmRows()) {
                if (!Boolean.TRUE.equals(a.get("etcdwright_write_fence"))) {
                    Map<String, String> l = with(cluster(r), "alarm", String.valueOf(a.get("type")));
                    l.put("member", a.get("member") == null ? String.valueOf(a.get("member_id")) : (String) a.get("member"));
                    alarms.sample(l, 1);
                }
            }
        }

        if (reports.stream().anyMatch(r -> r.backups().isPresent())) {
            OpenMetrics.Family newest = doc.gauge("etcdwright_cluster_newest_backup_timestamp_seconds", "seconds", "When the newest"
                    + " scheduled backup any member recorded was taken (seconds since the epoch).");
            OpenMetrics.Family age = doc.gauge("etcdwright_cluster_newest_backup_age_seconds", "seconds", "How old the newest"
                    + " scheduled backup was when status asked.");
            OpenMetrics.Family stale = doc.gauge("etcdwright_cluster_backup_stale", "", "1 when the newest scheduled backup is"
                    + " older than two intervals (or none was written while runs failed).");
            OpenMetrics.Family failed = doc.gauge("etcdwright_cluster_backup_failed_runs", "", "Scheduled backup runs that failed"
                    + " since each member's last success, summed over the members.");
            for (StatusCommand.Report r : reports) {
                r.backups().ifPresent(b -> {
                    if (b.get("newest_time") != null) {
                        newest.sample(cluster(r), Instant.parse((String) b.get("newest_time")).getEpochSecond());
                        age.sample(cluster(r), ((Number) b.get("newest_age_seconds")).doubleValue());
                    }
                    stale.sample(cluster(r), Boolean.TRUE.equals(b.get("stale")));
                    failed.sample(cluster(r), ((Number) b.get("failed_runs")).doubleValue());
                });
            }
        }

        OpenMetrics.Family held = doc.gauge("etcdwright_cluster_lock_held", "", "1 while a run holds the cluster's lock (apply,"
                + " defrag, restore, destroy, a member's scheduled defragmentation).");
        reports.forEach(r -> held.sample(cluster(r), r.lock().isPresent()));
        if (reports.stream().anyMatch(r -> r.lock().flatMap(ClusterLock.Held::holder).isPresent())) {
            OpenMetrics.Family holder = doc.gauge("etcdwright_cluster_lock_holder_info", "", "Who holds the cluster's lock and for"
                    + " what, as labels; always 1.");
            OpenMetrics.Family since = doc.gauge("etcdwright_cluster_lock_since_timestamp_seconds", "seconds",
                    "Since when the holder holds the cluster's lock.");
            for (StatusCommand.Report r : reports) {
                r.lock().flatMap(ClusterLock.Held::holder).ifPresent(h -> {
                    Map<String, String> l = with(cluster(r), "holder", h.user() + "@" + h.host());
                    l.put("command", h.command());
                    holder.sample(l, 1);
                    since.sample(cluster(r), h.since().getEpochSecond());
                });
            }
        }
        return doc.text();
    }

    private static Map<String, String> cluster(StatusCommand.Report r) {
        Map<String, String> l = new LinkedHashMap<>();
        l.put("cluster", r.desired().spec().name());
        return l;
    }

    /** Every member of the spec, and any other the cluster lists (one leaving): none is left out for being down. */
    private static Set<String> members(StatusCommand.Report r) {
        Set<String> members = new LinkedHashSet<>();
        r.desired().members().stream().map(Member::name).forEach(members::add);
        r.rows().forEach(row -> members.add((String) row.get("name")));
        return members;
    }

    private static Map<String, String> with(Map<String, String> labels, String name, String value) {
        Map<String, String> l = new LinkedHashMap<>(labels);
        l.put(name, value);
        return l;
    }

    private static Map<String, String> labels(String cluster, String member) {
        Map<String, String> l = new LinkedHashMap<>();
        l.put("cluster", cluster);
        l.put("member", member);
        return l;
    }

    private static Optional<Map<String, Object>> row(StatusCommand.Report r, String member) {
        return r.rows().stream().filter(row -> member.equals(row.get("name"))).findFirst();
    }

    /** The names this document may hold, for docs/monitoring.md's test. */
    static final List<String> NAMES = List.of("etcdwright_cluster_status_timestamp_seconds", "etcdwright_cluster_healthy",
            "etcdwright_cluster_members", "etcdwright_cluster_members_healthy", "etcdwright_cluster_has_leader",
            "etcdwright_member_healthy", "etcdwright_member_leader", "etcdwright_member_db_size_bytes",
            "etcdwright_member_db_size_in_use_bytes", "etcdwright_cluster_quota_backend_bytes", "etcdwright_cluster_version_info",
            "etcdwright_cluster_alarm", "etcdwright_cluster_newest_backup_timestamp_seconds",
            "etcdwright_cluster_newest_backup_age_seconds", "etcdwright_cluster_backup_stale", "etcdwright_cluster_backup_failed_runs",
            "etcdwright_cluster_lock_held", "etcdwright_cluster_lock_holder_info", "etcdwright_cluster_lock_since_timestamp_seconds");
}
