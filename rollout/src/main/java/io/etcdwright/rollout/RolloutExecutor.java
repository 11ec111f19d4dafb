package io.etcdwright.rollout;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.run.ClusterApply;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.LockSettings;
import io.etcdwright.run.PlanSettings;
import io.etcdwright.run.ReviewedPlan;
import io.etcdwright.run.rollout.FailureBudget;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * Walks a rollout's waves from its record: in each wave, up to {@code parallel} clusters at once,
 * each applied as the single-cluster apply does ({@link ClusterApply}: its lock, refusals and
 * snapshot), then gated on etcd's health ({@link HealthGate}) {@code validateCount} times, soaked
 * and checked once more. Every change of a cluster's state is written to the record before the
 * work it names starts, so a rollout killed anywhere resumes where it stopped: clusters done are
 * not applied again, the one in progress is applied again (its apply converges). A wave whose
 * failures exceed the budget stops the rollout; later waves are not touched.
 */
public final class RolloutExecutor {
    /** How the executor waits (a test's waits need not be real). */
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    /** What {@link #run} does on one cluster: its apply. */
    public interface ClusterWork {
        /**
         * Applies {@code desired}; empty when it ended as the spec says, else why not.
         *
         * @param reviewed in a saved rollout, the cluster's reviewed plan, which its plan under the lock must be
         */
        Optional<String> apply(DesiredState desired, Optional<ReviewedPlan> reviewed, ClusterStats stats);
    }

    /** What the apply of one cluster counts for the report. */
    public static final class ClusterStats {
        int steps;

        /** Steps the cluster's apply ran. */
        public int steps() {
            return steps;
        }
    }

    private final RolloutRecords records;
    private final Map<String, DesiredState> clusters;
    private final ClusterWork work;
    private final Gate gate;
    private final RolloutListener listener;
    private final Sleeper sleeper;

    /** The gate a cluster passes: empty when it does, else each reason it does not. */
    public interface Gate {
        List<String> problems(DesiredState desired);
    }

    public RolloutExecutor(RolloutRecords records, Map<String, DesiredState> clusters, ClusterWork work, Gate gate,
                           RolloutListener listener, Sleeper sleeper) {
        this.records = records;
        this.clusters = Map.copyOf(clusters);
        this.work = work;
        this.gate = gate;
        this.listener = listener;
        this.sleeper = sleeper;
    }

    /** The executor of a real rollout: each cluster applied by {@link ClusterApply} under its own lock. */
    public static RolloutExecutor of(RolloutRecords records, Map<String, DesiredState> clusters, ConnectionSettings connection,
                                     LockSettings lock, PlanSettings planSettings, RolloutListener listener, String id) {
        ClusterWork apply = (desired, reviewed, stats) -> {
            try (ClusterRun run = ClusterRun.of(desired, connection)) {
                return failureOf(ClusterApply.apply(run, "rollout " + id, lock, planSettings, reviewed, plan -> Optional.empty(),
                        shownAs(desired.spec().name(), listener)), stats);
            }
        };
        return new RolloutExecutor(records, clusters, apply, new HealthGate(connection, planSettings, HealthGate.ETCD_TIMEOUT)::problems,
                listener, d -> Thread.sleep(d.toMillis()));
    }

    /** A cluster's apply as the rollout shows it: its lines prefixed with its name. */
    public static ClusterApply.Listener shownAs(String name, RolloutListener listener) {
        return new ClusterApply.Listener() {
            @Override
            public void note(String line) {
                listener.line(name + ": " + line);
            }

            @Override
            public void planned(Plan plan) {
                listener.planned(name, plan);
            }

            @Override
            public ProgressListener progress() {
                return listener.progress(name);
            }
        };
    }

