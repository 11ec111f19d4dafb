package io.etcdwright.cli;

import io.etcdwright.run.StatusReading;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.restore.WriteFence;

import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.LearnerProgress;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.ClusterPki;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

@Command(name = "status", description = {"Members, leader, server versions and the cluster version, sizes, raft state, health and certificate expiry, over mTLS.",
        "With backup.schedule: the newest scheduled backup's age and failed runs, read from the members over SSH.",
        "With maintenance.defrag.schedule: each member's calendar and last scheduled defragmentation (result, reason).",
        "Exits 0 when every member of the desired state is healthy, 1 otherwise (usable in monitoring and CI)."})
final class StatusCommand implements Callable<Integer> {
    @Mixin
    FleetOptions input;

    @Mixin
    ConnectionOptions connection;

    /** text and json as every command; openmetrics only here. */
    enum Format { text, json, openmetrics }

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json|openmetrics",
            description = "Output format: openmetrics for a textfile collector or a Pushgateway (docs/monitoring.md).")
    Format output;

    @Option(names = "--timeout", defaultValue = "5", paramLabel = "SECONDS", description = "Per-endpoint timeout.")
    int timeoutSeconds;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** The fleet's summary columns (docs/fleets.md). */
    static final List<Fleet.Column> FLEET_COLUMNS = List.of(new Fleet.Column("MEMBERS", "members"),
            new Fleet.Column("HEALTHY", "healthy_members"));

    @Override
    public Integer call() {
        ConnectionOptions.positive("--timeout", timeoutSeconds);
        if (input.fleet()) {
            Fleet.Renderer metrics = output != Format.openmetrics ? null : results -> StatusMetrics.openMetrics(results.stream()
                    .map(r -> r.outcome().detail()).filter(Report.class::isInstance).map(Report.class::cast).toList(),
                    java.time.Instant.now());
            return Fleet.run("status", input, FLEET_COLUMNS, this::statusOne, output == Format.json, metrics,
                    spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        InputOptions input = this.input.single();
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        Report report = collect(desired, connection, timeoutSeconds, output == Format.openmetrics);
        PrintWriter out = spec.commandLine().getOut();
        switch (output) {
            case json -> out.println(Json.write(report.document()));
            case openmetrics -> out.print(StatusMetrics.openMetrics(report, java.time.Instant.now()));
            case text -> report.text().forEach(out::println);
        }
        return report.exitCode();
    }

    /** One cluster of a fleet, as status of it alone. */
    private Fleet.Outcome statusOne(DesiredState desired) {
        Report report = collect(desired, connection, timeoutSeconds, output == Format.openmetrics);
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("members", desired.members().size());
        counts.put("healthy_members", report.rows().stream().filter(r -> Boolean.TRUE.equals(r.get("healthy"))).count());
        return new Fleet.Outcome(report.allHealthy() ? Fleet.Verdict.OK : Fleet.Verdict.UNHEALTHY, report.exitCode(),
                String.join("\n", report.text()) + "\n", io.etcdwright.engine.output.Json.mapper().valueToTree(report.document()), counts, report);
    }


    /**
     * What {@code status} found about one cluster, from which each output format is printed.
     *
     * @param desired   the cluster's desired state (its members, its quota)
     * @param lock      who holds the cluster's lock, when it was asked (openmetrics)
     * @param readOnly  asked from a read-only runner, with the reader certificate (docs/state.md)
     */
    record Report(DesiredState desired, ClusterStatus status, boolean allHealthy, java.util.Optional<String> clusterVersion,
                  List<Map<String, Object>> rows, List<Map<String, Object>> alarmRows,
                  java.util.Optional<Map<String, Object>> backups, java.util.Optional<Map<String, Object>> defrags,
                  java.util.Optional<Map<String, Object>> rotation, java.util.Optional<io.etcdwright.modules.lock.ClusterLock.Held> lock,
                  boolean readOnly, java.util.Optional<io.etcdwright.watch.Suspension> suspension) {

        /** Asked with the admin's pair (not from a read-only runner). */
        Report(DesiredState desired, ClusterStatus status, boolean allHealthy, java.util.Optional<String> clusterVersion,
               List<Map<String, Object>> rows, List<Map<String, Object>> alarmRows, java.util.Optional<Map<String, Object>> backups,
               java.util.Optional<Map<String, Object>> defrags, java.util.Optional<Map<String, Object>> rotation,
               java.util.Optional<io.etcdwright.modules.lock.ClusterLock.Held> lock) {
            this(desired, status, allHealthy, clusterVersion, rows, alarmRows, backups, defrags, rotation, lock, false,
                    java.util.Optional.empty());
        }

        int exitCode() {
            return allHealthy ? Main.OK : Main.ERROR;
        }

        /** {@code status -o json}. */
        Map<String, Object> document() {
            Map<String, Object> doc = StatusCommand.document(desired.spec().name(), status, allHealthy, clusterVersion, rows, alarmRows,
                    backups, rotation);
            doc.put("defrag_schedule", defrags.orElse(null));
            doc.put("watch_suspension", suspension.map(sus -> {
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("by", sus.by());
                s.put("at", sus.at().toString());
                s.put("reason", sus.reason());
                return s;
            }).orElse(null));
            return doc;
        }

        List<String> text() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format("cluster %s (id %s): %s, cluster version %s", desired.spec().name(), status.clusterId().orElse("?"),
                    allHealthy ? "healthy" : "DEGRADED", clusterVersion.orElse("unknown")));
            lines.addAll(StatusCommand.text(rows));
            lines.addAll(alarmText(alarmRows));
            backups.ifPresent(b -> lines.addAll(BackupStatus.text(b)));
            defrags.ifPresent(d -> lines.addAll(io.etcdwright.modules.maintenance.DefragRuns.text(d)));
            rotation.ifPresent(r -> lines.add(caRotationText(r)));
            suspension.ifPresent(sus -> lines.add("watch: " + sus.describe(java.time.Instant.now())
                    + "; every watcher holds every step until 'etcdwright watch resume'"));
            if (readOnly) {
                lines.add(READ_ONLY_NOTE);
            }
            return lines;
        }
    }

    /**
     * What the run service read of the cluster ({@link StatusReading}: the members over mTLS, their
     * hosts over SSH for scheduled jobs, the lock's holder with {@code askLock}), judged. Throws when
     * no member answers.
     */
    static Report collect(DesiredState desired, ConnectionOptions connection, int timeoutSeconds, boolean askLock) {
        StatusReading read = StatusReading.of(desired, connection.settings(), Duration.ofSeconds(timeoutSeconds), askLock);
        ClusterStatus status = read.status();
        List<Map<String, Object>> rows = new ArrayList<>();
        List<String> order = desired.members().stream().map(m -> m.name()).toList();
        List<MemberStatus> sorted = new ArrayList<>(status.members());
        // The order of the desired state, which is the order the operator thinks in.
        sorted.sort(java.util.Comparator.comparingInt((MemberStatus m) -> order.indexOf(m.name()) < 0
                ? Integer.MAX_VALUE : order.indexOf(m.name())));
        for (MemberStatus m : sorted) {
            OptionalLong days = m.clientUrls().stream().map(u -> read.certDaysLeft().getOrDefault(u, OptionalLong.empty()))
                    .filter(OptionalLong::isPresent).findFirst().orElse(OptionalLong.empty());
            rows.add(row(m, status, days));
        }
        List<Map<String, Object>> alarmRows = alarmRows(read.alarms(), status);
        // A raised alarm (etcdwright's own write fence aside) is a cluster refusing writes or holding corrupt data.
        boolean allHealthy = status.members().stream().allMatch(MemberStatus::healthy)
                && status.members().size() == desired.members().size()
                && alarmRows.stream().allMatch(a -> Boolean.TRUE.equals(a.get("etcdwright_write_fence")));
        var backups = read.backups().map(b -> BackupStatus.document(b.schedule(), b.runs(), b.unreachable(), java.time.Instant.now()));
        var defrags = read.defrags().map(d -> io.etcdwright.modules.maintenance.DefragRuns.document(d.defrag(), desired.members(), d.runs()));
        java.util.Optional<Map<String, Object>> rotation = caRotation(read.pki());
        // A watcher's suspension: shown so a person sees who stopped the automation and why.
        // Asked only of a cluster with a member that answers: a dead one has kept every endpoint waiting once already.
        java.util.Optional<io.etcdwright.watch.Suspension> suspension = status.members().stream().anyMatch(MemberStatus::healthy)
                && io.etcdwright.watch.Suspensions.read(desired) instanceof io.etcdwright.watch.Suspensions.Read.Suspended s
                        ? java.util.Optional.of(s.suspension()) : java.util.Optional.empty();
        return new Report(desired, status, allHealthy, read.clusterVersion(), rows, alarmRows, backups, defrags, rotation,
                read.lock(), read.pki().readOnly(), suspension);
    }

    static final String READ_ONLY_NOTE = "read-only runner: asked with the reader certificate " + "(CN "
            + io.etcdwright.modules.pki.ClusterPki.READER_CN + "); not shown without the PKI: the CA rotation's records";

    /**
     * The CA rotation under way as the workstation records it (each apply records the phase it has
     * verified on every member), or one the spec asks for (a raised tls.pki.caGeneration) that no
     * apply started yet; empty otherwise. A bring-your-own CA named anew shows once an apply started it.
     */
    static java.util.Optional<Map<String, Object>> caRotation(ClusterPki pki) {
        var files = pki.rotation();
        if (!files.active() && !pki.generationPending()) {
            return java.util.Optional.empty();
        }
        Map<String, Object> r = new LinkedHashMap<>();
        var phase = files.recordedPhase();
        r.put("phase", phase.map(io.etcdwright.modules.pki.CaRotationFiles.Phase::label).orElse("pending"));
        r.put("description", phase.map(io.etcdwright.modules.pki.CaRotationFiles.Phase::description)
                .orElse("not started: 'etcdwright apply' starts it"));
        r.put("trusted_ca_file", pki.trustedCaFile().toAbsolutePath().toString());
        return java.util.Optional.of(r);
    }

    static String caRotationText(Map<String, Object> r) {
        return "CA rotation: " + r.get("phase") + " (" + r.get("description") + "); clients trust " + r.get("trusted_ca_file")
                + "; 'etcdwright apply' continues it";
    }

    static Map<String, Object> document(String cluster, ClusterStatus status, boolean allHealthy,
                                        java.util.Optional<String> clusterVersion, List<Map<String, Object>> rows,
                                        List<Map<String, Object>> alarms, java.util.Optional<Map<String, Object>> backups) {
        return document(cluster, status, allHealthy, clusterVersion, rows, alarms, backups, java.util.Optional.empty());
    }

    /**
     * {@code status -o json} (schemas/status.schema.json): {@code rows} from {@link #row}, {@code backups} from
     * {@link BackupStatus}, {@code ca_rotation} from {@link #caRotation}.
     */
    static Map<String, Object> document(String cluster, ClusterStatus status, boolean allHealthy,
                                        java.util.Optional<String> clusterVersion, List<Map<String, Object>> rows,
                                        List<Map<String, Object>> alarms, java.util.Optional<Map<String, Object>> backups,
                                        java.util.Optional<Map<String, Object>> caRotation) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 1);
        doc.put("cluster", cluster);
        doc.put("cluster_id", status.clusterId().orElse(null));
        doc.put("healthy", allHealthy);
        doc.put("cluster_version", clusterVersion.orElse(null));
        doc.put("members", rows);
        doc.put("alarms", alarms);
        doc.put("backups", backups.orElse(null));
        doc.put("ca_rotation", caRotation.orElse(null));
        return doc;
    }

    /** One member as JSON shows it, and the text table is printed from. */
    static Map<String, Object> row(MemberStatus m, ClusterStatus status, OptionalLong certDaysLeft) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", m.name());
        row.put("id", m.id());
        row.put("client_urls", m.clientUrls());
        row.put("peer_urls", m.peerUrls());
        row.put("leader", m.leader());
        row.put("learner", m.learner());
        row.put("healthy", m.healthy());
        row.put("version", m.version().orElse(null));
        row.put("db_size_bytes", m.dbSizeBytes().isPresent() ? m.dbSizeBytes().getAsLong() : null);
        row.put("db_in_use_bytes", m.dbSizeInUseBytes().isPresent() ? m.dbSizeInUseBytes().getAsLong() : null);
        row.put("raft_index", m.raftIndex().isPresent() ? m.raftIndex().getAsLong() : null);
        row.put("raft_applied_index", m.raftAppliedIndex().isPresent() ? m.raftAppliedIndex().getAsLong() : null);
        row.put("raft_term", m.raftTerm().isPresent() ? m.raftTerm().getAsLong() : null);
        // How far a learner has caught up: what its promotion waits for.
        row.put("learner_progress", status.learnerProgress(m).map(p -> {
            Map<String, Object> progress = new LinkedHashMap<>();
            progress.put("applied_index", p.appliedIndex());
            progress.put("leader_raft_index", p.leaderRaftIndex());
            progress.put("percent", p.percent());
            progress.put("caught_up", p.caughtUp());
            return progress;
        }).orElse(null));
        row.put("cert_days_left", certDaysLeft.isPresent() ? certDaysLeft.getAsLong() : null);
        row.put("error", m.error().orElse(null));
        return row;
    }

    /** The table of {@code rows}: a header, a line per member, and under it its learner progress and error. */
    @SuppressWarnings("unchecked")
    static List<String> text(List<Map<String, Object>> rows) {
        String format = "%-10s %-16s %-8s %-8s %-9s %-10s %-10s %-14s %-9s %s";
        List<String> lines = new ArrayList<>();
        lines.add(String.format(format, "NAME", "ID", "ROLE", "HEALTH", "VERSION", "DB", "IN USE", "RAFT TERM/IDX", "CERT", "CLIENT URL"));
        for (Map<String, Object> r : rows) {
            String role = Boolean.TRUE.equals(r.get("leader")) ? "leader" : Boolean.TRUE.equals(r.get("learner")) ? "learner" : "follower";
            lines.add(String.format(format, r.get("name"), r.get("id"), role,
                    Boolean.TRUE.equals(r.get("healthy")) ? "healthy" : "DOWN", orDash(r.get("version")),
                    r.get("db_size_bytes") == null ? "-" : io.etcdwright.modules.cluster.FactsView.bytes((Long) r.get("db_size_bytes")),
                    // Beside the file's size, what of it holds data: the difference is what a defrag gives back.
                    r.get("db_in_use_bytes") == null ? "-" : io.etcdwright.modules.cluster.FactsView.bytes((Long) r.get("db_in_use_bytes")),
                    r.get("raft_term") == null ? "-" : r.get("raft_term") + "/" + r.get("raft_index"),
                    r.get("cert_days_left") == null ? "-" : r.get("cert_days_left") + " d",
                    String.join(",", (List<String>) r.get("client_urls"))));
            if (r.get("learner_progress") instanceof Map<?, ?> p) {
                lines.add(String.format("%-10s   learner progress: %s", "", new LearnerProgress((Long) p.get("applied_index"),
                        (Long) p.get("leader_raft_index")).describe()));
            } else if (Boolean.TRUE.equals(r.get("learner")) && Boolean.TRUE.equals(r.get("healthy"))) {
                lines.add(String.format("%-10s   learner progress: unknown (no leader reported its raft index)", ""));
            }
            if (r.get("error") != null) {
                lines.add(String.format("%-10s   %s", "", r.get("error")));
            }
        }
        return lines;
    }

    /** The cluster's alarms as JSON shows them: each with its member's name, and whether it is etcdwright's write fence. */
    static List<Map<String, Object>> alarmRows(List<MemberFacts.Alarm> alarms, ClusterStatus status) {
        String fence = Long.toHexString(WriteFence.MEMBER_ID);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (MemberFacts.Alarm a : alarms) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("type", a.type());
            row.put("member_id", a.memberId());
            row.put("member", status.members().stream().filter(m -> m.id().equals(a.memberId())).map(MemberStatus::name)
                    .findFirst().orElse(null));
            row.put("etcdwright_write_fence", a.memberId().equals(fence));
            rows.add(row);
        }
        return rows;
    }

    static List<String> alarmText(List<Map<String, Object>> alarms) {
        List<String> lines = new ArrayList<>();
        for (Map<String, Object> a : alarms) {
            if (Boolean.TRUE.equals(a.get("etcdwright_write_fence"))) {
                lines.add("ALARM " + a.get("type") + " (etcdwright's write fence, member id " + a.get("member_id")
                        + "): a minor downgrade is under way or was interrupted; writes are refused until 'etcdwright apply' lifts it");
            } else if ("NOSPACE".equals(a.get("type"))) {
                lines.add("ALARM NOSPACE on member " + (a.get("member") == null ? a.get("member_id") : a.get("member") + " (" + a.get("member_id") + ")")
                        + ": the database reached its quota and the cluster refuses writes. Free space (compact, delete keys),"
                        + " then 'etcdwright defrag' disarms it once below the quota");
            } else {
                lines.add("ALARM " + a.get("type") + " on member " + (a.get("member") == null ? a.get("member_id") : a.get("member"))
                        + ": its data differs from the others'; replace that member (not restart it, not disarm first):"
                        + " 'etcdwright plan' says how");
            }
        }
        return lines;
    }

    private static String orDash(Object o) {
        return o == null ? "-" : o.toString();
    }
}
