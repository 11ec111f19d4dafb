package io.etcdwright.cli;

import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What status prints for a learner: how far its log has come against the leader's. */
class StatusOutputTest {
    static MemberStatus member(String name, boolean leader, boolean learner, long raftIndex, long applied) {
        return new MemberStatus(name, name + "-id", List.of("https://" + name + ":2379"), List.of("https://" + name + ":2380"),
                learner, leader, Optional.of("3.5.16"), OptionalLong.of(20480), OptionalLong.of(raftIndex), OptionalLong.of(2),
                true, Optional.empty(), OptionalLong.of(applied));
    }

    static final MemberStatus LEADER = member("h1", true, false, 1000, 1000);

    @Test
    void aLearnersProgressIsInTheJsonAgainstTheLeadersRaftIndex() {
        MemberStatus learner = member("h4", false, true, 400, 400);
        ClusterStatus status = new ClusterStatus(List.of(LEADER, learner), Optional.of("c1"), true);
        Map<String, Object> row = StatusCommand.row(learner, status, OptionalLong.empty());
        assertEquals(400L, row.get("raft_applied_index"));
        assertEquals(Map.of("applied_index", 400L, "leader_raft_index", 1000L, "percent", 40, "caught_up", false),
                row.get("learner_progress"));
        assertNull(StatusCommand.row(LEADER, status, OptionalLong.empty()).get("learner_progress"), "voters have none");
        assertEquals(1000L, StatusCommand.row(LEADER, status, OptionalLong.empty()).get("raft_applied_index"));
    }

    @Test
    void aLearnersProgressIsPrintedUnderItsLine() {
        MemberStatus learner = member("h4", false, true, 995, 995);
        ClusterStatus status = new ClusterStatus(List.of(LEADER, learner), Optional.of("c1"), true);
        List<String> lines = StatusCommand.text(List.of(StatusCommand.row(LEADER, status, OptionalLong.of(300)),
                StatusCommand.row(learner, status, OptionalLong.of(300))));
        assertEquals(4, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(2).startsWith("h4") && lines.get(2).contains("learner"), lines.get(2));
        assertEquals("learner progress: applied index 995 of the leader's 1000 (99%): caught up, can be promoted",
                lines.get(3).strip());
    }

    @Test
    void aLearnerWhoseLeaderIsUnknownSaysSo() {
        MemberStatus learner = member("h4", false, true, 10, 10);
        MemberStatus follower = member("h1", false, false, 10, 10);
        ClusterStatus status = new ClusterStatus(List.of(follower, learner), Optional.of("c1"), false);
        List<String> lines = StatusCommand.text(List.of(StatusCommand.row(learner, status, OptionalLong.empty())));
        assertEquals("learner progress: unknown (no leader reported its raft index)", lines.get(2).strip());
    }

    @Test
    void theTableShowsEachDatabasesInUseSizeBesideItsSize() {
        MemberStatus m = new MemberStatus("h1", "h1-id", List.of("https://h1:2379"), List.of("https://h1:2380"), false, true,
                Optional.of("3.5.16"), OptionalLong.of(12L << 20), OptionalLong.of(10), OptionalLong.of(2), true, Optional.empty(),
                OptionalLong.of(10), OptionalLong.of(3L << 19));
        ClusterStatus status = new ClusterStatus(List.of(m), Optional.of("c1"), true);
        List<String> lines = StatusCommand.text(List.of(StatusCommand.row(m, status, OptionalLong.empty())));
        assertTrue(lines.get(0).contains(" DB ") && lines.get(0).contains(" IN USE "), lines.get(0));
        assertTrue(lines.get(1).contains("12.0 MiB   1.5 MiB"), lines.get(1));
        MemberStatus unknown = member("h2", false, false, 10, 10);
        String row = StatusCommand.text(List.of(StatusCommand.row(unknown, status, OptionalLong.empty()))).get(1);
        assertTrue(row.contains("20.0 KiB   -"), "no in-use size reported: a dash, " + row);
    }
}
