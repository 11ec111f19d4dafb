package io.etcdwright.modules.membership;

import io.etcdwright.modules.membership.MembershipPlan.Change;
import io.etcdwright.modules.membership.MembershipPlan.Current;
import io.etcdwright.modules.membership.MembershipPlan.Desired;
import io.etcdwright.modules.membership.MembershipPlan.Refusal;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every resize and replacement a cluster sees, as the exact changes in their order, or the
 * refusals. The members' state is what the cluster reports; names h1..h5 at 10.0.0.1..5.
 */
class MembershipPlanTest {

    static Current voter(int i) {
        return new Current("id" + i, "h" + i, url(i), false, true, false);
    }

    static Current leader(int i) {
        return new Current("id" + i, "h" + i, url(i), false, true, true);
    }

    static Current down(int i) {
        return new Current("id" + i, "h" + i, url(i), false, false, false);
    }

    static Current unstartedLearner(int i) {
        return new Current("id" + i, "", url(i), true, false, false);
    }

    /** Added, started and answering as itself: an apply was stopped between its start and its promotion. */
    static Current runningLearner(int i) {
        return new Current("id" + i, "h" + i, url(i), true, true, false);
    }

    /** Added and started once, but its etcd does not answer now. */
    static Current stoppedLearner(int i) {
        return new Current("id" + i, "h" + i, url(i), true, false, false);
    }

    static Desired want(int i) {
        return new Desired("h" + i, url(i));
    }

    static String url(int i) {
        return "https://10.0.0." + i + ":2380";
    }

    /** The changes as short lines, so a failing test shows the whole order. */
    static List<String> lines(MembershipPlan plan) {
        return plan.changes().stream().map(Change::line).toList();
    }

