package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipPlan;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * From the cluster's own member list to the spec's members: learners added, started and promoted,
 * leaving members handed leadership and removed, one change at a time (see {@link MembershipPlan}
 * for the order and the quorum rules, {@link MembershipSteps} for each step). The converge planner
 * asks it first (a joiner's config depends on its turn), then places its steps after the hosts
 * are prepared and the restarts are done.
 */
final class MembershipChangePlanner {
    private final ConvergePlanner.Inputs in;
    private final MembershipPlan plan;
    private final Map<String, List<EtcdConfigFile.Peer>> joiners;
    private final Map<String, RemovedHost> removed;
    /** The cluster's members as planned from, each with whether its data was lost. */
    private final List<MembershipPlan.Current> current;

    private MembershipChangePlanner(ConvergePlanner.Inputs in, MembershipPlan plan, List<MembershipPlan.Current> current) {
        this.in = in;
        this.plan = plan;
        this.current = List.copyOf(current);
        this.joiners = initialClusterOfEachJoiner(in, plan);
        this.removed = removedHosts(in, plan);
    }

    /**
     * The changes to make, if the members differ from the spec's; every reason they cannot be made
     * safely is added to {@code refusals}.
     */
    static Optional<MembershipChangePlanner> of(ConvergePlanner.Inputs in, List<Refusal> refusals) {
        if (in.cluster().isEmpty() || in.cluster().get().members().isEmpty()) {
            checkNoJoins(in, refusals);
            return Optional.empty();
        }
        EtcdLayout layout = in.layout();
        List<MembershipPlan.Current> current = in.cluster().get().members().stream()
                .map(m -> new MembershipPlan.Current(m.id(), m.name(), m.peerUrls().stream().findFirst().orElse(""),
                        m.learner(), m.healthy(), m.leader(), !neverStarted(m) && dataLost(in, m.name())))
                .toList();
        List<MembershipPlan.Desired> desired = in.desired().members().stream()
                .map(m -> new MembershipPlan.Desired(m.name(), peer(m).peerUrl(layout)))
                .toList();
        List<MembershipPlan.Current> voters = current.stream().filter(c -> !c.learner()).toList();
        boolean quorum = voters.stream().filter(MembershipPlan.Current::healthy).count() >= voters.size() / 2 + 1;
        boolean sameMembers = voters.stream().map(MembershipPlan.Current::peerUrl).sorted().toList()
                .equals(desired.stream().map(MembershipPlan.Desired::peerUrl).sorted().toList());
        if (!quorum && sameMembers) {
            // Members are down but the membership is the spec's (a power cut, an interrupted bootstrap):
            // starting the stopped members is the repair, not a membership change.
            checkNoJoins(in, refusals);
            return Optional.empty();
        }
        MembershipPlan plan = MembershipPlan.plan(current, desired, in.desired().spec().etcd().version());
        plan.refusals().forEach(r -> refusals.add(new Refusal(kindOf(r), "cluster " + in.desired().spec().name(), r.what(),
                r.whatToDo())));
        return plan.changes().isEmpty() || !plan.refusals().isEmpty() ? Optional.empty()
                : Optional.of(new MembershipChangePlanner(in, plan, current));
    }

    List<String> warnings() {
        return plan.warnings();
    }

    /**
     * The class of every step of these changes (and of the joiners' host preparation): {@code repair}
     * when each change concerns a member of the cluster whose host holds no data and does not run
     * (its data lost: it is removed and joins again under its own name and peer URL, its old data
     * moved aside), and the spec's members are the cluster's; {@code change} when any change is one
     * the spec asked for (a member added, removed or moved). A membership change without quorum is
     * never planned (QuorumLoss refuses it first), so {@code never} is not needed here.
     */
    SafetyClass safety() {
        java.util.Set<String> lost = new java.util.HashSet<>();
        current.stream().filter(MembershipPlan.Current::dataLost).forEach(c -> lost.add(c.name()));
        boolean repairOnly = !lost.isEmpty() && plan.changes().stream().allMatch(change -> lost.contains(nameOf(change)));
        return repairOnly ? SafetyClass.REPAIR : SafetyClass.CHANGE;
    }

    private static String nameOf(MembershipPlan.Change change) {
        if (change instanceof MembershipPlan.Change.Remove r) {
            return r.member().name();
        } else if (change instanceof MembershipPlan.Change.AddLearner a) {
            return a.member().name();
        } else if (change instanceof MembershipPlan.Change.StartJoiner j) {
            return j.member().name();
        } else if (change instanceof MembershipPlan.Change.Promote p) {
            return p.member().name();
        } else if (change instanceof MembershipPlan.Change.HandOffLeadership h) {
            return h.from().name();
        }
        throw new IllegalStateException("unknown change " + change);
    }

    /** Each joining member (by name) with the membership it starts with: see {@link #initialClusterOfEachJoiner}. */
    Map<String, List<EtcdConfigFile.Peer>> joiners() {
        return joiners;
    }

    /** The inventory hosts of removed members whose etcd a step of this plan stops and disables. */
    java.util.Set<String> hostsStopped() {
        java.util.Set<String> hosts = new java.util.LinkedHashSet<>();
        removed.values().forEach(r -> {
            if (r instanceof RemovedHost.LeftSpec left) {
                hosts.add(left.host());
            }
        });
        return hosts;
    }

    /**
     * Each joiner starts with the membership as it will be at its turn: the members then in the
     * cluster (learners included) and itself. etcd checks that list against the cluster's own.
     */
    private static Map<String, List<EtcdConfigFile.Peer>> initialClusterOfEachJoiner(ConvergePlanner.Inputs in,
                                                                                     MembershipPlan plan) {
        Map<String, String> now = new LinkedHashMap<>();
        in.cluster().orElseThrow().members().stream().filter(m -> !m.name().isEmpty())
                .forEach(m -> m.peerUrls().stream().findFirst().ifPresent(url -> now.put(m.name(), url)));
        Map<String, List<EtcdConfigFile.Peer>> result = new LinkedHashMap<>();
        for (MembershipPlan.Change c : plan.changes()) {
            if (c instanceof MembershipPlan.Change.Remove r) {
                now.remove(r.member().name());
            } else if (c instanceof MembershipPlan.Change.AddLearner a) {
                now.put(a.member().name(), a.member().peerUrl());
            } else if (c instanceof MembershipPlan.Change.StartJoiner j) {
                now.put(j.member().name(), j.member().peerUrl());
                result.put(j.member().name(), now.entrySet().stream()
                        .map(e -> new EtcdConfigFile.Peer(e.getKey(), hostOf(e.getValue()))).toList());
            }
        }
        return result;
    }

    /**
     * The changes' steps, the first after {@code before}, then a wait until every member is healthy.
     *
     * @param prepared each joiner host's preparation steps its start waits for
     */
    List<Step> steps(List<Step> before, Map<String, List<Step>> prepared, ConvergePlanner.Context c) {
        Map<String, String> clientUrlOf = new LinkedHashMap<>();
        in.cluster().orElseThrow().members().forEach(cm -> cm.clientUrls().stream().findFirst()
                .ifPresent(url -> clientUrlOf.put(cm.name().isEmpty() ? cm.id() : cm.name(), url)));
        in.desired().members().forEach(m -> clientUrlOf.put(m.name(), Endpoints.clientUrl(m, in.layout())));
        Map<String, MembershipSteps.Joiner> joining = new LinkedHashMap<>();
        for (String name : joiners.keySet()) {
            Member m = in.desired().members().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
            String host = m.host().name();
            joining.put(name, new MembershipSteps.Joiner(host, prepared.getOrDefault(host, List.of()),
                    oldData(m, in.facts().get(host))));
        }
        List<Step> steps = new ArrayList<>(MembershipSteps.steps(plan, before, joining, removed, in.pendingStops(), c.access(),
                clientUrlOf, c.timeouts(), safety()));
        steps.add(Step.cluster("membership", "healthy-after-membership").safety(safety())
                .kind(io.etcdwright.engine.plan.ChangeKind.ACTION)
                .summary("wait for all " + c.members().size() + " members healthy").reason("after the membership changes")
                .after(steps.get(steps.size() - 1))
                .readyWhen(new ClusterConditions.AllHealthy(c.access(), c.clientUrls(), c.timeouts().ready()))
                .does(ctx -> io.etcdwright.engine.plan.Outcome.OK));
        return steps;
    }

    /** Where each removed member (by name, or id while it has none) runs etcd. */
    private static Map<String, RemovedHost> removedHosts(ConvergePlanner.Inputs in, MembershipPlan plan) {
        Map<String, RemovedHost> removed = new LinkedHashMap<>();
        plan.changes().forEach(change -> {
            if (change instanceof MembershipPlan.Change.Remove r) {
                String name = r.member().name().isEmpty() ? r.member().id() : r.member().name();
                removed.put(name, RemovedHost.of(r.member(), in.desired().inventory().hosts().values(), in.desired().members(),
                        in.layout().dataDir()));
            }
        });
        return removed;
    }

    /**
     * A member of the cluster that never ran: one of the first members of a cluster whose create
     * was interrupted before it started. The cluster lists it (with the name the initial cluster
     * gave it) but it never published its client URLs, as etcd does once it has joined. Its host
     * holding no data is no loss: it starts, joining the running cluster, as the member it was
     * planned to be, instead of being removed and added again.
     */
    private static boolean neverStarted(MemberStatus m) {
        return m.clientUrls().isEmpty();
    }

    /**
     * A member of the cluster whose host, in the spec, holds no data and does not run etcd: its data
     * directory was deleted or its disk replaced. It cannot start as the member it was.
     */
    private static boolean dataLost(ConvergePlanner.Inputs in, String memberName) {
        return in.desired().members().stream().filter(m -> m.name().equals(memberName)).findFirst()
                .map(m -> in.facts().get(m.host().name()))
                .map(f -> !f.member().hasMemberData() && !f.service().running())
                .orElse(false);
    }

    /**
     * The data a joiner's host holds that etcd must not start with (a removed member's, another
     * cluster's), judged by {@link JoinerData}: the data of the learner the cluster lists at the
     * joiner's peer URL, running there as itself, is kept.
     */
    private Optional<MembershipSteps.OldData> oldData(Member m, EtcdHostFacts f) {
        String peerUrl = peer(m).peerUrl(in.layout());
        ClusterStatus cluster = in.cluster().orElseThrow();
        Optional<String> learnerId = cluster.members().stream()
                .filter(c -> c.learner() && c.peerUrls().contains(peerUrl)).map(MemberStatus::id).findFirst();
        return JoinerData.moveAsideReason(f.member(), learnerId, cluster.clusterId())
                .map(why -> new MembershipSteps.OldData(in.layout().dataDir(), why, f.member().dataBytes()));
    }

    /**
     * Without the cluster's own member list (no member answered), a host of the spec that is not
     * a member cannot be added safely: starting it with a "new" config would form a second cluster.
     */
    private static void checkNoJoins(ConvergePlanner.Inputs in, List<Refusal> refusals) {
        List<Member> members = in.desired().members();
        boolean anyRunning = members.stream().anyMatch(m -> in.facts().get(m.host().name()).member().status().isPresent());
        if (!anyRunning) {
            return;
        }
        List<String> fresh = members.stream()
                .filter(m -> !in.facts().get(m.host().name()).member().hasMemberData())
                .filter(m -> !in.facts().get(m.host().name()).service().running())
                .map(Member::name).toList();
        if (!fresh.isEmpty()) {
            refusals.add(new Refusal("join-without-member-list", "cluster " + in.desired().spec().name(),
                    "the cluster is running and " + String.join(", ", fresh) + " would join it as new member(s), but no member"
                            + " answered the request for the cluster's member list, which adding members needs; starting them"
                            + " now could form a second cluster",
                    "make the running members healthy (etcdwright status), then plan again"));
        }
    }

    private static EtcdConfigFile.Peer peer(Member m) {
        return new EtcdConfigFile.Peer(m.name(), m.address());
    }

    private static String hostOf(String url) {
        String host = URI.create(url).getHost();
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    /** RemovalWouldLoseQuorum -> removal-would-lose-quorum: a stable name from the refusal's type. */
    private static String kindOf(MembershipPlan.Refusal refusal) {
        return refusal.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
