package io.etcdwright.engine.plan;

/**
 * Something that must hold for a step, judged when the step runs rather than when it was planned:
 * a plan may be applied minutes later, or resumed after an interruption, and the world moves.
 * A precondition guards the step (the step does nothing when it fails); a postcondition is its
 * readiness (the step has succeeded only once it holds, so later steps build on a settled state).
 */
public interface Condition {
    /** What must hold, for the plan and the operator: "every other member healthy". */
    String description();

    /**
     * Checks it now; a readiness condition may wait for it within its own timeout.
     *
     * @throws ConditionNotMetException when it does not hold, saying why and what to do
     */
    void verify(StepContext context) throws Exception;
}
