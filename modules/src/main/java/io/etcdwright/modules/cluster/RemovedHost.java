package io.etcdwright.modules.cluster;

import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipPlan;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where a removed member's etcd runs, and so what is done there once the member is removed. etcd
 * exits by itself on removal ("the member has been permanently removed"), but the unit restarts it
 * on failure every few seconds against its old data, for as long as the host runs: on a host that
 * leaves the cluster the unit is stopped and disabled, its data kept.
 */
sealed interface RemovedHost {
    /** Its host or address stays in the spec (it joins again, or a rebuilt host takes it): left to the join. */
    record StaysInSpec(String where) implements RemovedHost {
    }

    /** Its host is in the inventory but no member of the spec any more: etcd is stopped and disabled there. */
    record LeftSpec(String host, String dataDir) implements RemovedHost {
    }

    /** No inventory host has its name or address: nothing can be done there from here. */
    record NotInInventory(String address) implements RemovedHost {
    }

    /**
     * Finds the removed member's host: by member name, else by the address of its peer URL (a
     * member added but never started has no name).
     */
    static RemovedHost of(MembershipPlan.Current removed, Collection<InventoryHost> inventory, List<Member> members,
                          String dataDir) {
        String address = addressOf(removed.peerUrl());
        Optional<InventoryHost> host = inventory.stream()
                .filter(h -> !removed.name().isEmpty() && h.memberName().equals(removed.name())).findFirst()
                .or(() -> inventory.stream().filter(h -> !address.isEmpty() && h.etcdAddress().equals(address)).findFirst());
        boolean hostStays = host.isPresent() && members.stream().anyMatch(m -> m.host().name().equals(host.get().name()));
        boolean addressStays = !address.isEmpty() && members.stream().anyMatch(m -> m.address().equals(address));
        if (hostStays || addressStays) {
            return new StaysInSpec(host.map(InventoryHost::name).orElse(address));
        }
        return host.<RemovedHost>map(h -> new LeftSpec(h.name(), dataDir)).orElseGet(() -> new NotInInventory(address));
    }

    /** A removed member's host whose etcd an earlier, interrupted apply did not stop. */
    record Unfinished(String member, LeftSpec host) {
    }

    /**
     * Of the hosts noted by {@link PendingStops}, those whose stop is still to be made now: in the
     * inventory, no member host of the spec (a host back in the spec is started, not stopped), no
     * member of the cluster any more (a removal that did not happen is planned again, with its
     * stop), and not stopped by a step of this plan already.
     */
    static List<Unfinished> unfinished(Map<String, String> pending, Collection<InventoryHost> inventory, List<Member> members,
                                       List<MemberStatus> cluster, Set<String> alreadyPlanned, String dataDir) {
        List<Unfinished> unfinished = new ArrayList<>();
        pending.forEach((hostName, member) -> inventory.stream().filter(h -> h.name().equals(hostName)).findFirst()
                .filter(h -> members.stream().noneMatch(m -> m.host().name().equals(hostName)))
                .filter(h -> cluster.stream().noneMatch(c -> c.name().equals(h.memberName())
                        || c.peerUrls().stream().map(RemovedHost::addressOf).anyMatch(h.etcdAddress()::equals)))
                .filter(h -> !alreadyPlanned.contains(hostName))
                .ifPresent(h -> unfinished.add(new Unfinished(member, new LeftSpec(hostName, dataDir)))));
        return unfinished;
    }

    /** The host part of a peer URL, without IPv6 brackets; empty when there is none. */
    private static String addressOf(String peerUrl) {
        try {
            String host = URI.create(peerUrl).getHost();
            if (host == null) {
                return "";
            }
            return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
