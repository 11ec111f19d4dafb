package io.etcdwright.engine.exec;

import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.engine.ssh.SshTarget;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a plan: every step whose dependencies have succeeded may start, up to {@code forks} at
 * once, so independent hosts progress side by side while ordered work (rolling restarts) stays
 * ordered. A failed step skips everything that depends on it; nothing else is cancelled, so an
 * interrupted apply leaves each host either done or untouched by a step, and the next run
 * converges from there.
 */
public final class Executor {
    private final SshConnections connections;
    private final Map<String, SshTarget> targets;
    private final int forks;
    private final ProgressListener progress;
    /** Runs after each step's work and readiness, before it counts as done: the shared state's write-back. */
    private Runnable afterEachStep = () -> { };
    /** What steps produced, by step id, for the steps after them. */
    private final Map<String, Map<String, String>> outputs = new ConcurrentHashMap<>();

    public Executor(SshConnections connections, Map<String, SshTarget> targets, int forks, ProgressListener progress) {
        this.connections = connections;
        this.targets = Map.copyOf(targets);
        this.forks = Math.max(1, forks);
        this.progress = progress;
    }

    /**
     * Runs {@code hook} after each step's work and readiness, before the step counts as done (so
     * before the steps after it start): a hook that throws fails the step, with its message.
     */
    public Executor afterEachStep(Runnable hook) {
        this.afterEachStep = hook;
        return this;
    }

