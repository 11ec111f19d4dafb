package io.etcdwright.modules.cluster;

import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberFacts.ClusterAnswer;
import io.etcdwright.modules.membership.MemberFacts.ListedMember;
import io.etcdwright.modules.membership.MemberFacts.LocalStatus;
import io.etcdwright.modules.membership.MemberStatus;

import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The cluster's own view, derived from the hosts' facts alone: each running member answered, on
 * its own host and in the same round trip as its other facts, its status, its member list, a
 * linearizable health read and the alarms. A pure function: the same facts (live, or loaded from
 * a recorded facts file) give the same view, with no connection to the cluster.
 *
 * <p>Rules: the member list is taken from the most authoritative answer: among the answers of
 * the cluster most hosts belong to, the leader's; else the one with the highest raft term; on a
 * tie, the first host's. The leader is the one named by the
 * status with the highest raft term. A member is healthy when its own host's etcd answered as it.
 * Quorum is proven when a voter's linearizable read went through. A member that did not answer
 * says why: its host was unreachable, etcd does not run there, it gave no answer, it never
 * started, or no host of the inventory is it.
 */
public final class ClusterFacts {
    private ClusterFacts() {
    }

    /**
     * One host as fact gathering left it.
     *
     * @param host        inventory name
     * @param address     the address etcd advertises there (what peer URLs name)
     * @param memberName  the etcd member name it runs as
     * @param facts       its facts, when it was reached
     * @param unreachable why it was not reached (empty when it was)
     */
    public record HostAnswer(String host, String address, String memberName, Optional<EtcdHostFacts> facts,
                             String unreachable) {
        public HostAnswer {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(memberName, "memberName");
            Objects.requireNonNull(facts, "facts");
            Objects.requireNonNull(unreachable, "unreachable");
        }

        public static HostAnswer reachable(String address, String memberName, EtcdHostFacts facts) {
            return new HostAnswer(facts.host(), address, memberName, Optional.of(facts), "");
        }

        public static HostAnswer unreachable(String host, String address, String memberName, String why) {
            return new HostAnswer(host, address, memberName, Optional.empty(), why);
        }

        /** A host whose member name is its inventory name. */
        public static HostAnswer reachable(String address, EtcdHostFacts facts) {
            return reachable(address, facts.host(), facts);
        }

        /** A host whose member name is its inventory name. */
        public static HostAnswer unreachable(String host, String address, String why) {
            return unreachable(host, address, host, why);
        }

        Optional<LocalStatus> status() {
            return facts.flatMap(f -> f.member().status());
        }

        Optional<ClusterAnswer> answer() {
            return facts.flatMap(f -> f.member().cluster()).filter(a -> !a.members().isEmpty());
        }
    }

    /** The cluster's view; empty when no member gave its member list (none runs, or none answered). */
    public static Optional<ClusterStatus> derive(List<HostAnswer> hosts) {
        Optional<HostAnswer> best = authoritative(hosts);
        if (best.isEmpty()) {
            return Optional.empty();
        }
        ClusterAnswer list = best.get().answer().orElseThrow();
        String clusterId = list.clusterId();
        // Only answers from this cluster count: a removed member or another cluster's member
        // on a host of the inventory speaks for itself, not for this cluster.
        List<HostAnswer> ours = hosts.stream()
                .filter(h -> h.status().map(s -> s.clusterId().equals(clusterId)).orElse(false)).toList();
        String leaderId = ours.stream().map(h -> h.status().orElseThrow())
                .filter(s -> !s.leaderId().isEmpty() && !s.leaderId().equals("0"))
                .max(Comparator.comparingLong(LocalStatus::raftTerm)).map(LocalStatus::leaderId).orElse("");
        Set<String> voters = new LinkedHashSet<>();
        list.members().stream().filter(m -> !m.learner()).forEach(m -> voters.add(m.id()));
        boolean quorum = ours.stream().anyMatch(h -> h.answer().map(ClusterAnswer::healthy).orElse(false)
                && voters.contains(h.status().orElseThrow().memberId()));
        Set<MemberFacts.Alarm> alarms = new LinkedHashSet<>(list.alarms());
        ours.forEach(h -> h.answer().ifPresent(a -> alarms.addAll(a.alarms())));

        List<MemberStatus> members = new ArrayList<>();
        for (ListedMember m : list.members()) {
            members.add(member(m, hosts, clusterId, leaderId, List.copyOf(alarms)));
        }
        Optional<String> clusterVersion = best.get().answer().flatMap(ClusterAnswer::clusterVersion)
                .or(() -> ours.stream().map(h -> h.answer().flatMap(ClusterAnswer::clusterVersion))
                        .flatMap(Optional::stream).findFirst());
        return Optional.of(new ClusterStatus(members, clusterId.isEmpty() ? Optional.empty() : Optional.of(clusterId),
                quorum, clusterVersion, List.copyOf(alarms)));
    }

