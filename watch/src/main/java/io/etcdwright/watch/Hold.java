package io.etcdwright.watch;

import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Why a group of steps is not run by the watcher this cycle, for a person and for a machine: each
 * reason says what it waits for ({@link #reason()}) and the exact command a person runs to act now
 * or to undo what holds it ({@link #command()}).
 */
public sealed interface Hold {
    /** What holds the steps, written for an operator at 3 a.m. */
    String reason();

    /** The command a person runs. */
    String command();

    /** A stable name for events and metrics: {@code not-allowed-class}. */
    String kind();

    /** The class is not in the spec's {@code automation.allow}: a spec edit waits for a person's apply. */
    record NotAllowedClass(SafetyClass safety, String command) implements Hold {
        public String reason() {
            return safety.label() + " steps run only when a person applies them (automation.allow does not name "
                    + safety.label() + ")";
        }

        public String kind() {
            return "not-allowed-class";
        }
    }

    /** A restore, a minor downgrade, a teardown: never unattended, whatever the spec allows. */
    record NeverClass(String command) implements Hold {
        public String reason() {
            return "never steps (a restore, a minor downgrade, a teardown, an interrupted one's leftovers) run only when a"
                    + " person applies them";
        }

        public String kind() {
            return "never-class";
        }
    }

    /** A re-join waits until the member has been down for {@code automation.repairAfterMinutes}: a reboot must not cost one. */
    record RepairNotYet(String host, Instant downSince, Duration repairAfter, Instant allowedAt, String command) implements Hold {
        public String reason() {
            return host + " down since " + downSince + "; a repair waits until it has been down " + repairAfter.toMinutes()
                    + " min (automation.repairAfterMinutes): allowed at " + allowedAt;
        }

        public String kind() {
            return "repair-not-yet";
        }
    }

    /**
     * A repair only while the other voters keep a quorum of the cluster as it is, and are at least two:
     * a cluster that would be left on a single healthy member (a two-member cluster's repair, or one
     * with another member down) has nothing to spare if the repair goes wrong.
     */
    record QuorumMargin(Set<String> repairing, Set<String> healthyOthers, int needed, String command) implements Hold {
        public String reason() {
            return "repairing " + String.join(", ", repairing) + " would leave " + healthyOthers.size() + " healthy voter"
                    + (healthyOthers.size() == 1 ? "" : "s") + " (" + String.join(", ", healthyOthers) + "), and an unattended repair"
                    + " needs " + needed + ": a quorum with a member to spare";
        }

        public String kind() {
            return "quorum-margin";
        }
    }

    /** A deny window of the spec is open for this class. */
    record InDenyWindow(SafetyClass safety, String schedule, Instant endsAt, String command) implements Hold {
        public String reason() {
            return safety.label() + " steps are denied by the window '" + schedule + "' (automation.windows) until " + endsAt;
        }

        public String kind() {
            return "in-deny-window";
        }
    }

    /** The spec has allow windows for this class and none is open. */
    record OutsideAllowWindow(SafetyClass safety, List<String> schedules, Optional<Instant> opensAt, String command) implements Hold {
        public String reason() {
            return safety.label() + " steps run only inside the allow window" + (schedules.size() == 1 ? " '" : "s '")
                    + String.join("', '", schedules) + "' (automation.windows)"
                    + opensAt.map(t -> "; the next opens at " + t).orElse("; none opens again");
        }

        public String kind() {
            return "outside-allow-window";
        }
    }

    /** The same step failed before under the same facts: no loop of retries. */
    record FailedBefore(String stepId, Instant at, String error, String command) implements Hold {
        public String reason() {
            return stepId + " failed at " + at + " (" + error + "); not retried until the facts change or a person applies";
        }

        public String kind() {
            return "failed-before";
        }
    }

    /** A person suspended the watchers of this cluster. */
    record Suspended(String by, Instant at, String why, String command) implements Hold {
        public String reason() {
            return "suspended by " + by + " at " + at + (why.isEmpty() ? "" : ": " + why);
        }

        public String kind() {
            return "suspended";
        }
    }

    /** The plan has refusals (quorum lost, a host unreachable, ...): nothing runs, the refusals say why. */
    record RefusedPlan(List<Refusal> refusals, String command) implements Hold {
        public RefusedPlan {
            refusals = List.copyOf(refusals);
            if (refusals.isEmpty()) {
                throw new IllegalArgumentException("a refused plan has refusals");
            }
        }

        public String reason() {
            return String.join("; ", refusals.stream().map(r -> r.subject() + ": " + r.what() + " (what to do: " + r.whatToDo()
                    + ")").toList());
        }

        public String kind() {
            return "refused-plan";
        }
    }

    /** Steps that wait for steps held for another reason: that reason's command unblocks them. */
    record AfterHeld(List<String> waitsFor, Hold prerequisite) implements Hold {
        public AfterHeld {
            waitsFor = List.copyOf(waitsFor);
        }

        public String reason() {
            return "waits for " + String.join(", ", waitsFor) + ", held: " + prerequisite.reason();
        }

        public String command() {
            return prerequisite.command();
        }

        public String kind() {
            return "after-held";
        }
    }
}
