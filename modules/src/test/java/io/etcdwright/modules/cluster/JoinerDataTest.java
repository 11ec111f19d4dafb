package io.etcdwright.modules.cluster;

import io.etcdwright.modules.membership.MemberFacts;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whose data a joining member's host holds, and so whether it is moved aside before the join. */
class JoinerDataTest {
    static final Optional<String> CLUSTER = Optional.of("c1");

    static MemberFacts noData() {
        return new MemberFacts(true, false, 0, 1 << 30, Optional.empty());
    }

    static MemberFacts stoppedWithData() {
        return new MemberFacts(true, true, 4096, 1 << 30, Optional.empty());
    }

    /** etcd runs there and answers as {@code memberId} of cluster {@code clusterId}. */
    static MemberFacts runningAs(String memberId, String clusterId) {
        return new MemberFacts(true, true, 4096, 1 << 30, Optional.of(
                new MemberFacts.LocalStatus(memberId, clusterId, "a1", "3.5.16", 20480, 2, 10, true)));
    }

    @Test
    void aHostWithoutDataHasNothingToMove() {
        assertEquals(Optional.empty(), JoinerData.moveAsideReason(noData(), Optional.empty(), CLUSTER));
    }

    @Test
    void theLearnerRunningAsItselfKeepsItsData() {
        // An apply stopped between starting the learner and promoting it.
        assertEquals(Optional.empty(), JoinerData.moveAsideReason(runningAs("b4", "c1"), Optional.of("b4"), CLUSTER));
    }

    @Test
    void dataOfAnotherMemberIsMovedAside() {
        // A removed member's etcd (still running, or restarting) at the address of a new learner.
        Optional<String> why = JoinerData.moveAsideReason(runningAs("9f", "c1"), Optional.of("b4"), CLUSTER);
        assertTrue(why.orElseThrow().contains("data of member 9f"), why.toString());
        assertTrue(JoinerData.moveAsideReason(runningAs("9f", "c1"), Optional.empty(), CLUSTER).isPresent());
    }

    @Test
    void dataOfAnotherClusterIsMovedAsideEvenWithTheSameMemberId() {
        Optional<String> why = JoinerData.moveAsideReason(runningAs("b4", "c2"), Optional.of("b4"), CLUSTER);
        assertTrue(why.orElseThrow().contains("another cluster"), why.toString());
    }

    @Test
    void dataNobodyAnswersForIsMovedAside() {
        // Not running: nothing proves the data is the joiner's, and a learner that never started has none.
        assertTrue(JoinerData.moveAsideReason(stoppedWithData(), Optional.of("b4"), CLUSTER).isPresent());
        assertTrue(JoinerData.moveAsideReason(stoppedWithData(), Optional.empty(), CLUSTER).isPresent());
    }
}
