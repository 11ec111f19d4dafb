package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.backup.BackupsSeen;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipPlan;
import io.etcdwright.modules.membership.MembershipPlan.Refusal.DownVoter;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A cluster that lost quorum, seen as the members that answer see it: their own member list (the
 * voters) and which of those answered on their hosts. Fewer than a quorum answer, so nothing can
 * commit, not even a membership change: the plan says so before anything else (unreachable hosts
 * included, whose usual advice, to give a lost member a new host, is a membership change) and
 * names the ways out that work, bringing enough voters back or a restore from the newest backup
 * the spec's stores hold.
 *
 * <p>Not a loss of quorum, but the repair a plan makes: every voter that does not answer is a
 * stopped etcd on a host that answers, and the spec's members are the cluster's (an apply starts
 * them, as after a power cut).
 */
final class QuorumLoss {
    private QuorumLoss() {
    }

    /** The refusal, when the cluster the members describe has no quorum and starting members will not bring it back. */
    static Optional<Refusal> refusal(ConvergePlanner.Inputs in) {
        if (in.cluster().isEmpty()) {
            return Optional.empty();
        }
        ClusterStatus cluster = in.cluster().get();
        List<MemberStatus> voters = cluster.members().stream().filter(m -> !m.learner()).toList();
        List<String> answering = voters.stream().filter(MemberStatus::healthy).map(QuorumLoss::label).sorted().toList();
        if (voters.isEmpty() || answering.size() >= voters.size() / 2 + 1) {
            return Optional.empty();
        }
        List<DownVoter> down = new ArrayList<>();
        for (MemberStatus m : voters) {
            if (!m.healthy()) {
                down.add(downVoter(m, in));
            }
        }
        down.sort(java.util.Comparator.comparing(DownVoter::name));
        Set<String> clusterUrls = new java.util.TreeSet<>();
        voters.forEach(m -> m.peerUrls().stream().findFirst().ifPresent(clusterUrls::add));
        Set<String> specUrls = new java.util.TreeSet<>();
        in.desired().members().forEach(m -> specUrls.add(Endpoints.peerUrl(m, in.layout())));
        boolean sameMembers = clusterUrls.equals(specUrls);
        if (sameMembers && down.stream().allMatch(d -> d.way() == DownVoter.Way.START_ETCD)) {
            return Optional.empty(); // the repair: the plan starts them
        }
        String backups = BackupsSeen.describe(in.backups().look(), in.now());
        MembershipPlan.Refusal.QuorumLost lost = new MembershipPlan.Refusal.QuorumLost(answering, down,
                sameMembers ? List.of() : voters.stream().map(QuorumLoss::label).sorted().toList(), backups);
        return Optional.of(new Refusal("quorum-lost", "cluster " + in.desired().spec().name(), lost.what(), lost.whatToDo()));
    }

    /**
     * Why a voter does not answer ({@link ClusterFacts} said it, from its host's facts), and so the way
     * back: its host, etcd started on a host that answers (with its data, or a member that never
     * started), or a repair by hand.
     */
    private static DownVoter downVoter(MemberStatus m, ConvergePlanner.Inputs in) {
        String why = m.error().orElse("does not answer");
        if (why.startsWith("host ") && why.contains(" unreachable")) {
            return new DownVoter(label(m), why, DownVoter.Way.BRING_HOST_BACK);
        }
        if (why.startsWith("not on any host of the inventory")) {
            return new DownVoter(label(m), why + "; put its host back in the inventory", DownVoter.Way.BRING_HOST_BACK);
        }
        boolean neverStarted = m.clientUrls().isEmpty();
        Optional<EtcdHostFacts> facts = specHost(m, in).map(h -> in.facts().get(h.host().name()));
        if (facts.isPresent() && !facts.get().service().running() && !neverStarted && !facts.get().member().hasMemberData()) {
            return new DownVoter(label(m), why + ", and its data directory is gone: it cannot come back as it was",
                    DownVoter.Way.REPAIR);
        }
        if (why.startsWith("etcd is not running on ") || neverStarted) {
            return new DownVoter(label(m), why, DownVoter.Way.START_ETCD);
        }
        return new DownVoter(label(m), why, DownVoter.Way.REPAIR);
    }

    /** The spec's member that is this voter: by name, else by the address of its peer URL. */
    private static Optional<Member> specHost(MemberStatus m, ConvergePlanner.Inputs in) {
        Set<String> addresses = ClusterFacts.peerAddresses(m);
        return in.desired().members().stream()
                .filter(d -> !m.name().isEmpty() && d.name().equals(m.name()) || addresses.contains(d.address()))
                .filter(d -> in.facts().containsKey(d.host().name()))
                .findFirst();
    }

    private static String label(MemberStatus m) {
        return m.name().isEmpty() ? m.id() : m.name();
    }
}
