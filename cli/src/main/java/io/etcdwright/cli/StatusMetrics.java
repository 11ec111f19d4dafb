package io.etcdwright.cli;

import io.etcdwright.engine.output.OpenMetrics;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.lock.LockHolder;
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
        OpenMetrics doc = new OpenMetrics();
        String name = r.desired().spec().name();
        Map<String, String> cluster = Map.of("cluster", name);
        doc.gauge("etcdwright_cluster_status_timestamp_seconds", "seconds",
                        "When etcdwright status asked the cluster (seconds since the epoch): how fresh the rest is.")
                .sample(cluster, now.toEpochMilli() / 1000.0);
        doc.gauge("etcdwright_cluster_healthy", "", "1 when every member of the spec answers healthy and no alarm is raised"
                + " (etcdwright's own write fence aside): what the exit code of etcdwright status says.").sample(cluster, r.allHealthy());
        doc.gauge("etcdwright_cluster_members", "", "Members the spec asks for.").sample(cluster, r.desired().members().size());
        long healthy = r.rows().stream().filter(row -> Boolean.TRUE.equals(row.get("healthy"))).count();
        doc.gauge("etcdwright_cluster_members_healthy", "", "Members that answered healthy.").sample(cluster, healthy);
        doc.gauge("etcdwright_cluster_has_leader", "", "1 when a member says it leads.").sample(cluster,
                r.rows().stream().anyMatch(row -> Boolean.TRUE.equals(row.get("leader"))));

        // Every member of the spec, and any other the cluster lists (one leaving): none is left out for being down.
        Set<String> members = new LinkedHashSet<>();
        r.desired().members().stream().map(Member::name).forEach(members::add);
        r.rows().forEach(row -> members.add((String) row.get("name")));
        OpenMetrics.Family up = doc.gauge("etcdwright_member_healthy", "", "1 when the member answered healthy.");
        for (String m : members) {
            up.sample(labels(name, m), row(r, m).map(row -> Boolean.TRUE.equals(row.get("healthy"))).orElse(false));
        }
        OpenMetrics.Family leader = doc.gauge("etcdwright_member_leader", "", "1 for the member that leads.");
        for (String m : members) {
            leader.sample(labels(name, m), row(r, m).map(row -> Boolean.TRUE.equals(row.get("leader"))).orElse(false));
        }
        OpenMetrics.Family size = doc.gauge("etcdwright_member_db_size_bytes", "bytes",
                "The size of the member's database file (what the quota is checked against).");
        OpenMetrics.Family inUse = doc.gauge("etcdwright_member_db_size_in_use_bytes", "bytes",
                "What of the member's database file holds data; the rest is what a defragmentation gives back.");
        for (String m : members) {
            row(r, m).map(row -> row.get("db_size_bytes")).ifPresent(v -> size.sample(labels(name, m), ((Number) v).doubleValue()));
            row(r, m).map(row -> row.get("db_in_use_bytes")).ifPresent(v -> inUse.sample(labels(name, m), ((Number) v).doubleValue()));
        }
        doc.gauge("etcdwright_cluster_quota_backend_bytes", "bytes", "The database quota (quota-backend-bytes): a member whose"
                + " database reaches it raises NOSPACE and the cluster refuses writes.")
                .sample(cluster, MaintenanceChecks.quotaBytes(r.desired().spec().etcd()));
        r.clusterVersion().ifPresent(v -> doc.gauge("etcdwright_cluster_version_info", "", "The cluster version, the minor every"
                + " member speaks, as a label; always 1.").sample(with(cluster, "version", v), 1));

        OpenMetrics.Family alarms = doc.gauge("etcdwright_cluster_alarm", "", "1 for each alarm raised (NOSPACE, CORRUPT), by"
                + " member; etcdwright's own write fence is not one.");
        for (Map<String, Object> a : r.alarmRows()) {
            if (!Boolean.TRUE.equals(a.get("etcdwright_write_fence"))) {
                Map<String, String> l = new LinkedHashMap<>(cluster);
                l.put("alarm", String.valueOf(a.get("type")));
                l.put("member", a.get("member") == null ? String.valueOf(a.get("member_id")) : (String) a.get("member"));
                alarms.sample(l, 1);
            }
        }

        r.backups().ifPresent(b -> {
            if (b.get("newest_time") != null) {
                doc.gauge("etcdwright_cluster_newest_backup_timestamp_seconds", "seconds", "When the newest scheduled backup any"
                        + " member recorded was taken (seconds since the epoch).")
                        .sample(cluster, Instant.parse((String) b.get("newest_time")).getEpochSecond());
                doc.gauge("etcdwright_cluster_newest_backup_age_seconds", "seconds", "How old the newest scheduled backup was when"
                        + " status asked.").sample(cluster, ((Number) b.get("newest_age_seconds")).doubleValue());
            }
            doc.gauge("etcdwright_cluster_backup_stale", "", "1 when the newest scheduled backup is older than two intervals"
                    + " (or none was written while runs failed).").sample(cluster, Boolean.TRUE.equals(b.get("stale")));
            doc.gauge("etcdwright_cluster_backup_failed_runs", "", "Scheduled backup runs that failed since each member's last"
                    + " success, summed over the members.").sample(cluster, ((Number) b.get("failed_runs")).doubleValue());
        });

        Optional<LockHolder> holder = r.lock().flatMap(ClusterLock.Held::holder);
        doc.gauge("etcdwright_cluster_lock_held", "", "1 while a run holds the cluster's lock (apply, defrag, restore, destroy, a"
                + " member's scheduled defragmentation).").sample(cluster, r.lock().isPresent());
        holder.ifPresent(h -> {
            Map<String, String> l = new LinkedHashMap<>(cluster);
            l.put("holder", h.user() + "@" + h.host());
            l.put("command", h.command());
            doc.gauge("etcdwright_cluster_lock_holder_info", "", "Who holds the cluster's lock and for what, as labels; always 1.")
                    .sample(l, 1);
            doc.gauge("etcdwright_cluster_lock_since_timestamp_seconds", "seconds", "Since when the holder holds the cluster's lock.")
                    .sample(cluster, h.since().getEpochSecond());
        });
        return doc.text();
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
