package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.source.Addresses;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Listing;
import io.etcdwright.engine.source.Names;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.YamlDocument;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Resolves the spec's {@code members} against the inventory and checks the result is a
 * cluster etcd can run. Problems point into the spec (where the members were chosen) and
 * name the inventory location of the host at fault.
 */
final class MemberSelection {

    /** etcd's own advice: more members slow every write down without adding useful fault tolerance. */
    static final int MAX_MEMBERS = 7;

    private static final FieldPath MEMBERS = FieldPath.of("members");
    private static final FieldPath GROUP = MEMBERS.key("group");
    private static final FieldPath HOSTS = MEMBERS.key("hosts");

    private final YamlDocument document;
    private final ClusterSpec spec;
    private final Inventory inventory;
    private final Problems problems;

    private final boolean compareMembers;

    /**
     * @param compareMembers false when the inventory variables members' addresses and names come
     *                       from had errors: they fell back to defaults, and comparing them could
     *                       report clashes that are not really there
     */
    MemberSelection(YamlDocument document, ClusterSpec spec, Inventory inventory, boolean compareMembers, Problems problems) {
        this.document = document;
        this.spec = spec;
        this.inventory = inventory;
        this.compareMembers = compareMembers;
        this.problems = problems;
    }

    List<Member> select() {
        if (problems.hasErrorAround(document.file(), MEMBERS)) {
            return List.of();
        }
        List<SelectedHost> selected = spec.members().group().isPresent() ? fromGroup(spec.members().group().get()) : fromHosts();
        if (selected.isEmpty()) {
            return List.of();
        }
        if (!problems.hasErrorAround(document.file(), MEMBERS)) {
            // Counting a list with unknown or repeated hosts would judge a cluster nobody asked for.
            checkCount(selected.size());
        }
        checkMemberNames(selected);
        if (compareMembers) {
            checkDistinct(selected, InventoryHost::etcdAddress, "etcd address",
                    "give each its own etcd_address (or ansible_host) in the inventory");
            checkDistinct(selected, InventoryHost::memberName, "member name",
                    "member names must be unique: fix etcd_member_name in the inventory");
        }
        checkBackupHost();
        return selected.stream().map(chosen -> Member.of(chosen.host())).toList();
    }

    /** A member and the spec field that chose it. */
    private record SelectedHost(InventoryHost host, FieldPath chosenBy) {}

    private List<SelectedHost> fromGroup(String group) {
        boolean defaulted = !document.contains(GROUP);
        FieldPath at = defaulted ? MEMBERS : GROUP;
        if (inventory.group(group).isEmpty()) {
            String groups = " (groups: " + Listing.of(inventory.namedGroups()) + ")";
            problems.error(document, at, defaulted
                    ? "members defaults to the inventory group '" + group + "', which is not in " + inventory.file() + groups
                            + "; set members.group or members.hosts"
                    : "group '" + group + "' is not in " + inventory.file() + groups);
            return List.of();
        }
        List<InventoryHost> hosts = inventory.hostsOf(group);
        if (hosts.isEmpty()) {
            problems.error(document, at, "group '" + group + "' in " + inventory.file()
                    + " has no hosts; an etcd cluster needs at least one member");
        }
        return hosts.stream().map(host -> new SelectedHost(host, at)).toList();
    }

    private List<SelectedHost> fromHosts() {
        List<SelectedHost> selected = new ArrayList<>();
        Map<String, Integer> firstIndex = new HashMap<>();
        List<String> names = spec.members().hosts();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            FieldPath at = HOSTS.index(i);
            Integer first = firstIndex.putIfAbsent(name, i);
            if (first != null) {
                problems.error(document, at, "host '" + name + "' is listed twice (first as " + HOSTS.index(first) + ")");
                continue;
            }
            inventory.host(name).ifPresentOrElse(
                    host -> selected.add(new SelectedHost(host, at)),
                    () -> problems.error(document, at, "host '" + name + "' is not in " + inventory.file()
                            + " (hosts: " + Listing.of(inventory.hosts().keySet()) + ")"));
        }
        return selected;
    }

    private void checkCount(int count) {
        FieldPath at = spec.members().group().isPresent() ? (document.contains(GROUP) ? GROUP : MEMBERS) : HOSTS;
        if (count > MAX_MEMBERS) {
            problems.error(document, at, count + " members: etcd recommends at most " + MAX_MEMBERS
                    + " (every write waits for a majority; more members add latency, not safety)");
        } else if (count % 2 == 0) {
            problems.warning(document, at, count + " members tolerate no more failures than " + (count - 1)
                    + "; use " + (count - 1) + " or " + (count + 1));
        }
    }

    private void checkDistinct(List<SelectedHost> selected, Function<InventoryHost, String> value, String what, String fix) {
        Map<String, SelectedHost> seen = new HashMap<>();
        for (SelectedHost chosen : selected) {
            // Canonical: "fd00::1" and "FD00:0::1" are one address, "H1" and "h1" one name.
            String key = Addresses.canonical(value.apply(chosen.host()));
            SelectedHost first = seen.putIfAbsent(key, chosen);
            if (first != null) {
                problems.error(document, chosen.chosenBy(), "members " + first.host().name() + " and " + chosen.host().name()
                        + " both have " + what + " " + value.apply(chosen.host()) + " (" + chosen.host().name() + " is at "
                        + chosen.host().location() + "); " + fix);
            }
        }
    }

    /**
     * A member without etcd_member_name is named after its inventory host, which may be a name
     * no member can have (an IPv6 address, a DNS name longer than 63 characters).
     */
    private void checkMemberNames(List<SelectedHost> selected) {
        for (SelectedHost chosen : selected) {
            InventoryHost host = chosen.host();
            if (!host.vars().containsKey("etcd_member_name") && !Names.isMemberName(host.name())) {
                problems.error(document, chosen.chosenBy(), "member " + host.name() + " (at " + host.location()
                        + ") is named after its inventory host, and " + Names.memberNameProblem(host.name()).orElseThrow()
                        + "; set etcd_member_name on the host");
            }
        }
    }

    private void checkBackupHost() {
        spec.state().map(StateSettings::store).ifPresent(store -> {
            FieldPath host = FieldPath.of("state", "store", "host");
            if (store instanceof BackupStore.Sftp sftp && !sftp.host().isEmpty()
                    && !problems.hasErrorAround(document.file(), host) && inventory.host(sftp.host()).isEmpty()) {
                problems.error(document, host, "host '" + sftp.host() + "' is not in " + inventory.file()
                        + " (hosts: " + Listing.of(inventory.hosts().keySet()) + ")");
            }
        });
        if (spec.backup().isEmpty()) {
            return;
        }
        List<BackupStore> stores = spec.backup().get().stores();
        for (int i = 0; i < stores.size(); i++) {
            FieldPath host = FieldPath.of("backup", "stores").index(i).key("host");
            if (stores.get(i) instanceof BackupStore.Sftp sftp
                    && !problems.hasErrorAround(document.file(), host) && inventory.host(sftp.host()).isEmpty()) {
                problems.error(document, host, "host '" + sftp.host() + "' is not in " + inventory.file()
                        + " (hosts: " + Listing.of(inventory.hosts().keySet()) + ")");
            }
        }
    }
}