    /**
     * What a cluster's apply ({@link ClusterApply}) counts for the rollout: empty when it ended as its
     * spec says, else why not (a failure, counted against its wave's budget). A saved rollout's cluster
     * whose plan under the lock is not its reviewed one fails without a step run.
     */
    public static Optional<String> failureOf(ClusterApply.Outcome outcome, ClusterStats stats) {
        if (outcome instanceof ClusterApply.Outcome.Stale stale) {
            return Optional.of("not applied: its plan is not the one saved with the rollout: " + stale.why());
        }
        if (outcome instanceof ClusterApply.Outcome.Refused refused) {
            return Optional.of("refused: " + refused.plan().refusals().stream().map(r -> r.line())
                    .collect(Collectors.joining("; ")));
        }
        if (outcome instanceof ClusterApply.Outcome.NotApproved declined) {
            return Optional.of("not applied: " + declined.why());
        }
        if (outcome instanceof ClusterApply.Outcome.Applied applied) {
            Recap recap = applied.recap();
            stats.steps = recap.results().size();
            if (!recap.succeeded()) {
                return Optional.of(recap.results().stream().filter(r -> r.status() == StepResult.Status.FAILED
                                || r.status() == StepResult.Status.UNREACHABLE)
                        .map(r -> r.step().id() + " failed" + r.error().map(e -> ": " + e).orElse(""))
                        .collect(Collectors.joining("; ")));
            }
        }
        return Optional.empty();
    }

    /**
     * Drives rollout {@code id} from where its record says it is, until it is done, stopped by its
     * budget, paused after a wave or aborted; returns the record as it was left.
     */
    public RolloutRecord run(String id, String driver) {
        RolloutRecord record = records.update(id, r -> {
            if (!r.state().resumable()) {
                throw new IllegalStateException("rollout " + id + " is " + r.state().label() + r.reason().map(w -> " (" + w + ")").orElse("")
                        + ": it is not resumed; start a new rollout for what is left");
            }
            return r.withState(RolloutState.RUNNING, Optional.empty()).drivenBy(driver);
        });
        FailureBudget budget = FailureBudget.parse(record.settings().maxFailures());
        int waves = record.waveCount();
        for (int wave = 1; wave <= waves; wave++) {
            record = records.read(id).orElseThrow();
            if (record.state() == RolloutState.ABORTED) {
                return skipTheRest(id);
            }
            List<RolloutRecord.Cluster> members = record.wave(wave);
            List<RolloutRecord.Cluster> todo = members.stream().filter(c -> c.state() != ClusterState.DONE).toList();
            if (members.isEmpty()) {
                // A shard's record holds its own wave only: the waves before it passed their gate elsewhere.
                continue;
            }
            if (todo.isEmpty()) {
                continue;
            }
            listener.line("wave " + wave + "/" + waves + ": " + todo.stream().map(RolloutRecord.Cluster::name)
                    .collect(Collectors.joining(", ")) + (todo.size() < members.size() ? " (the others are done)" : ""));
            runWave(id, todo, record.settings());
            record = records.read(id).orElseThrow();
            long failed = record.wave(wave).stream().filter(c -> c.state() == ClusterState.FAILED).count();
            if (budget.exceeded((int) failed, members.size())) {
                String why = "wave " + wave + ": " + failed + " of " + members.size() + " clusters failed, more than its budget ("
                        + record.settings().maxFailures() + "); later waves are untouched. Fix the cause, then 'etcdwright rollout resume "
                        + id + "'";
                listener.line("stopped: " + why);
                return records.update(id, r -> r.withState(RolloutState.STOPPED, Optional.of(why)));
            }
            if (record.state() == RolloutState.ABORTED) {
                return skipTheRest(id);
            }
            if (record.settings().pauseAfterWave() && wave < waves) {
                String why = "paused after wave " + wave + " as asked: 'etcdwright rollout resume " + id + "' starts wave " + (wave + 1);
                listener.line(why);
                return records.update(id, r -> r.withState(RolloutState.PAUSED, Optional.of(why)));
            }
        }
        listener.line("done: every wave ran");
        return records.update(id, r -> r.withState(RolloutState.DONE, Optional.empty()));
    }

