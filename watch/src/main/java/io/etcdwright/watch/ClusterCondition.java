package io.etcdwright.watch;


import java.time.Instant;

/**
 * The cluster's condition as one cycle's decision leaves it, for {@code watch status}, {@code status
 * -o json} and metrics. When several hold, the first of this order is the condition: Suspended,
 * Failed, Held, Degraded, Drifted, Healthy (what needs a person before what the watcher handles).
 */
public sealed interface ClusterCondition {
    /** {@code Healthy}: the name of the condition, for JSON and metrics. */
    default String name() {
        return getClass().getSimpleName();
    }

    /** A person suspended the watchers: nothing runs until {@code watch resume}. */
    record Suspended(String by, Instant at, String reason) implements ClusterCondition {
    }

    /** A step failed under the facts the plan still has: held until they change or a person applies. */
    record Failed(String stepId, String error) implements ClusterCondition {
    }

    /** Something is held for a person or a time (the first hold, with its reason and command). */
    record Held(Hold hold) implements ClusterCondition {
        public String reason() {
            return hold.reason();
        }

        public String command() {
            return hold.command();
        }
    }

    /** A voter is not healthy, and the watcher repairs it this cycle or a later one (nothing is held). */
    record Degraded(int healthy, int voters) implements ClusterCondition {
    }

    /** Every voter is healthy and the plan has steps (or drift no step fixes): the watcher puts the spec back. */
    record Drifted(int steps) implements ClusterCondition {
    }

    /** The plan is empty: the cluster is as the spec says. */
    record Healthy() implements ClusterCondition {
    }

}