    /**
     * The cluster most hosts' members belong to (another cluster's member on a host of the
     * inventory must not speak for this one, however high its term); within it the leader's
     * answer if the leader answered, else the newest (highest raft term), else the first host's.
     */
    private static Optional<HostAnswer> authoritative(List<HostAnswer> hosts) {
        List<HostAnswer> answered = hosts.stream().filter(h -> h.answer().isPresent()).toList();
        Map<String, Long> votes = new LinkedHashMap<>();
        answered.forEach(h -> votes.merge(h.answer().orElseThrow().clusterId(), 1L, Long::sum));
        Optional<String> cluster = votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
        if (cluster.isEmpty()) {
            return Optional.empty();
        }
        List<HostAnswer> ours = answered.stream()
                .filter(h -> h.answer().orElseThrow().clusterId().equals(cluster.get())).toList();
        Optional<HostAnswer> leader = ours.stream()
                .filter(h -> h.status().map(s -> s.isLeader() && s.clusterId().equals(cluster.get())).orElse(false))
                .max(Comparator.comparingLong(h -> h.status().orElseThrow().raftTerm()));
        if (leader.isPresent()) {
            return leader;
        }
        HostAnswer newest = null;
        for (HostAnswer h : ours) {
            if (newest == null || term(h) > term(newest)) {
                newest = h;
            }
        }
        return Optional.ofNullable(newest);
    }

    private static long term(HostAnswer h) {
        return Math.max(h.answer().orElseThrow().raftTerm(), h.status().map(LocalStatus::raftTerm).orElse(0L));
    }

    private static MemberStatus member(ListedMember m, List<HostAnswer> hosts, String clusterId, String leaderId,
                                       List<MemberFacts.Alarm> alarms) {
        boolean leader = !leaderId.isEmpty() && m.id().equals(leaderId);
        if (m.clientUrls().isEmpty()) {
            return down(m, leader, "not started yet: in the member list, but has never joined (no client URLs)");
        }
        // Its own answer, wherever it came from; else the host its peer URL or name points at.
        Optional<HostAnswer> self = hosts.stream()
                .filter(h -> h.status().map(s -> s.memberId().equals(m.id()) && s.clusterId().equals(clusterId)).orElse(false))
                .findFirst();
        if (self.isPresent()) {
            LocalStatus s = self.get().status().orElseThrow();
            List<String> reports = new ArrayList<>(s.errors());
            alarms.stream().filter(a -> a.memberId().equals(m.id()))
                    .map(a -> "alarm " + a.type()).filter(a -> reports.stream().noneMatch(r -> r.contains(a.substring(6))))
                    .forEach(reports::add);
            return new MemberStatus(m.name(), m.id(), m.clientUrls(), m.peerUrls(), m.learner(), leader,
                    s.version().isEmpty() ? Optional.empty() : Optional.of(s.version()), OptionalLong.of(s.dbSizeBytes()),
                    OptionalLong.of(s.raftIndex()), OptionalLong.of(s.raftTerm()), true,
                    reports.isEmpty() ? Optional.empty() : Optional.of("reports: " + String.join("; ", reports)),
                    s.raftAppliedIndex() > 0 ? OptionalLong.of(s.raftAppliedIndex()) : OptionalLong.empty());
        }
        Optional<HostAnswer> host = hosts.stream().filter(h -> peerHosts(m).contains(h.address())).findFirst()
                .or(() -> hosts.stream().filter(h -> !m.name().isEmpty() && h.memberName().equals(m.name())).findFirst());
        if (host.isEmpty()) {
            return down(m, leader, "not on any host of the inventory (peer URL " + String.join(", ", m.peerUrls())
                    + "): no host to ask it");
        }
        return down(m, leader, whyNoAnswer(host.get(), m.id()));
    }

    private static String whyNoAnswer(HostAnswer h, String id) {
        if (h.facts().isEmpty()) {
            return "host " + h.host() + " unreachable: " + h.unreachable();
        }
        EtcdHostFacts f = h.facts().get();
        if (!f.service().running()) {
            return "etcd is not running on " + h.host() + " (" + f.service().activeState() + ")";
        }
        Optional<LocalStatus> s = f.member().status();
        if (s.isPresent()) {
            return "etcd on " + h.host() + " answered as member " + s.get().memberId()
                    + (s.get().memberId().equals(id) ? " of cluster " + s.get().clusterId() : "") + ", not " + id;
        }
        return "etcd runs on " + h.host() + " but did not answer on its client port within 3 s";
    }

    private static MemberStatus down(ListedMember m, boolean leader, String why) {
        return new MemberStatus(m.name(), m.id(), m.clientUrls(), m.peerUrls(), m.learner(), leader, Optional.empty(),
                OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), false, Optional.of(why));
    }

    /** The addresses in a member's peer URLs: where its host is, whatever the inventory calls it. */
    public static Set<String> peerAddresses(MemberStatus m) {
        return peerHosts(new ListedMember(m.id(), m.name(), m.peerUrls(), m.clientUrls(), m.learner()));
    }

    private static Set<String> peerHosts(ListedMember m) {
        Set<String> out = new LinkedHashSet<>();
        for (String url : m.peerUrls()) {
            try {
                String host = URI.create(url).getHost();
                if (host != null) {
                    out.add(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
                }
            } catch (IllegalArgumentException e) {
                // not a URL: matched by name instead
            }
        }
        return out;
    }
}
