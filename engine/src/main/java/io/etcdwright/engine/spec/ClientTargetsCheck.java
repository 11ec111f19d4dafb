package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Listing;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.YamlDocument;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The spec's {@code clients} against the inventory: every host and group named exists, and every
 * host it comes to is a member of this cluster (client keys are delivered with the members'
 * certificates, to member hosts only, for now).
 */
final class ClientTargetsCheck {
    private final YamlDocument document;
    private final ClusterSpec spec;
    private final Inventory inventory;
    private final Set<String> members;
    private final Problems problems;

    ClientTargetsCheck(YamlDocument document, ClusterSpec spec, Inventory inventory, List<Member> members, Problems problems) {
        this.document = document;
        this.spec = spec;
        this.inventory = inventory;
        this.members = members.stream().map(m -> m.host().name()).collect(Collectors.toCollection(java.util.LinkedHashSet::new));
        this.problems = problems;
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
                } else if (!members.contains(name)) {
                    problems.error(document, host, notMember("host '" + name + "' is"));
                }
            }
            for (int i = 0; i < targets.groups().size(); i++) {
                String group = targets.groups().get(i);
                FieldPath where = at.key("groups").index(i);
                if (inventory.group(group).isEmpty()) {
                    problems.error(document, where, "group '" + group + "' is not in " + inventory.file()
                            + " (groups: " + Listing.of(inventory.namedGroups()) + ")");
                    continue;
                }
                List<String> outside = inventory.hostsOf(group).stream().map(InventoryHost::name)
                        .filter(h -> !members.contains(h)).toList();
                if (!outside.isEmpty()) {
                    problems.error(document, where, notMember("group '" + group + "' reaches " + Listing.of(outside)
                            + (outside.size() == 1 ? ", which is" : ", each")));
                }
            }
        });
    }

    private String notMember(String what) {
        return what + " not a member of this cluster (members: " + Listing.of(members) + "): client keys go to member"
                + " hosts only; copy them elsewhere from the workstation (kube-apiserver-flags --workstation-paths)";
    }
}
