package io.etcdwright.modules.cluster;

import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipPlan.Current;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which host a removed member's etcd runs on, and whether that host stays in the spec. */
class RemovedHostTest {
    static InventoryHost host(String name, String address, Map<String, Object> vars) {
        return new InventoryHost(name, address, 22, "root", Optional.empty(), false, vars,
                new Location(Path.of("inventory.yaml"), 1, 1));
    }

    static InventoryHost host(String name, String address) {
        return host(name, address, Map.of());
    }

    static Current removed(String name, String address) {
        return new Current("a9", name, "https://" + address + ":2380", false, true, false);
    }

    static final List<InventoryHost> INVENTORY = List.of(host("node-1", "10.0.0.1"), host("node-2", "10.0.0.2"),
            host("node-3", "10.0.0.3"));

    static List<Member> members(InventoryHost... hosts) {
        return List.of(hosts).stream().map(Member::of).toList();
    }

    @Test
    void aHostLeftOutOfTheSpecButStillInTheInventoryLeftTheSpec() {
        assertEquals(new RemovedHost.LeftSpec("node-3", "/var/lib/etcd"), RemovedHost.of(removed("node-3", "10.0.0.3"),
                INVENTORY, members(INVENTORY.get(0), INVENTORY.get(1)), "/var/lib/etcd"));
    }

    @Test
    void aMemberNamedOtherThanItsHostIsFoundByItsMemberName() {
        Map<String, Object> vars = new LinkedHashMap<>();
        vars.put("etcd_member_name", "etcd-c");
        vars.put("etcd_address", "192.168.0.3");
        List<InventoryHost> inventory = List.of(INVENTORY.get(0), INVENTORY.get(1), host("node-3", "10.0.0.3", vars));
        assertEquals(new RemovedHost.LeftSpec("node-3", "/d"), RemovedHost.of(removed("etcd-c", "192.168.0.3"), inventory,
                members(INVENTORY.get(0)), "/d"));
    }

    @Test
    void aMemberThatNeverStartedIsFoundByTheAddressOfItsPeerUrl() {
        assertEquals(new RemovedHost.LeftSpec("node-3", "/d"), RemovedHost.of(removed("", "10.0.0.3"), INVENTORY,
                members(INVENTORY.get(0)), "/d"));
    }

    @Test
    void aHostThatStaysInTheSpecIsLeftToItsJoin() {
        // Lost its data: removed, and joins again on the same host.
        assertEquals(new RemovedHost.StaysInSpec("node-2"), RemovedHost.of(removed("node-2", "10.0.0.2"), INVENTORY,
                members(INVENTORY.get(0), INVENTORY.get(1)), "/d"));
        // Rebuilt under another inventory name at the same address.
        List<InventoryHost> rebuilt = List.of(INVENTORY.get(0), host("node-2b", "10.0.0.2"));
        assertEquals(new RemovedHost.StaysInSpec("node-2b"), RemovedHost.of(removed("node-2", "10.0.0.2"), rebuilt,
                members(rebuilt.get(0), rebuilt.get(1)), "/d"));
    }

    static MemberStatus inCluster(String name, String address) {
        return new MemberStatus(name, "a1", List.of("https://" + address + ":2379"), List.of("https://" + address + ":2380"),
                false, false, Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), true, Optional.empty());
    }

    @Test
    void aStopAnInterruptedApplyLeftIsPlannedOnceTheMemberIsGone() {
        // node-3's member was removed; the apply was stopped before node-3's etcd was.
        List<RemovedHost.Unfinished> left = RemovedHost.unfinished(Map.of("node-3", "node-3"), INVENTORY,
                members(INVENTORY.get(0), INVENTORY.get(1)), List.of(inCluster("node-1", "10.0.0.1"), inCluster("node-2", "10.0.0.2")),
                Set.of(), "/d");
        assertEquals(List.of(new RemovedHost.Unfinished("node-3", new RemovedHost.LeftSpec("node-3", "/d"))), left);
    }

    @Test
    void noStopIsPlannedWhileTheMemberIsThereBackInTheSpecGoneFromTheInventoryOrAlreadyPlanned() {
        Map<String, String> pending = Map.of("node-3", "node-3");
        List<MemberStatus> stillThere = List.of(inCluster("node-1", "10.0.0.1"), inCluster("", "10.0.0.3"));
        assertEquals(List.of(), RemovedHost.unfinished(pending, INVENTORY, members(INVENTORY.get(0)), stillThere, Set.of(), "/d"),
                "the removal did not happen: it is planned again, with its stop");
        assertEquals(List.of(), RemovedHost.unfinished(pending, INVENTORY, members(INVENTORY.toArray(InventoryHost[]::new)),
                List.of(inCluster("node-1", "10.0.0.1")), Set.of(), "/d"), "back in the spec: it joins, it is not stopped");
        assertEquals(List.of(), RemovedHost.unfinished(pending, INVENTORY.subList(0, 2), members(INVENTORY.get(0)),
                List.of(inCluster("node-1", "10.0.0.1")), Set.of(), "/d"), "not in the inventory: nothing to reach");
        assertEquals(List.of(), RemovedHost.unfinished(pending, INVENTORY, members(INVENTORY.get(0)),
                List.of(inCluster("node-1", "10.0.0.1")), Set.of("node-3"), "/d"), "this plan stops it already");
    }

    @Test
    void aHostGoneFromTheInventoryIsSaidToBe() {
        assertEquals(new RemovedHost.NotInInventory("10.0.0.9"), RemovedHost.of(removed("node-9", "10.0.0.9"), INVENTORY,
                members(INVENTORY.get(0)), "/d"));
        assertEquals(new RemovedHost.NotInInventory("fd00::9"), RemovedHost.of(removed("node-9", "[fd00::9]"), INVENTORY,
                members(INVENTORY.get(0)), "/d"));
    }
}
