package io.etcdwright.modules.cluster;

import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Members of the cluster a restore replaces whose hosts the spec no longer lists: after a quorum
 * loss the spec names the members to rebuild, and the others would go on as the old cluster, their
 * units starting them at every boot against the old data (two of three old members back form a
 * quorum, and clients pointed at them read the past). Where the host answers, a step stops and
 * disables its etcd, data kept; where it does not, the plan names it, and it is noted
 * ({@link PendingStops}) so that the next apply stops it once it is back.
 *
 * @param steps    the steps to add (stops on hosts that answer, a note of those that do not)
 * @param warnings what the operator must know: hosts that could not be reached or are in no inventory
 */
public record LeftBehindMembers(List<Step> steps, List<String> warnings) {
    public LeftBehindMembers {
        steps = List.copyOf(steps);
        warnings = List.copyOf(warnings);
    }

    public static final LeftBehindMembers NONE = new LeftBehindMembers(List.of(), List.of());

    /**
     * @param cluster the cluster as its members described it before the restore
     * @param after   what the stops wait for (the snapshot staged on every member: nothing stops before
     *                the restore is sure to go ahead)
     */
    public static LeftBehindMembers of(ClusterStatus cluster, DesiredState desired, EtcdLayout layout, List<Step> after,
                                       PendingStops pending, Duration within) {
        List<Step> steps = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, String> unreachable = new java.util.TreeMap<>();
        for (MemberStatus m : cluster.members()) {
            Set<String> addresses = ClusterFacts.peerAddresses(m);
            boolean rebuilt = desired.members().stream()
                    .anyMatch(d -> !m.name().isEmpty() && d.name().equals(m.name()) || addresses.contains(d.address()));
            if (rebuilt) {
                continue;
            }
            String label = m.name().isEmpty() ? m.id() : m.name();
            Optional<InventoryHost> host = desired.inventory().hosts().values().stream()
                    .filter(h -> !m.name().isEmpty() && h.memberName().equals(m.name()) || addresses.contains(h.etcdAddress()))
                    .findFirst();
            if (host.isEmpty()) {
                warnings.add("member " + label + " of the cluster before this restore (peer URL " + String.join(", ", m.peerUrls())
                        + ") is on no host of the inventory: its etcd goes on as the old cluster if it runs, and clients"
                        + " pointed at it read old data; run 'systemctl disable --now " + EtcdLayout.UNIT + "' there (its data"
                        + " stays)");
            } else if (m.error().filter(why -> why.startsWith("host ") && why.contains(" unreachable")).isPresent()) {
                unreachable.put(host.get().name(), label);
            } else {
                RemovedHost.LeftSpec left = new RemovedHost.LeftSpec(host.get().name(), layout.dataDir());
                steps.add(MembershipSteps.stopRemoved(left, label + " was a member of the cluster this restore replaces, and "
                        + host.get().name() + " is no member of the spec", after, pending, within, SafetyClass.NEVER));
            }
        }
        if (!unreachable.isEmpty()) {
            List<String> hosts = List.copyOf(unreachable.keySet());
            warnings.add(String.join(", ", hosts) + " (" + (hosts.size() == 1 ? "a member" : "members") + " of the cluster"
                    + " before this restore, no member of the spec) cannot be reached now: when "
                    + (hosts.size() == 1 ? "it comes" : "they come") + " back, etcd there starts as the old cluster ("
                    + "enough of them form its quorum) and serves old data to clients pointed at "
                    + (hosts.size() == 1 ? "it" : "them") + ". The next apply stops and disables it there, data kept (noted in "
                    + pending.dir() + "); or run 'systemctl disable --now " + EtcdLayout.UNIT + "' on each");
            steps.add(Step.cluster("restore", "note-old-members").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                    .summary("note " + String.join(", ", hosts) + " for the next apply to stop etcd there")
                    .reason("members of the replaced cluster, unreachable now")
                    .after(after)
                    .does(ctx -> {
                        boolean noted = pending.pending().keySet().containsAll(hosts);
                        unreachable.forEach(pending::add);
                        return noted ? Outcome.OK : Outcome.CHANGED;
                    }));
        }
        return new LeftBehindMembers(steps, warnings);
    }
}
