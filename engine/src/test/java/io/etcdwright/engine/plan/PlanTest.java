package io.etcdwright.engine.plan;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanTest {
    static Step step(String host, String id, String reason, Step... after) {
        return step(host, id, reason, "observed", after);
    }

    static Step step(String host, String id, String reason, String observed, Step... after) {
        return Step.on(host, "test", id).safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.CREATE).summary("do " + id).reason(reason).observed(observed)
                .after(after).does(ctx -> Outcome.CHANGED);
    }

    @Test
    void stepsMayOnlyWaitForEarlierSteps() {
        Step a = step("h1", "a", "why");
        Step b = step("h1", "b", "why", a);
        assertEquals(List.of("h1/a"), b.after());
        new Plan("c", List.of(a, b), List.of(), List.of());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new Plan("c", List.of(b, a), List.of(), List.of()));
        assertTrue(e.getMessage().contains("h1/b waits for h1/a"));
        assertThrows(IllegalStateException.class, () -> new Plan("c", List.of(a, a), List.of(), List.of()));
    }

    @Test
    void theFingerprintChangesWithWhatAStepWouldDoOrWasPlannedFrom() {
        Plan one = new Plan("c", List.of(step("h1", "a", "missing")), List.of(), List.of());
        Plan same = new Plan("c", List.of(step("h1", "a", "missing")), List.of(), List.of());
        Plan otherFacts = new Plan("c", List.of(step("h1", "a", "missing", "other digest")), List.of(), List.of());
        Plan otherStep = new Plan("c", List.of(step("h1", "b", "missing")), List.of(), List.of());
        assertEquals(one.fingerprint(), same.fingerprint());
        assertNotEquals(one.fingerprint(), otherFacts.fingerprint());
        assertNotEquals(one.fingerprint(), otherStep.fingerprint());
    }

    @Test
    void theFingerprintIgnoresProseButNotTheFileToBeWritten() {
        Plan one = new Plan("c", List.of(step("h1", "a", "missing")), List.of(), List.of());
        Plan reworded = new Plan("c", List.of(step("h1", "a", "not there yet")), List.of(), List.of());
        assertEquals(one.fingerprint(), reworded.fingerprint());
        Step writesA = Step.on("h1", "test", "a").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.CREATE).observed("observed")
                .diff(new FileDiff("/etc/etcd/etcd.conf.yml", "", "name: a\n")).does(ctx -> Outcome.CHANGED);
        Step writesB = Step.on("h1", "test", "a").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.CREATE).observed("observed")
                .diff(new FileDiff("/etc/etcd/etcd.conf.yml", "", "name: b\n")).does(ctx -> Outcome.CHANGED);
        assertNotEquals(new Plan("c", List.of(writesA), List.of(), List.of()).fingerprint(),
                new Plan("c", List.of(writesB), List.of(), List.of()).fingerprint());
    }

    @Test
    void aRefusedPlanHasEveryReasonAndNoStep() {
        Refusal down = new Refusal("unreachable-host", "h2", "unreachable (connection refused)", "bring it back");
        Refusal quorum = new Refusal("no-quorum", "cluster c", "2 of 3 voters are down", "start them");
        Plan refused = Plan.refused("c", List.of(down, quorum), List.of());
        assertTrue(refused.isRefused());
        assertEquals(2, refused.refusals().size());
        assertEquals("h2: unreachable (connection refused). What to do: bring it back", down.line());
        assertThrows(IllegalStateException.class, () -> new Plan("c", List.of(step("h1", "a", "x")), List.of(down), List.of()));
    }

    @Test
    void linesReadLikeTerraform() {
        assertEquals("+ do a (missing)", step("h1", "a", "missing").line());
        assertEquals("h1", step("h1", "a", "").target());
        assertEquals("cluster", Step.cluster("m", "x").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).does(ctx -> Outcome.OK).target());
    }
}
