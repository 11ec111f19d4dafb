package io.etcdwright.watch;

import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;

import java.util.List;
import java.util.Objects;

/**
 * What one cycle does with a plan ({@link Policy#decide}): the one group of steps it runs, the groups
 * that wait for a later cycle, the groups held and why, and the condition that leaves the cluster in.
 *
 * @param run       the steps to apply this cycle, in plan order (empty: nothing runs); one group: all
 *                  steps of one safety class whose prerequisites are in the group, then facts again
 * @param later     steps that could run, left for a later cycle (one group per cycle)
 * @param held      the groups held, each with its reason; a refused plan's is the only one, without steps
 * @param condition the cluster's condition this decision leaves it in
 */
public record Decision(List<Step> run, List<Step> later, List<Held> held, ClusterCondition condition) {
    public Decision {
        run = List.copyOf(run);
        later = List.copyOf(later);
        held = List.copyOf(held);
        Objects.requireNonNull(condition, "condition");
    }

    /**
     * Steps held for one reason: a group of one effective safety class. A refused plan's group has no
     * steps and the class never: only a person acts on it.
     */
    public record Held(SafetyClass safety, List<Step> steps, Hold why) {
        public Held {
            steps = List.copyOf(steps);
            Objects.requireNonNull(why, "why");
        }
    }

    public boolean acts() {
        return !run.isEmpty();
    }
}
