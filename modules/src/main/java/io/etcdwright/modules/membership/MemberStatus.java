package io.etcdwright.modules.membership;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One member as {@code etcdwright status} shows it: what the member list says about it, plus what
 * the member itself answered to a Status call (empty fields when it did not answer).
 *
 * @param name        the member's name; empty for a member that was added but has not started yet
 * @param id          the member id in lower-case hex, as etcdctl prints it
 * @param clientUrls  the advertised client URLs, in member-list order
 * @param peerUrls    the advertised peer URLs, in member-list order
 * @param learner     whether the member is a non-voting learner
 * @param leader      whether the member's id equals the leader id that the status answers reported
 *                    (the answer with the highest raft term wins if they disagree)
 * @param version     the etcd server version the member reported
 * @param dbSizeBytes the size of the member's backend database file
 * @param raftIndex   the member's raft index
 * @param raftTerm    the member's raft term
 * @param healthy     whether the member answered the Status call within the timeout
 * @param error       why the member did not answer ("no answer within 2 s", "TLS handshake refused:
 *                    ..."), or what it reported wrong even though it answered (alarms such as
 *                    NOSPACE); one short line, never a stack trace
 * @param raftAppliedIndex the last raft index the member applied: for a learner, how far it has
 *                    caught up with the leader's raft index
 * @param dbSizeInUseBytes the part of the database file in use; the rest is what a defragmentation gives back
 */
public record MemberStatus(
        String name,
        String id,
        List<String> clientUrls,
        List<String> peerUrls,
        boolean learner,
        boolean leader,
        Optional<String> version,
        OptionalLong dbSizeBytes,
        OptionalLong raftIndex,
        OptionalLong raftTerm,
        boolean healthy,
        Optional<String> error,
        OptionalLong raftAppliedIndex,
        // Left out of facts files' cluster view when not known (it is known only to status's own Status calls).
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_ABSENT)
        OptionalLong dbSizeInUseBytes) {

    public MemberStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        clientUrls = List.copyOf(clientUrls);
        peerUrls = List.copyOf(peerUrls);
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(dbSizeBytes, "dbSizeBytes");
        Objects.requireNonNull(raftIndex, "raftIndex");
        Objects.requireNonNull(raftTerm, "raftTerm");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(raftAppliedIndex, "raftAppliedIndex");
        Objects.requireNonNull(dbSizeInUseBytes, "dbSizeInUseBytes");
    }

    /** A member whose database's in-use size is not known. */
    public MemberStatus(String name, String id, List<String> clientUrls, List<String> peerUrls, boolean learner,
                        boolean leader, Optional<String> version, OptionalLong dbSizeBytes, OptionalLong raftIndex,
                        OptionalLong raftTerm, boolean healthy, Optional<String> error, OptionalLong raftAppliedIndex) {
        this(name, id, clientUrls, peerUrls, learner, leader, version, dbSizeBytes, raftIndex, raftTerm, healthy, error,
                raftAppliedIndex, OptionalLong.empty());
    }

    /** A member whose applied index is not known (it did not answer, or the caller does not need it). */
    public MemberStatus(String name, String id, List<String> clientUrls, List<String> peerUrls, boolean learner,
                        boolean leader, Optional<String> version, OptionalLong dbSizeBytes, OptionalLong raftIndex,
                        OptionalLong raftTerm, boolean healthy, Optional<String> error) {
        this(name, id, clientUrls, peerUrls, learner, leader, version, dbSizeBytes, raftIndex, raftTerm, healthy, error,
                OptionalLong.empty(), OptionalLong.empty());
    }
}
