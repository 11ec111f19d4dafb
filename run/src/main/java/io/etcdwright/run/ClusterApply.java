package io.etcdwright.run;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.plan.Plan;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * One cluster's apply, the one way there is: the lock taken, the plan made under it from fresh
 * facts (facts gathered before it could be another run's half-way state), a refused plan stopped,
 * an empty one done, the rest reviewed and applied. {@code apply} runs it for one cluster and a
 * rollout for each cluster of its waves, so a cluster applied in a rollout is applied exactly as
 * by hand: its lock, its refusals, its safety snapshot. A saved plan's apply ({@link ReviewedPlan})
 * is checked here too, under the lock, so a cluster whose hosts changed since the review is not applied.
 */
public final class ClusterApply {
    /** What came of the apply. */
    public sealed interface Outcome {
        /** The plan made under the lock. */
        Plan plan();

        /** Nothing can be changed safely: the plan says why; nothing was run. */
        record Refused(Plan plan) implements Outcome {
        }

        /**
         * The plan made under the lock is not the reviewed one ({@link ReviewedPlan#staleness}): the hosts
         * changed since it was saved; nothing was run.
         */
        record Stale(Plan plan, String why) implements Outcome {
        }

        /** The cluster is as the spec says: nothing to run. */
        record UpToDate(Plan plan) implements Outcome {
        }

        /** The review stopped it before any step ran ({@code why}: for the operator). */
        record NotApproved(Plan plan, String why) implements Outcome {
        }

        /** The steps ran; the recap says how each went. */
        record Applied(Plan plan, Recap recap) implements Outcome {
        }
    }

    /** Looks at the plan before any step runs: empty to go on, or why not (a question declined). May throw to refuse. */
    public interface Review {
        Optional<String> review(Plan plan);
    }

    /** What the caller shows: the lock's lines, the plan once made, each step's progress. */
    public interface Listener {
        void note(String line);

        void planned(Plan plan);

        ProgressListener progress();
    }

    /**
     * A cluster while its lock is held: planned from facts gathered now, and applied.
     * {@link LockedRun} is the one there is; a test's plans from recorded facts.
     */
    public interface Locked {
        Plan converge(PlanSettings settings, Optional<String> newClusterToken);

        Recap apply(Plan plan, ProgressListener progress);
    }

    private ClusterApply() {
    }

    /**
     * Applies {@code run}'s desired state under its lock, taken for {@code command}.
     *
     * @param reviewed the saved plan this apply must find again (its new cluster's token planned with),
     *                 or empty to apply what is planned now
     */
    public static Outcome apply(ClusterRun run, String command, LockSettings lock, PlanSettings settings,
                                Optional<ReviewedPlan> reviewed, Review review, Listener listener) {
        Consumer<String> notes = listener::note;
        try (LockedRun locked = run.lock(command, lock, notes)) {
            return underLock(locked, settings, reviewed, review, listener);
        }
    }

    /** What {@link #apply} does once the lock is held: plan, check, review, apply. */
    public static Outcome underLock(Locked locked, PlanSettings settings, Optional<ReviewedPlan> reviewed, Review review,
                                    Listener listener) {
        Plan plan = locked.converge(settings, reviewed.flatMap(ReviewedPlan::newClusterToken));
        // Before anything is shown as what runs: a stale plan is not what the person reviewed.
        Optional<String> stale = reviewed.flatMap(r -> r.staleness(plan));
        if (stale.isPresent()) {
            return new Outcome.Stale(plan, stale.get());
        }
        listener.planned(plan);
        if (plan.isRefused()) {
            return new Outcome.Refused(plan);
        }
        if (!plan.hasChanges()) {
            return new Outcome.UpToDate(plan);
        }
        Optional<String> declined = review.review(plan);
        if (declined.isPresent()) {
            return new Outcome.NotApproved(plan, declined.get());
        }
        return new Outcome.Applied(plan, locked.apply(plan, listener.progress()));
    }
}