    @Test
    void nothingChangesWhenTheMembersAreTheOnesWanted() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3)), List.of(want(1), want(2), want(3)), "3.5.16");
        assertEquals(List.of(), plan.changes());
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void growingFromOneToThreeAddsEachAsALearnerThenPromotesItBeforeTheNext() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1)), List.of(want(1), want(2), want(3)), "3.5.16");
        assertEquals(List.of("add learner h2", "start h2", "promote h2", "add learner h3", "start h3", "promote h3"), lines(plan));
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void shrinkingFiveToThreeRemovesFollowersAndTheLeaderLastAfterHandingOff() {
        MembershipPlan plan = MembershipPlan.plan(List.of(voter(1), voter(2), voter(3), voter(4), leader(5)),
                List.of(want(1), want(2), want(3)), "3.5.16");
        assertEquals(List.of("remove h4", "hand off leadership from h5", "remove h5"), lines(plan));
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void aDeadMemberIsReplacedByRemovingItFirstThenAddingTheNewHost() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), down(3)), List.of(want(1), want(2), want(4)), "3.5.16");
        assertEquals(List.of("remove h3", "add learner h4", "start h4", "promote h4"), lines(plan));
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void aHealthyMemberIsSwappedByAddingTheNewOneFirstSoFaultToleranceNeverDrops() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3)), List.of(want(1), want(2), want(4)), "3.5.16");
        assertEquals(List.of("add learner h4", "start h4", "promote h4", "remove h3"), lines(plan));
    }

    @Test
    void aRebuiltHostAtTheSamePeerUrlIsRemovedBeforeItIsAddedAgain() {
        // h3's disk was wiped and the host renamed h3b: same address, so same peer URL.
        Desired rebuilt = new Desired("h3b", url(3));
        MembershipPlan plan = MembershipPlan.plan(List.of(voter(1), voter(2), leader(3)), List.of(want(1), want(2), rebuilt), "3.5.16");
        assertEquals(List.of("hand off leadership from h3", "remove h3", "add learner h3b", "start h3b", "promote h3b"), lines(plan));
    }

    @Test
    void aMemberWhoseDataIsGoneIsRemovedAndJoinsAfreshAtTheSameAddress() {
        Current wiped = new Current("id2", "h2", url(2), false, false, false, true);
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), wiped, voter(3)), List.of(want(1), want(2), want(3)), "3.5.16");
        assertEquals(List.of("remove h2", "add learner h2", "start h2", "promote h2"), lines(plan));
        assertEquals("its data directory is gone: it is removed and joins afresh", ((Change.Remove) plan.changes().get(0)).why());
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void anInterruptedJoinIsResumedWithoutAddingTheLearnerAgain() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3), unstartedLearner(4)),
                List.of(want(1), want(2), want(3), want(4), want(5)), "3.5.16");
        assertEquals(List.of("start h4", "promote h4", "add learner h5", "start h5", "promote h5"), lines(plan));
    }

    @Test
    void aLearnerThatRunsAsItselfIsOnlyPromotedNeitherAddedNorStartedAgain() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3), runningLearner(4)),
                List.of(want(1), want(2), want(3), want(4), want(5)), "3.5.16");
        assertEquals(List.of("promote h4", "add learner h5", "start h5", "promote h5"), lines(plan));
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void aLearnerThatRunsIsPromotedEvenWhenItComesFirstInTheSpec() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), runningLearner(2)), List.of(want(2), want(1), want(3)), "3.4.23");
        assertEquals(List.of("promote h2", "add learner h3", "start h3", "promote h3"), lines(plan));
    }

    @Test
    void aStartedLearnerThatDoesNotAnswerIsRemovedAndJoinsAfresh() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3), stoppedLearner(4)),
                List.of(want(1), want(2), want(3), want(4)), "3.5.16");
        assertEquals(List.of("remove h4", "add learner h4", "start h4", "promote h4"), lines(plan));
        assertTrue(((Change.Remove) plan.changes().get(0)).why().startsWith("a learner that was started but does not answer"),
                plan.changes().toString());
        assertEquals(List.of(), plan.refusals());
    }

    @Test
    void aLearnerWhoseHostLostItsDataIsRemovedAndJoinsAfresh() {
        Current lost = new Current("id4", "h4", url(4), true, false, false, true);
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3), lost),
                List.of(want(1), want(2), want(3), want(4)), "3.5.16");
        assertEquals(List.of("remove h4", "add learner h4", "start h4", "promote h4"), lines(plan));
        assertEquals("a learner whose data directory is gone: it is removed and joins afresh",
                ((Change.Remove) plan.changes().get(0)).why());
    }

    @Test
    void aLearnerNobodyWantsIsRemovedFirstBecauseItHoldsTheOnlyLearnerSlot() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3), unstartedLearner(9)),
                List.of(want(1), want(2), want(3), want(4)), "3.5.16");
        assertEquals(List.of("remove id9", "add learner h4", "start h4", "promote h4"), lines(plan));
        assertEquals("a learner that is not in the spec", ((Change.Remove) plan.changes().get(0)).why());
    }

    @Test
    void withoutQuorumNothingIsPlannedAndTheWayOutIsARestore() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), down(2), down(3)), List.of(want(1), want(4), want(5)), "3.5.16");
        assertEquals(List.of(), plan.changes());
        Refusal.DownVoter.Way repair = Refusal.DownVoter.Way.REPAIR;
        assertEquals(List.of(new Refusal.QuorumLost(List.of("h1"), List.of(new Refusal.DownVoter("h2", "does not answer", repair),
                new Refusal.DownVoter("h3", "does not answer", repair)), List.of("h1", "h2", "h3"),
                "'etcdwright backups list' shows the backups a store holds")), plan.refusals());
        assertEquals("quorum lost: only 1 of the 3 voting members answer (h1), and a quorum is 2; down: h2 (does not answer);"
                + " h3 (does not answer). Without quorum the cluster commits no write, and a membership change is a write: no"
                + " member can be removed, replaced or added now", plan.refusals().get(0).what());
        assertEquals("(1) bring 1 more voting member back: repair etcd on h2, h3 ('etcdwright status' and the etcd journal"
                + " there say why it does not answer). With the hosts back, apply with the spec's members as the cluster has"
                + " them (h1, h2, h3) starts etcd where it is stopped; change the membership once quorum is back; or (2) if"
                + " they are lost for good, rebuild the cluster from a backup with 'etcdwright restore --from BACKUP': list the"
                + " hosts that answer, and new hosts in place of the lost ones, as the spec's members (restore moves each"
                + " listed member's old data aside); 'etcdwright backups list' shows the backups a store holds",
                plan.refusals().get(0).whatToDo());
    }

    @Test
    void aRemovalThatWouldLeaveTooFewHealthyVotersIsRefused() {
        // h3 is down and stays wanted; removing healthy h2 would leave h1 and a dead h3: 1 of 2.
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), down(3)), List.of(want(1), want(3)), "3.5.30");
        assertEquals(List.of(), plan.changes());
        assertEquals(List.of(new Refusal.RemovalWouldLoseQuorum("h2", List.of("h1"), List.of("h3"))), plan.refusals());
        Refusal r = plan.refusals().get(0);
        assertTrue(r.what().equals("removing h2 would leave 1 healthy of 2 voting members (healthy: h1; down: h3),"
                + " fewer than the 2 a quorum needs"), r.what());
        assertTrue(r.whatToDo().startsWith("repair h3 first"), r.whatToDo());
    }

    @Test
    void aRemovalRefusalNamesEveryVoterLeftAndAMemberWithoutANameByItsId() {
        // Five voters, two down and staying; removing two healthy ones would leave h1 with h4, h5 down.
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3), down(4), down(5)),
                List.of(want(1), want(4), want(5)), "3.5.30");
        Refusal.RemovalWouldLoseQuorum r = (Refusal.RemovalWouldLoseQuorum) plan.refusals().get(0);
        assertEquals(List.of("h1", "h3"), r.healthyAfter());
        assertEquals(List.of("h4", "h5"), r.downAfter());
        assertTrue(r.what().contains("(healthy: h1, h3; down: h4, h5)"), r.what());
    }

    @Test
    void beforeEtcd3530ADownMemberThatStaysBlocksAddsAndSaysSo() {
        List<Current> now = List.of(leader(1), voter(2), down(3));
        List<Desired> wanted = List.of(want(1), want(2), want(3), want(4), want(5));
        List<Refusal> refused = MembershipPlan.plan(now, wanted, "3.5.16").refusals();
        assertEquals(List.of(new Refusal.AddBlockedByDownMember(List.of("h3"), List.of("h4", "h5"), "3.5.16")), refused);
        assertEquals("voting member h3 is down and stays in the spec; etcd 3.5.16 refuses to add members (here h4, h5)"
                + " while any voting member is down (fixed in 3.5.30)", refused.get(0).what());
        assertEquals("bring h3 back first, or take it out of the spec so that it is removed before h4, h5 are added",
                refused.get(0).whatToDo());
        assertEquals(List.of(new Refusal.AddBlockedByDownMember(List.of("h3"), List.of("h4", "h5"), "3.4.23")),
                MembershipPlan.plan(now, wanted, "3.4.23").refusals());
        assertEquals(List.of(), MembershipPlan.plan(now, wanted, "3.5.30").refusals());
    }

    @Test
    void everyDownVoterThatStaysIsNamedAsBlockingTheAdd() {
        List<Current> now = List.of(leader(1), voter(2), voter(3), down(4), down(5));
        Refusal r = MembershipPlan.plan(now, List.of(want(1), want(2), want(3), want(4), want(5), want(6)), "3.4.23")
                .refusals().get(0);
        assertEquals(new Refusal.AddBlockedByDownMember(List.of("h4", "h5"), List.of("h6"), "3.4.23"), r);
        assertTrue(r.what().startsWith("voting members h4, h5 are down and stay in the spec"), r.what());
        assertTrue(r.whatToDo().startsWith("bring h4, h5 back first, or take them out"), r.whatToDo());
    }

    @Test
    void aQuorumLostRefusalNamesAMemberWithoutANameByItsId() {
        Current unnamedDown = new Current("id3", "", url(3), false, false, false);
        Refusal r = MembershipPlan.plan(List.of(leader(1), down(2), unnamedDown), List.of(want(1)), "3.5.16").refusals().get(0);
        assertEquals(List.of("h2", "id3"), ((Refusal.QuorumLost) r).down().stream().map(Refusal.DownVoter::name).toList());
    }

    @Test
    void shrinkingToAnEvenSizeIsPlannedLikeAnyOther() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), voter(3)), List.of(want(1), want(2)), "3.5.16");
        assertEquals(List.of("remove h3"), lines(plan));
        assertEquals("not in the spec", ((Change.Remove) plan.changes().get(0)).why());
    }

    @Test
    void aDownMemberIsSaidToBeReplacedWhenANewMemberTakesItsPlace() {
        MembershipPlan plan = MembershipPlan.plan(List.of(leader(1), voter(2), down(3)), List.of(want(1), want(2), want(4)), "3.5.16");
        assertEquals("down, and not in the spec", ((Change.Remove) plan.changes().get(0)).why());
        Desired rebuilt = new Desired("h3", "https://10.0.0.33:2380");
        MembershipPlan moved = MembershipPlan.plan(List.of(leader(1), voter(2), down(3)), List.of(want(1), want(2), rebuilt), "3.5.16");
        assertEquals(List.of("remove h3", "add learner h3", "start h3", "promote h3"), lines(moved));
        assertEquals("down, and replaced", ((Change.Remove) moved.changes().get(0)).why());
    }

    @Test
    void shrinkingToOneKeepsTheMemberWanted() {
        MembershipPlan plan = MembershipPlan.plan(List.of(voter(1), voter(2), leader(3)), List.of(want(1)), "3.5.16");
        assertEquals(List.of("remove h2", "hand off leadership from h3", "remove h3"), lines(plan));
        assertEquals(List.of(), plan.refusals());
    }
}
