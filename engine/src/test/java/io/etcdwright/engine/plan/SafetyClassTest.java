package io.etcdwright.engine.plan;

import io.etcdwright.engine.output.Json;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SafetyClassTest {
    @Test
    void aStepNobodyClassifiedNeverReachesAPlan() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Step.on("h1", "test", "start").kind(ChangeKind.ACTION).does(ctx -> Outcome.OK));
        assertTrue(e.getMessage().contains("step h1/start has no safety class"), e.getMessage());
        // A floor does not classify it either: only the planner that builds it may say.
        assertThrows(IllegalStateException.class,
                () -> Step.on("h1", "test", "start").atLeast(SafetyClass.NEVER).does(ctx -> Outcome.OK));
    }

    @Test
    void theStricterOfTwoWinsAndAFloorOnlyRaises() {
        assertEquals(SafetyClass.REPAIR, SafetyClass.ROUTINE.stricter(SafetyClass.REPAIR));
        assertEquals(SafetyClass.NEVER, SafetyClass.NEVER.stricter(SafetyClass.CHANGE));
        assertEquals(SafetyClass.CHANGE, SafetyClass.strictest(List.of(SafetyClass.ROUTINE, SafetyClass.CHANGE), SafetyClass.ROUTINE));
        assertEquals(SafetyClass.ROUTINE, SafetyClass.strictest(List.of(), SafetyClass.ROUTINE));
        Step routine = Step.on("h1", "test", "start").safety(SafetyClass.ROUTINE).does(ctx -> Outcome.OK);
        Step change = Step.on("h1", "test", "config").safety(SafetyClass.CHANGE).does(ctx -> Outcome.OK);
        assertEquals(SafetyClass.NEVER, routine.atLeast(SafetyClass.NEVER).safety());
        assertSame(change, change.atLeast(SafetyClass.REPAIR), "a floor below its class leaves the step as it is");
        assertEquals(SafetyClass.CHANGE, Step.on("h1", "test", "x").safety(SafetyClass.CHANGE).atLeast(SafetyClass.ROUTINE)
                .does(ctx -> Outcome.OK).safety());
        Plan plan = new Plan("c", List.of(routine, change), List.of(), List.of()).atLeast(SafetyClass.REPAIR);
        assertEquals(List.of(SafetyClass.REPAIR, SafetyClass.CHANGE), plan.steps().stream().map(Step::safety).toList());
    }

    @Test
    void labelsAreTheLowerCaseNamesInJsonAndInTheSpec() {
        assertEquals(Optional.of(SafetyClass.REPAIR), SafetyClass.of("repair"));
        assertEquals(Optional.empty(), SafetyClass.of("REPAIR"));
        Step step = Step.on("h1", "test", "start").safety(SafetyClass.ROUTINE).does(ctx -> Outcome.OK);
        assertTrue(Json.write(step).matches("(?s).*\"safety\" *: *\"routine\".*"), Json.write(step));
    }

    /** The class is derived from the facts the fingerprint already covers: it is not part of it. */
    @Test
    void theClassIsNotPartOfTheFingerprint() {
        Step routine = Step.on("h1", "test", "start").safety(SafetyClass.ROUTINE).observed("x").does(ctx -> Outcome.OK);
        Plan plan = new Plan("c", List.of(routine), List.of(), List.of());
        assertEquals(plan.fingerprint(), plan.atLeast(SafetyClass.NEVER).fingerprint());
    }
}
