package io.etcdwright.modules.cluster;

import io.etcdwright.modules.membership.MemberFacts;

import java.util.Optional;

/**
 * Whether the data on a joining member's host must be moved aside before etcd starts there. etcd
 * ignores the join settings when its data directory holds a WAL and starts as whatever member
 * that WAL names: a removed member ("the member has been permanently removed") or a member of
 * another cluster ("cluster ID mismatch") never joins. But the data of the very learner that is
 * joining (an apply stopped after starting it) is the only copy of its log: moving it aside would
 * leave the leader believing the learner holds entries it no longer has.
 */
final class JoinerData {
    private JoinerData() {
    }

    /**
     * Why the host's data must be moved aside, or empty when there is none or it is the joiner's own.
     *
     * @param host      the host's member facts (its etcd's own answer, when it runs)
     * @param learnerId the id of the learner the cluster lists at the joiner's peer URL, if any
     * @param clusterId the id of the cluster being joined, when known
     */
    static Optional<String> moveAsideReason(MemberFacts host, Optional<String> learnerId, Optional<String> clusterId) {
        if (!host.hasMemberData()) {
            return Optional.empty();
        }
        Optional<MemberFacts.LocalStatus> running = host.status();
        if (running.isEmpty()) {
            return Optional.of("it holds data of an earlier membership (a removed member, or another cluster)");
        }
        MemberFacts.LocalStatus self = running.get();
        if (clusterId.isPresent() && !clusterId.get().equals(self.clusterId())) {
            return Optional.of("it holds data of another cluster (its etcd answers as cluster " + self.clusterId()
                    + ", not " + clusterId.get() + ")");
        }
        if (learnerId.isPresent() && learnerId.get().equals(self.memberId())) {
            return Optional.empty();
        }
        return Optional.of("it holds data of member " + self.memberId() + ", which is not the member joining"
                + learnerId.map(id -> " (" + id + ")").orElse(""));
    }
}
