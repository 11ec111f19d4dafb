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

    ClientTargetsCheck(YamlDocument document, ClusterSpec spec, Inventory inventory, List<Member> members, Problems problems) {
        this.document = document;
        this.spec = spec;
        this.inventory = inventory;
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
    }
}
