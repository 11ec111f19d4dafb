package io.etcdwright.run;

import io.etcdwright.modules.maintenance.DefragScheduleJob;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Maintenance;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.facts.FactGatherer;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.EtcdHttp;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.ClusterPki;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code status} reads of a cluster: the members' own answers over mTLS (etcd's HTTP
 * endpoints, no gRPC started), who holds the lock when asked, and, for what the spec schedules,
 * each member's record of its timer jobs' runs over SSH (one round trip a host each). How it is
 * judged and shown is the caller's.
 *
 * @param certDaysLeft    days until the certificate each client URL served expires (empty: plain HTTP)
 * @param lock            who holds the cluster's lock, when it was asked
 * @param backups         the scheduled backups' runs, when the spec schedules them
 * @param defrags         the scheduled defragmentations' runs, when the spec schedules them
 * @param pki             the PKI it was asked with (a read-only runner's, or the workstation's)
 */
public record StatusReading(DesiredState desired, ClusterStatus status, List<MemberFacts.Alarm> alarms,
                            Optional<String> clusterVersion, Map<String, OptionalLong> certDaysLeft,
                            Optional<ClusterLock.Held> lock, Optional<ScheduledBackups> backups,
                            Optional<ScheduledDefrags> defrags, ClusterPki pki) {

    /** The members' records of the backup timer's runs, and the member hosts SSH did not reach. */
    public record ScheduledBackups(BackupPolicy.Schedule schedule, List<ScheduleHostFacts> runs, List<String> unreachable) {
    }

    /** Each member's record of the defragmentation timer's runs, by member name. */
    public record ScheduledDefrags(Maintenance.Defrag defrag, Map<String, ScheduleHostFacts> runs) {
    }

    /**
     * Asks the members (over mTLS) and, for scheduled backups and defragmentation, their hosts
     * (over SSH); with {@code askLock}, also who holds the cluster's lock. Throws when no member answers.
     */
    public static StatusReading of(DesiredState desired, ConnectionSettings connection, Duration timeout, boolean askLock) {
        var layout = Layouts.of(desired);
        ClusterPki pki = Pkis.of(desired);
        // The admin's pair, or on a read-only runner the reader's (etcd with authentication off serves both alike).
        ClusterPki.LocalPair admin = pki.accessPair();
        List<String> endpoints = Endpoints.clientUrls(desired.members(), layout);
        ClusterStatus status;
        List<MemberFacts.Alarm> alarms = List.of();
        Optional<String> clusterVersion;
        Map<String, OptionalLong> expiry = new LinkedHashMap<>();
        Optional<ClusterLock.Held> lock = Optional.empty();
        // etcd's own HTTP endpoints (EtcdHttp): no gRPC machinery to start and stop for one look.
        try (EtcdHttp client = EtcdHttp.connect(endpoints, pki.trustedCaFile(), admin.cert(), admin.key(), timeout)) {
            status = client.status();
            if (status.members().stream().anyMatch(MemberStatus::healthy)) {
                alarms = client.alarms();
            }
            // The minor every member speaks; during a minor upgrade it moves only once all run the newer.
            clusterVersion = status.members().stream().filter(MemberStatus::healthy)
                    .flatMap(m -> m.clientUrls().stream()).findFirst().flatMap(client::clusterVersion);
            // What each member serves, from the handshake its Status came over (plain HTTP presents none).
            Instant now = Instant.now();
            status.members().stream().flatMap(m -> m.clientUrls().stream()).forEach(url -> expiry.put(url,
                    client.servedCertificate(url).map(c -> OptionalLong.of(Duration.between(now,
                            c.getNotAfter().toInstant()).toDays())).orElse(OptionalLong.empty())));
            if (askLock && status.members().stream().anyMatch(MemberStatus::healthy)) {
                // Who holds the cluster's lock (the metrics' holder), asked only for the output that shows it.
                lock = ClusterLock.current(client, desired.spec().name());
            }
        }
        return new StatusReading(desired, status, alarms, clusterVersion, expiry, lock, backups(desired, connection),
                defrags(desired, connection), pki);
    }

    /** Empty when the spec schedules no backups. */
    private static Optional<ScheduledBackups> backups(DesiredState desired, ConnectionSettings connection) {
        Optional<BackupPolicy.Schedule> schedule = desired.spec().backup().flatMap(BackupPolicy::schedule);
        if (schedule.isEmpty()) {
            return Optional.empty();
        }
        List<ScheduleHostFacts> facts = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        try (SshConnections connections = Hosts.connect(desired.inventory(), connection)) {
            List<HostReport> reports = new FactGatherer(connections, connection.forks()).gather(
                    desired.members().stream().map(Member::host).map(Hosts::target).toList(), List.of(ScheduleHostFacts.PROBE));
            for (HostReport r : reports) {
                if (r instanceof HostReport.Reachable ok) {
                    facts.add(ok.facts().get(ScheduleHostFacts.PROBE));
                } else {
                    unreachable.add(r.host());
                }
            }
        }
        return Optional.of(new ScheduledBackups(schedule.get(), facts, unreachable));
    }

    /** Empty when the spec schedules no defragmentation. */
    private static Optional<ScheduledDefrags> defrags(DesiredState desired, ConnectionSettings connection) {
        Optional<Maintenance.Defrag> defrag = desired.spec().maintenance().defrag().filter(d -> d.schedule().isPresent());
        if (defrag.isEmpty()) {
            return Optional.empty();
        }
        Map<String, ScheduleHostFacts> runs = new HashMap<>();
        try (SshConnections connections = Hosts.connect(desired.inventory(), connection)) {
            var reports = new FactGatherer(connections, connection.forks()).gather(
                    desired.members().stream().map(Member::host).map(Hosts::target).toList(), List.of(DefragScheduleJob.PROBE));
            for (HostReport r : reports) {
                if (r instanceof HostReport.Reachable ok) {
                    desired.members().stream().filter(m -> m.host().name().equals(r.host())).findFirst()
                            .ifPresent(m -> runs.put(m.name(), ok.facts().get(DefragScheduleJob.PROBE)));
                }
            }
        }
        return Optional.of(new ScheduledDefrags(defrag.get(), runs));
    }
}
