package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.JsonValues;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An Ansible YAML inventory, read as Ansible reads it.
 *
 * @param file           the inventory file as given
 * @param hosts          every host by name, in order of first appearance in the file
 * @param groups         every group by name, {@code all} first and {@code ungrouped} (hosts in no
 *                       other group) as in Ansible
 * @param knownHostsFile {@code etcdwright_known_hosts_file} from all's vars, relative to the
 *                       inventory file; empty means the SSH default ~/.ssh/known_hosts
 */
public record Inventory(Path file, Map<String, InventoryHost> hosts, Map<String, InventoryGroup> groups,
                        Optional<Path> knownHostsFile) {

    public static final String ALL = "all";
    public static final String UNGROUPED = "ungrouped";

    public Inventory {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(knownHostsFile, "knownHostsFile");
        hosts = JsonValues.orderedCopy(hosts);
        groups = JsonValues.orderedCopy(groups);
    }

    public Optional<InventoryHost> host(String name) {
        return Optional.ofNullable(hosts.get(name));
    }

    public Optional<InventoryGroup> group(String name) {
        return Optional.ofNullable(groups.get(name));
    }

    /**
     * The hosts of {@code group} and of its child groups, recursively, each once, in inventory
     * order. Empty for a group that does not exist.
     */
    public List<InventoryHost> hostsOf(String group) {
        Set<String> members = new HashSet<>();
        Set<String> seenGroups = new HashSet<>();
        Deque<String> pending = new ArrayDeque<>(List.of(group));
        while (!pending.isEmpty()) {
            InventoryGroup next = groups.get(pending.pop());
            if (next != null && seenGroups.add(next.name())) {
                members.addAll(next.hosts());
                pending.addAll(next.children());
            }
        }
        return hosts.values().stream().filter(host -> members.contains(host.name())).toList();
    }

    /** Group names an operator wrote, for messages: without the implicit {@code all} and {@code ungrouped}. */
    public List<String> namedGroups() {
        return groups.keySet().stream().filter(name -> !name.equals(ALL) && !name.equals(UNGROUPED)).toList();
    }

    /**
     * The hosts an Ansible {@code --limit} pattern selects, in inventory order: names of hosts
     * or groups and {@code *}/{@code ?} globs separated by commas (or colons), {@code &name}
     * to intersect and {@code !name} to exclude; only exclusions means "all but these".
     *
     * @throws io.etcdwright.engine.source.InvalidInputException if a term matches no host or group:
     *         a typo must not silently shrink (or, after {@code !}, widen) what gets changed
     */
    public List<InventoryHost> limit(String pattern) {
        return new LimitPattern(this).select(pattern);
    }
}
