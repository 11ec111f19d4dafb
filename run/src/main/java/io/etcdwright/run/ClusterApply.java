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
 * by hand: its lock, its refusals, its safety snapshot.
 */
public final class ClusterApply {
    /** What came of the apply. */
    public sealed interface Outcome {
        /** The plan made under the lock. */
        Plan plan();

        /** Nothing can be changed safely: the plan says why; nothing was run. */
        record Refused(Plan plan) implements Outcome {
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

    private ClusterApply() {
    }

    /**
     * Applies {@code run}'s desired state under its lock, taken for {@code command}.
     *
     * @param newClusterToken a new cluster's token fixed by a saved plan (empty: one is made)
     */
    public static Outcome apply(ClusterRun run, String command, LockSettings lock, PlanSettings settings,
                                Optional<String> newClusterToken, Review review, Listener listener) {
        Consumer<String> notes = listener::note;
        try (LockedRun locked = run.lock(command, lock, notes)) {
            Plan plan = locked.converge(settings, newClusterToken);
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
}
