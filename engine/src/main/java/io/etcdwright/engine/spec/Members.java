package io.etcdwright.engine.spec;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which inventory hosts run etcd: a group, or host names in a given order (exactly one).
 *
 * @param group inventory group whose hosts (recursively) are the members
 * @param hosts inventory host names, in this order; empty when {@code group} is given
 */
public record Members(Optional<String> group, List<String> hosts) {

    /** As in kubespray, where the etcd hosts are the group etcd. */
    public static final String DEFAULT_GROUP = "etcd";

    public Members {
        Objects.requireNonNull(group, "group");
        hosts = List.copyOf(hosts);
        if (group.isPresent() == !hosts.isEmpty()) {
            throw new IllegalArgumentException("members take exactly one of group or hosts, got " + group + " and " + hosts);
        }
    }

    public static Members ofGroup(String group) {
        return new Members(Optional.of(group), List.of());
    }

    public static Members ofHosts(List<String> hosts) {
        return new Members(Optional.empty(), hosts);
    }
}
