package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Listing;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.YamlDocument;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The spec's {@code clients} against the inventory: every host and group named exists, and a host
 * is named once. A host need not be a member: a control plane that runs no etcd (external etcd)
 * gets the client's certificate, key and the CA file, nothing of etcd's.
 */
final class ClientTargetsCheck {
    private final YamlDocument document;
    private final ClusterSpec spec;
    private final Inventory inventory;
    private final Problems problems;
    private final List<Member> members;

    ClientTargetsCheck(YamlDocument document, ClusterSpec spec, Inventory inventory, List<Member> members, Problems problems) {
        this.document = document;
        this.spec = spec;
        this.inventory = inventory;
        this.problems = problems;
        this.members = members;
    }

    void check() {
        spec.clients().targets().forEach((client, targets) -> {
            FieldPath at = FieldPath.of("clients", client);
            if (problems.hasErrorAround(document.file(), at)) {
                return;
            }
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < targets.hosts().size(); i++) {
                String name = targets.hosts().get(i);
                FieldPath host = at.key("hosts").index(i);
                Integer first = seen.putIfAbsent(name, i);
                if (first != null) {
                    problems.error(document, host, "host '" + name + "' is listed twice (first as " + at.key("hosts").index(first) + ")");
                } else if (inventory.host(name).isEmpty()) {
                    problems.error(document, host, "host '" + name + "' is not in " + inventory.file()
                            + " (hosts: " + Listing.of(inventory.hosts().keySet()) + ")");
                }
            }
            for (int i = 0; i < targets.groups().size(); i++) {
                String group = targets.groups().get(i);
                FieldPath where = at.key("groups").index(i);
                if (inventory.group(group).isEmpty()) {
                    problems.error(document, where, "group '" + group + "' is not in " + inventory.file()
                            + " (groups: " + Listing.of(inventory.namedGroups()) + ")");
                }
            }
        });
        kubeadmLayout();
    }

    /**
     * kubeadm's layout is for a control plane beside an external etcd: a host that runs a member
     * holds kube-apiserver's pair beside the member's own certificates in /etc/etcd/pki, and
     * kubeadm's /etc/kubernetes/pki/etcd is where a kubeadm-run etcd keeps its own CA.
     */
    private void kubeadmLayout() {
        FieldPath layout = FieldPath.of("clients", ClientKeys.KUBE_APISERVER, "layout");
        ClientKeys.Targets targets = spec.clients().targets().get(ClientKeys.KUBE_APISERVER);
        if (targets == null || spec.clients().kubeApiserverLayout() != ClientKeys.Layout.KUBEADM
                || problems.hasErrorAround(document.file(), FieldPath.of("clients", ClientKeys.KUBE_APISERVER))) {
            return;
        }
        java.util.Set<String> named = new java.util.LinkedHashSet<>(targets.hosts());
        targets.groups().forEach(g -> inventory.hostsOf(g).forEach(h -> named.add(h.name())));
        List<String> stacked = members.stream().filter(m -> named.contains(m.host().name()))
                .map(m -> m.host().name() + " (member " + m.name() + ")").toList();
        if (!stacked.isEmpty()) {
            problems.error(document, layout, "kubeadm is for control-plane hosts that run no member (kubeadm's external etcd),"
                    + " but clients.kube-apiserver names " + Listing.of(stacked) + ": name only the control plane's own hosts,"
                    + " or use layout etcdwright (the pair in /etc/etcd/pki beside the member's certificates)");
        }
    }
}