    public Recap run(Plan plan) {
        List<Step> pending = new ArrayList<>(plan.steps());
        Map<String, StepResult.Status> done = new HashMap<>();
        Set<String> running = new HashSet<>();
        List<StepResult> results = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(forks, r -> {
            Thread t = new Thread(r, "etcdwright-step");
            t.setDaemon(true);
            return t;
        });
        CompletionService<StepResult> completion = new ExecutorCompletionService<>(pool);
        try {
            while (!pending.isEmpty() || !running.isEmpty()) {
                boolean progressed = true;
                while (progressed) {
                    progressed = false;
                    for (Step step : List.copyOf(pending)) {
                        Readiness readiness = readiness(step, done);
                        if (readiness == Readiness.BLOCKED) {
                            pending.remove(step);
                            StepResult skipped = new StepResult(step, StepResult.Status.SKIPPED, Duration.ZERO,
                                    Optional.of("an earlier step it depends on did not succeed"));
                            done.put(step.id(), skipped.status());
                            results.add(skipped);
                            progress.finished(skipped);
                            progressed = true;
                        } else if (readiness == Readiness.READY && running.size() < forks) {
                            pending.remove(step);
                            running.add(step.id());
                            progress.started(step);
                            completion.submit(() -> execute(step));
                            progressed = true;
                        }
                    }
                }
                if (running.isEmpty()) {
                    if (!pending.isEmpty()) {
                        throw new IllegalStateException("plan cannot proceed: steps wait for each other " + pending);
                    }
                    break;
                }
                StepResult result = take(completion);
                running.remove(result.step().id());
                done.put(result.step().id(), result.status());
                results.add(result);
                progress.finished(result);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Recap(results);
    }

    private enum Readiness { READY, WAITING, BLOCKED }

    private static Readiness readiness(Step step, Map<String, StepResult.Status> done) {
        boolean allDone = true;
        for (String dependency : step.after()) {
            StepResult.Status status = done.get(dependency);
            if (status == null) {
                allDone = false;
            } else if (status != StepResult.Status.OK && status != StepResult.Status.CHANGED) {
                return Readiness.BLOCKED;
            }
        }
        return allDone ? Readiness.READY : Readiness.WAITING;
    }

    private StepResult execute(Step step) {
        long start = System.nanoTime();
        try {
            Context context = new Context(step);
            for (Condition before : step.preconditions()) {
                try {
                    before.verify(context);
                } catch (ConditionNotMetException e) {
                    return new StepResult(step, StepResult.Status.FAILED, since(start),
                            Optional.of("not started: " + before.description() + " does not hold: " + e.getMessage()));
                }
            }
            Outcome outcome = step.operation().run(context);
            for (Condition ready : step.postconditions()) {
                try {
                    ready.verify(context);
                } catch (ConditionNotMetException e) {
                    return new StepResult(step, StepResult.Status.FAILED, since(start),
                            Optional.of("done, but not ready: " + ready.description() + ": " + e.getMessage()));
                }
            }
            try {
                afterEachStep.run();
            } catch (RuntimeException e) {
                return new StepResult(step, StepResult.Status.FAILED, since(start),
                        Optional.of("done, but not recorded: " + e.getMessage()));
            }
            return new StepResult(step, outcome == Outcome.CHANGED ? StepResult.Status.CHANGED : StepResult.Status.OK,
                    since(start), Optional.empty());
        } catch (SshException e) {
            StepResult.Status status = e.reason() == SshException.Reason.TIMEOUT
                    ? StepResult.Status.FAILED : StepResult.Status.UNREACHABLE;
            return new StepResult(step, status, since(start), Optional.of(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new StepResult(step, StepResult.Status.FAILED, since(start), Optional.of("interrupted"));
        } catch (Exception e) {
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return new StepResult(step, StepResult.Status.FAILED, since(start), Optional.of(message));
        }
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static StepResult take(CompletionService<StepResult> completion) {
        try {
            Future<StepResult> f = completion.take();
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while applying", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("a step crashed the executor", e.getCause());
        }
    }

    private final class Context implements StepContext {
        private final Step step;

        Context(Step step) {
            this.step = step;
        }

        @Override
        public HostSession session() {
            return session(step.host().orElseThrow(() ->
                    new IllegalStateException("step " + step.id() + " has no host of its own")));
        }

        @Override
        public HostSession session(String host) {
            SshTarget target = targets.get(host);
            if (target == null) {
                throw new IllegalArgumentException("host " + host + " is not part of this run");
            }
            return connections.session(target);
        }

        @Override
        public void note(String message) {
            progress.note(step, message);
        }

        @Override
        public Progress transfer(String what, long totalBytes) {
            return new Tracked(step, what, Activity.Kind.TRANSFER, totalBytes);
        }

        @Override
        public Progress waiting(String what) {
            return new Tracked(step, what, Activity.Kind.WAIT, -1);
        }

        @Override
        public void output(String key, String value) {
            outputs.computeIfAbsent(step.id(), k -> new ConcurrentHashMap<>()).put(key, value);
        }

        @Override
        public Optional<String> outputOf(String stepId, String key) {
            return Optional.ofNullable(outputs.getOrDefault(stepId, Map.of()).get(key));
        }
    }

    private static final AtomicLong ACTIVITY_IDS = new AtomicLong();

    /** One transfer or wait of a running step, passed on to the progress listener as it moves. */
    private final class Tracked implements Progress {
        private final Step step;
        private final long id = ACTIVITY_IDS.incrementAndGet();
        private final String what;
        private final Activity.Kind kind;
        private final long total;
        private final long started = System.nanoTime();
        private volatile long done;
        private volatile String waitingOn = "";
        private volatile boolean closed;

        Tracked(Step step, String what, Activity.Kind kind, long total) {
            this.step = step;
            this.what = what;
            this.kind = kind;
            this.total = total;
            progress.moving(step, id, snapshot());
        }

        @Override
        public void advanced(long bytesSoFar) {
            done = bytesSoFar;
            if (!closed) {
                progress.moving(step, id, snapshot());
            }
        }

        @Override
        public void waitingOn(String reason) {
            waitingOn = reason == null ? "" : reason;
            if (!closed) {
                progress.moving(step, id, snapshot());
            }
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                progress.ended(step, id, snapshot());
            }
        }

        private Activity snapshot() {
            return new Activity(what, kind, done, total, waitingOn, Duration.ofNanos(System.nanoTime() - started));
        }
    }
}
