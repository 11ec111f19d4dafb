package io.etcdwright.modules.backup;

import io.etcd.jetcd.api.Member;
import io.etcd.jetcd.api.StatusResponse;
import io.etcdwright.modules.membership.TlsMaterial;
import io.grpc.StatusRuntimeException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The member a backup is taken from: the leader, as etcd's docs advise (it has every committed
 * write), found by asking the members in turn which one leads; a follower only when no leader
 * answers, and then the caller says so. Learners never: they may lag.
 *
 * @param rpc         an open connection to it, for the snapshot
 * @param memberCount voting members in the cluster
 */
public record SnapshotMember(MemberRpc rpc, String name, boolean leader, String version, int memberCount)
        implements AutoCloseable {

    public static SnapshotMember find(List<String> clientUrls, TlsMaterial tls, Duration timeout) {
        List<String> problems = new ArrayList<>();
        for (String url : clientUrls) {
            MemberRpc asked = MemberRpc.connect(url, tls, timeout);
            boolean keep = false;
            try {
                StatusResponse status = asked.status();
                List<Member> members = asked.members();
                int voters = (int) members.stream().filter(m -> !m.getIsLearner()).count();
                long self = status.getHeader().getMemberId();
                Optional<Member> leader = members.stream().filter(m -> m.getID() == status.getLeader())
                        .filter(m -> m.getClientURLsCount() > 0).findFirst();
                if (leader.isPresent() && leader.get().getID() == self) {
                    // The member asked leads: its connection is the one to take the snapshot on.
                    keep = true;
                    return new SnapshotMember(asked, leader.get().getName(), true, status.getVersion(), voters);
                }
                if (leader.isPresent()) {
                    Optional<SnapshotMember> fromLeader = connect(leader.get(), true, voters, tls, timeout, problems);
                    if (fromLeader.isPresent()) {
                        return fromLeader.get();
                    }
                }
                if (!status.getIsLearner() && status.getErrorsCount() == 0) {
                    Optional<Member> me = members.stream().filter(m -> m.getID() == self).findFirst();
                    if (me.isPresent()) {
                        keep = true;
                        return new SnapshotMember(asked, me.get().getName(), false, status.getVersion(), voters);
                    }
                }
            } catch (StatusRuntimeException e) {
                problems.add(url + ": " + e.getStatus().getCode() + (e.getStatus().getDescription() == null ? ""
                        : " (" + e.getStatus().getDescription() + ")"));
            } finally {
                if (!keep) {
                    asked.close();
                }
            }
        }
        throw new IllegalStateException("no member answered with a snapshot to give: " + String.join("; ", problems)
                + "; see 'etcdwright status'");
    }

    private static Optional<SnapshotMember> connect(Member member, boolean leader, int voters, TlsMaterial tls, Duration timeout,
                                                    List<String> problems) {
        String url = member.getClientURLs(0);
        MemberRpc rpc = MemberRpc.connect(url, tls, timeout);
        try {
            StatusResponse status = rpc.status();
            return Optional.of(new SnapshotMember(rpc, member.getName(), leader && status.getLeader() == member.getID(),
                    status.getVersion(), voters));
        } catch (StatusRuntimeException e) {
            rpc.close();
            problems.add("leader " + member.getName() + " at " + url + ": " + e.getStatus().getCode());
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        rpc.close();
    }
}
