package io.etcdwright.engine.spec;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The desired state of one cluster, as written in its spec file with every default filled in
 * (docs/desired-state.md).
 *
 * @param file   the spec file as given; relative paths inside it were resolved against its directory
 * @param labels  cluster.labels, in the order written: data about the cluster for the operator's tools
 *                ({@code --waves-by site}), never read by a planner, so no label changes a plan
 * @param backup  empty when the spec has no backup section
 * @param clients which hosts hold the admin and kube-apiserver client keys (none unless named)
 * @param maintenance scheduled maintenance (defragmentation); {@link Maintenance#NONE} when the spec has none
 * @param state   where the PKI and records are shared (docs/state.md); empty: on this workstation only
 * @param monitoring  the hosts' textfile metrics for Prometheus; {@link Monitoring#NONE} when the spec has none
 * @param automation  what {@code etcdwright watch} may do by itself; {@link Automation#DEFAULT} when the spec has none
 */
public record ClusterSpec(Path file, String name, Map<String, String> labels, Members members, EtcdSettings etcd, Artifacts artifacts, Tls tls,
                          Optional<BackupPolicy> backup, ClientKeys clients, Maintenance maintenance,
                          Optional<StateSettings> state, Monitoring monitoring, Automation automation) {

    /** A spec without labels or an automation section. */
    public ClusterSpec(Path file, String name, Members members, EtcdSettings etcd, Artifacts artifacts, Tls tls,
                       Optional<BackupPolicy> backup, ClientKeys clients, Maintenance maintenance,
                       Optional<StateSettings> state, Monitoring monitoring) {
        this(file, name, Map.of(), members, etcd, artifacts, tls, backup, clients, maintenance, state, monitoring, Automation.DEFAULT);
    }

    /** A spec without a monitoring section. */
    public ClusterSpec(Path file, String name, Members members, EtcdSettings etcd, Artifacts artifacts, Tls tls,
                       Optional<BackupPolicy> backup, ClientKeys clients, Maintenance maintenance,
                       Optional<StateSettings> state) {
        this(file, name, members, etcd, artifacts, tls, backup, clients, maintenance, state, Monitoring.NONE);
    }

    /** A spec without a state or a monitoring section. */
    public ClusterSpec(Path file, String name, Members members, EtcdSettings etcd, Artifacts artifacts, Tls tls,
                       Optional<BackupPolicy> backup, ClientKeys clients, Maintenance maintenance) {
        this(file, name, members, etcd, artifacts, tls, backup, clients, maintenance, Optional.empty(), Monitoring.NONE);
    }

    /** A spec without a maintenance section. */
    public ClusterSpec(Path file, String name, Members members, EtcdSettings etcd, Artifacts artifacts, Tls tls,
                       Optional<BackupPolicy> backup, ClientKeys clients) {
        this(file, name, members, etcd, artifacts, tls, backup, clients, Maintenance.NONE);
    }

    public ClusterSpec {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(name, "name");
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        Objects.requireNonNull(members, "members");
        Objects.requireNonNull(etcd, "etcd");
        Objects.requireNonNull(artifacts, "artifacts");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(backup, "backup");
        Objects.requireNonNull(clients, "clients");
        Objects.requireNonNull(maintenance, "maintenance");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(monitoring, "monitoring");
        Objects.requireNonNull(automation, "automation");
    }

    /** This spec with other etcd settings (a hop's release, a config for one restart); everything else kept. */
    public ClusterSpec withEtcd(EtcdSettings other) {
        return new ClusterSpec(file, name, labels, members, other, artifacts, tls, backup, clients, maintenance, state, monitoring,
                automation);
    }
}
