package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.JsonValues;
import io.etcdwright.engine.source.Location;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One inventory group as written (a group listed in several places is merged into one).
 *
 * @param hosts    hosts listed directly in this group, in order; see {@link Inventory#hostsOf} for all
 * @param children child group names, in order
 * @param vars     the group's own variables (not merged with its parents')
 * @param location where the group is first written (the file's start for an implicit {@code all})
 */
public record InventoryGroup(String name, List<String> hosts, List<String> children, Map<String, Object> vars,
                             Location location) {

    public InventoryGroup {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(location, "location");
        hosts = List.copyOf(hosts);
        children = List.copyOf(children);
        vars = JsonValues.orderedCopy(vars);
    }
}
