package io.etcdwright.modules.membership;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The cluster as {@code etcdwright status} shows it.
 *
 * @param members   every member of the member list, in the order etcd listed them
 * @param clusterId the cluster id in lower-case hex, as etcdctl prints it
 * @param quorum    whether a linearizable read went through within the timeout: proof that a
 *                  leader with a quorum behind it serves requests right now
 * @param clusterVersion the cluster version (the minor all members speak), when it was asked
 * @param alarms    the cluster's alarms (NOSPACE, CORRUPT), when they were asked
 */
public record ClusterStatus(List<MemberStatus> members, Optional<String> clusterId, boolean quorum,
                            Optional<String> clusterVersion, List<MemberFacts.Alarm> alarms) {

    public ClusterStatus {
        members = List.copyOf(members);
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(clusterVersion, "clusterVersion");
        alarms = List.copyOf(alarms);
    }

    /** A cluster whose version and alarms were not asked. */
    public ClusterStatus(List<MemberStatus> members, Optional<String> clusterId, boolean quorum) {
        this(members, clusterId, quorum, Optional.empty(), List.of());
    }

    /** The member the answers named as leader, if any did. */
    public Optional<MemberStatus> leader() {
        return members.stream().filter(MemberStatus::leader).findFirst();
    }

    /**
     * A learner's progress: its applied index against the leader's raft index; empty for a voter,
     * or when the learner or the leader did not say.
     */
    public Optional<LearnerProgress> learnerProgress(MemberStatus member) {
        if (!member.learner() || member.raftAppliedIndex().isEmpty()) {
            return Optional.empty();
        }
        return leader().filter(l -> l.raftIndex().isPresent())
                .map(l -> new LearnerProgress(member.raftAppliedIndex().getAsLong(), l.raftIndex().getAsLong()));
    }

    /** How many members answered. */
    public long healthyCount() {
        return members.stream().filter(MemberStatus::healthy).count();
    }

    /** Whether every member answered and the cluster serves linearizable reads. */
    public boolean allHealthy() {
        return quorum && members.stream().allMatch(MemberStatus::healthy);
    }
}