    private RolloutRecord skipTheRest(String id) {
        listener.line("aborted: the clusters not started are skipped and untouched");
        RolloutRecord record = records.read(id).orElseThrow();
        for (RolloutRecord.Cluster c : record.clusters()) {
            if (c.state() == ClusterState.WAITING) {
                record = records.update(id, r -> r.withCluster(c.name(), x -> x.with(ClusterState.SKIPPED)));
            }
        }
        return record;
    }

    private void runWave(String id, List<RolloutRecord.Cluster> todo, RolloutRecord.Settings settings) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(settings.parallel(), todo.size())), r -> {
            Thread t = new Thread(r, "etcdwright-rollout");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> running = new ArrayList<>();
            for (RolloutRecord.Cluster c : todo) {
                running.add(pool.submit(() -> runCluster(id, c.name(), settings)));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private void runCluster(String id, String name, RolloutRecord.Settings settings) {
        if (records.read(id).orElseThrow().state() == RolloutState.ABORTED) {
            return;
        }
        DesiredState desired = clusters.get(name);
        long started = System.nanoTime();
        RolloutRecord.Cluster recorded = state(id, name, ClusterState.APPLYING, Optional.empty(), 0, 0);
        ClusterStats stats = new ClusterStats();
        Optional<String> failure;
        try {
            failure = work.apply(desired, recorded.reviewed(), stats);
        } catch (RuntimeException e) {
            failure = Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
        }
        if (failure.isEmpty()) {
            state(id, name, ClusterState.VALIDATING, Optional.empty(), stats.steps, seconds(started));
            failure = validate(name, desired, settings.validateCount(), settings.validateInterval());
        }
        if (failure.isEmpty() && !settings.soak().isZero()) {
            state(id, name, ClusterState.SOAKING, Optional.empty(), stats.steps, seconds(started));
            try {
                sleeper.sleep(settings.soak());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            failure = validate(name, desired, 1, Duration.ZERO).map(p -> "after the soak: " + p);
        }
        if (failure.isPresent()) {
            state(id, name, ClusterState.FAILED, failure, stats.steps, seconds(started));
        } else {
            state(id, name, ClusterState.DONE, Optional.empty(), stats.steps, seconds(started));
        }
    }

    /** The gate checked {@code count} times, {@code interval} apart: the first failing check's problems, or empty. */
    private Optional<String> validate(String name, DesiredState desired, int count, Duration interval) {
        for (int i = 1; i <= count; i++) {
            List<String> problems = gate.problems(desired);
            if (!problems.isEmpty()) {
                return Optional.of("health gate, check " + i + " of " + count + ": " + String.join("; ", problems));
            }
            listener.line(name + ": health gate passed (check " + i + " of " + count + ")");
            if (i < count) {
                try {
                    sleeper.sleep(interval);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.of("interrupted");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Records {@code name}'s new state; {@code steps} and {@code seconds} are this run's, added to
     * what earlier runs of it (before a resume) recorded.
     */
    private RolloutRecord.Cluster state(String id, String name, ClusterState state, Optional<String> error, int steps, double seconds) {
        RolloutRecord written = records.update(id, r -> r.withCluster(name, c -> c.with(state, error, base(c, steps), base(c, seconds))));
        listener.line(name + ": " + state.label() + error.map(e -> ": " + e).orElse(""));
        return written.cluster(name).orElseThrow();
    }

    /** What the earlier runs of the cluster recorded, kept while this run's state is written. */
    private final Map<String, double[]> earlier = new java.util.concurrent.ConcurrentHashMap<>();

    private int base(RolloutRecord.Cluster c, int steps) {
        return (int) earlier.computeIfAbsent(c.name(), n -> new double[] {c.steps(), c.seconds()})[0] + steps;
    }

    private double base(RolloutRecord.Cluster c, double seconds) {
        return earlier.computeIfAbsent(c.name(), n -> new double[] {c.steps(), c.seconds()})[1] + seconds;
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }
}
