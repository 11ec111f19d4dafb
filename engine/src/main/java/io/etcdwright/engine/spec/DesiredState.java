package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.source.Problem;
import java.util.List;
import java.util.Objects;

/**
 * A spec checked against its inventory: everything the planner needs to know about what
 * should be, before looking at what is.
 *
 * @param members  the members in spec order (group: inventory order; hosts: as listed)
 * @param warnings problems that did not stop loading (an even member count, an ignored
 *                 variable); print them before planning
 */
public record DesiredState(Inventory inventory, ClusterSpec spec, List<Member> members, List<Problem> warnings) {

    public DesiredState {
        Objects.requireNonNull(inventory, "inventory");
        Objects.requireNonNull(spec, "spec");
        members = List.copyOf(members);
        warnings = List.copyOf(warnings);
    }

    /**
     * The same desired state with another etcd release: a change the spec asks for may pass
     * through an intermediate release (a hop), which this apply installs instead of the spec's.
     */
    public DesiredState withEtcdVersion(String version) {
        EtcdSettings etcd = spec.etcd();
        ClusterSpec hop = spec.withEtcd(new EtcdSettings(version, etcd.ports(), etcd.dataDir(), etcd.settings()));
        return new DesiredState(inventory, hop, members, warnings);
    }

    /** The same desired state with other etcd settings (a config written for one restart only). */
    public DesiredState withEtcdSettings(java.util.Map<String, Object> settings) {
        EtcdSettings etcd = spec.etcd();
        ClusterSpec other = spec.withEtcd(new EtcdSettings(etcd.version(), etcd.ports(), etcd.dataDir(), settings));
        return new DesiredState(inventory, other, members, warnings);
    }

    /**
     * The hosts that hold a copy of {@code client}'s certificate and key
     * ({@link ClientKeys#ADMIN}, {@link ClientKeys#KUBE_APISERVER}): those the spec's {@code clients}
     * names, by host or group, members or not, in inventory order; none when it names none.
     */
    public java.util.Set<String> clientHosts(String client) {
        ClientKeys.Targets targets = spec.clients().targets().get(client);
        java.util.Set<String> named = new java.util.HashSet<>();
        if (targets != null) {
            named.addAll(targets.hosts());
            targets.groups().forEach(g -> inventory.hostsOf(g).forEach(h -> named.add(h.name())));
        }
        java.util.Set<String> holders = new java.util.LinkedHashSet<>();
        inventory.hosts().keySet().forEach(h -> {
            if (named.contains(h)) {
                holders.add(h);
            }
        });
        return java.util.Collections.unmodifiableSet(holders);
    }

    /**
     * The hosts {@code clients} names that run no member of this cluster (a control plane beside an
     * external etcd): they get client files only, and only their state is asked of them.
     */
    public List<io.etcdwright.engine.inventory.InventoryHost> clientOnlyHosts() {
        java.util.Set<String> memberHosts = new java.util.HashSet<>();
        members.forEach(m -> memberHosts.add(m.host().name()));
        java.util.Set<String> named = new java.util.HashSet<>();
        ClientKeys.CLIENTS.forEach(c -> named.addAll(clientHosts(c)));
        return inventory.hosts().values().stream()
                .filter(h -> named.contains(h.name()) && !memberHosts.contains(h.name())).toList();
    }
}
