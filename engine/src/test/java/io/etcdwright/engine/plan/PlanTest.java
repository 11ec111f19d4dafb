package io.etcdwright.engine.plan;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanTest {
    static Step step(String host, String id, String reason, String... after) {
        return Step.on(host, "test", id).kind(ChangeKind.CREATE).summary("do " + id).reason(reason)
                .after(List.of(after)).does(ctx -> Outcome.CHANGED);
    }

    @Test
    void stepsMayOnlyWaitForEarlierSteps() {
        Step a = step("h1", "a", "why");
        Step b = step("h1", "b", "why", "h1/a");
        new Plan("c", List.of(a, b), List.of(), List.of());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new Plan("c", List.of(b, a), List.of(), List.of()));
        assertTrue(e.getMessage().contains("h1/b waits for h1/a"));
        assertThrows(IllegalStateException.class, () -> new Plan("c", List.of(a, a), List.of(), List.of()));
    }

    @Test
    void theFingerprintChangesWithWhatAStepWouldDoOrWasPlannedFrom() {
        Plan one = new Plan("c", List.of(step("h1", "a", "missing")), List.of(), List.of());
        Plan same = new Plan("c", List.of(step("h1", "a", "missing")), List.of(), List.of());
        Plan other = new Plan("c", List.of(step("h1", "a", "content differs")), List.of(), List.of());
        assertEquals(one.fingerprint(), same.fingerprint());
        assertNotEquals(one.fingerprint(), other.fingerprint());
    }

    @Test
    void linesReadLikeTerraform() {
        assertEquals("+ do a (missing)", step("h1", "a", "missing").line());
        assertEquals("h1", step("h1", "a", "").target());
        assertEquals("cluster", Step.cluster("m", "x").does(ctx -> Outcome.OK).target());
    }
}
