package io.etcdwright.watch;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Automation;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.lock.ClusterLockedException;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.LockSettings;
import io.etcdwright.run.LockedRun;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The self-management loop over one or more clusters. Each cycle is data flowing one way: facts ->
 * plan (the converge plan {@code etcdwright plan} shows, from the run service) -> {@link Policy}
 * (which group of steps runs by itself, which are held and why) -> apply (under the cluster's lock,
 * as {@code apply} takes it) -> events, metrics and the cluster's condition. One group a cycle;
 * what it changed is seen in the next cycle's facts before anything else is decided.
 *
 * <p>The first plan of a cycle is made without the lock (a plan only reads). Only a cycle with a
 * group to run takes the lock, and then gathers, plans and decides again under it: a person's
 * {@code apply} or another watcher that acted meanwhile is seen, and no step runs on facts older
 * than the lock. A lock another run holds means this cycle acts on nothing.
 *
 * <p>What the loop remembers ({@link Memory}: members first seen down, steps that failed, each under
 * the facts they were planned from) is kept in {@code $ETCDWRIGHT_HOME/clusters/NAME/watch.json}
 * ({@link MemoryFile}), so a watcher run from cron with {@code --once}, or restarted, neither
 * forgets how long a member has been down nor tries a failed step again on the same facts.
 */
public final class Watcher {
    private final WatchSettings settings;
    private final EventLog events;
    private final WatchMetrics metrics;
    private final Clock clock;
    private final Consumer<String> out;
    private final List<ClusterState> clusters = new ArrayList<>();

    /** One watched cluster: its inventory and spec, read again at every cycle (an edit is seen at the next). */
    public record Target(Path inventory, Path spec) {
    }

    public Watcher(List<Target> targets, WatchSettings settings, EventLog events, WatchMetrics metrics, Clock clock,
                   Consumer<String> out) {
        this.settings = settings;
        this.events = events;
        this.metrics = metrics;
        this.clock = clock;
        this.out = out;
        targets.forEach(t -> clusters.add(new ClusterState(t)));
    }

    /** One cycle of every cluster, one after the other; the condition each ended in, by cluster name. */
    public Map<String, ClusterCondition> cycle() {
        Map<String, ClusterCondition> conditions = new LinkedHashMap<>();
        for (ClusterState cluster : clusters) {
            conditions.put(cluster.name(), cycle(cluster));
        }
        return conditions;
    }

    /**
     * What a cycle would decide, without acting, logging or remembering anything ({@code watch status}):
     * each cluster's condition and, for a person, what is held and the command to run. Reads only.
     */
    public Map<String, Decision> observe() {
        Map<String, Decision> decisions = new LinkedHashMap<>();
        for (ClusterState cluster : clusters) {
            try (ClusterRun run = ClusterRun.open(cluster.target.inventory(), cluster.target.spec(), settings.connection())) {
                DesiredState desired = run.desired();
                cluster.name = desired.spec().name();
                cluster.memory = MemoryFile.read(cluster.name);
                Automation automation = desired.spec().automation();
                Commands commands = new Commands(cluster.target.inventory().toString(), cluster.target.spec().toString());
                decisions.put(cluster.name, judge(run.planned(settings.plan(automation)), desired, automation, commands, cluster,
                        Suspensions.read(desired)));
            }
        }
        return decisions;
    }

    /** Cycles every {@code interval} (from one cycle's start to the next) until the thread is interrupted. */
    public void run() throws InterruptedException {
        while (!Thread.currentThread().isInterrupted()) {
            Instant started = clock.instant();
            cycle();
            Duration left = settings.interval().minus(Duration.between(started, clock.instant()));
            if (!left.isNegative() && !left.isZero()) {
                Thread.sleep(left.toMillis());
            }
        }
        throw new InterruptedException("stopped");
    }

    private ClusterCondition cycle(ClusterState cluster) {
        cluster.cycles++;
        try (ClusterRun run = ClusterRun.open(cluster.target.inventory(), cluster.target.spec(), settings.connection())) {
            DesiredState desired = run.desired();
            cluster.name = desired.spec().name();
            if (cluster.memory == null) {
                cluster.memory = MemoryFile.read(cluster.name);
            }
            String cycleId = cluster.name + "-" + cluster.cycles;
            Automation automation = desired.spec().automation();
            Commands commands = new Commands(cluster.target.inventory().toString(), cluster.target.spec().toString());
            Suspensions.Read suspension = Suspensions.read(desired);
            Decision decision = judge(run.planned(settings.plan(automation)), desired, automation, commands, cluster, suspension);
            List<StepResult> ran = List.of();
            if (decision.acts()) {
                Optional<List<StepResult>> applied = act(cluster, run, desired, automation, commands, suspension, cycleId);
                if (applied.isPresent()) {
                    ran = applied.get();
                    // What the group changed, as the next cycle will see it: the condition this cycle leaves.
                    decision = judge(run.planned(settings.plan(automation)), desired, automation, commands, cluster, suspension);
                }
            }
            logHeld(cluster, cycleId, decision);
            MemoryFile.write(cluster.name, cluster.memory);
            ClusterCondition condition = decision.condition();
            Instant ended = clock.instant();
            metrics.cycleEnded(cluster.name, ran.isEmpty() ? "idle" : "acted", ended, true, settings.interval());
            metrics.condition(cluster.name, condition.name().toLowerCase(java.util.Locale.ROOT));
            metrics.held(cluster.name, heldBySafety(decision), cluster.oldestHeldSince());
            say(cycleId, describe(condition) + (decision.later().isEmpty() ? ""
                    : "; " + decision.later().size() + " more step(s) at the next cycle"));
            return condition;
        } catch (RuntimeException e) {
            String name = cluster.name();
            metrics.cycleEnded(name, "error", clock.instant(), false, settings.interval());
            ClusterCondition condition = new ClusterCondition.Failed("cycle", "no facts or no plan: " + message(e));
            metrics.condition(name, "failed");
            say(name + "-" + cluster.cycles, describe(condition));
            return condition;
        }
    }

    /** The policy's decision on a plan, with the loop's memory brought up to it first. */
    private Decision judge(ClusterRun.Planned planned, DesiredState desired, Automation automation, Commands commands,
                         ClusterState cluster, Suspensions.Read suspension) {
        Quorum quorum = Quorum.of(planned.facts().cluster(), desired);
        cluster.memory = remember(cluster.memory, planned.plan(), quorum,
                desired.members().stream().map(m -> m.host().name()).toList(), suspension, clock.instant());
        return Policy.decide(planned.plan(), automation, clock.instant(), cluster.memory, quorum, commands);
    }

    /**
     * Under the lock: facts, plan and decision again, then the one group the policy lets run.
     *
     * @return what ran; empty when another run holds the lock or the fresh decision runs nothing
     */
    private Optional<List<StepResult>> act(ClusterState cluster, ClusterRun run, DesiredState desired, Automation automation,
                                           Commands commands, Suspensions.Read suspension, String cycleId) {
        List<String> lockNotes = new ArrayList<>();
        try (LockedRun locked = run.lock("watch", LockSettings.NO_WAIT, lockNotes::add)) {
            ClusterRun.Planned planned = locked.converged(settings.plan(automation));
            Decision decision = judge(planned, desired, automation, commands, cluster, suspension);
            if (!decision.acts()) {
                return Optional.empty();
            }
            Plan group = new Plan(planned.plan().subject(), decision.run(), List.of(), planned.plan().warnings());
            say(cycleId, "running " + decision.run().size() + " " + decision.run().get(0).safety().label() + " step(s): "
                    + decision.run().stream().map(Step::id).collect(Collectors.joining(", ")));
            Recap recap = locked.apply(group, ProgressListener.SILENT);
            Instant now = clock.instant();
            List<Memory.FailedStep> failures = new ArrayList<>(cluster.memory.failures());
            for (StepResult r : recap.results()) {
                Step step = r.step();
                String outcome = switch (r.status()) {
                    case OK -> "ok";
                    case CHANGED -> "changed";
                    default -> "failed";
                };
                events.write(new WatchEvent(now, cycleId, cluster.name, step.id(), step.safety().label(),
                        WatchEvent.Outcome.valueOf(outcome.toUpperCase(java.util.Locale.ROOT)), r.took().toMillis(),
                        r.error().orElse(""), ""));
                metrics.action(cluster.name, step.safety().label(), outcome);
                if (outcome.equals("failed")) {
                    failures.add(Memory.FailedStep.of(planned.plan(), step, now, r.error().orElse(r.status().name().toLowerCase())));
                } else {
                    Instant detected = cluster.firstPlanned.getOrDefault(step.id(), now);
                    metrics.repaired(cluster.name, step.safety().label(), Duration.between(detected, now));
                }
            }
            cluster.memory = new Memory(cluster.memory.downSince(), failures, cluster.memory.suspension());
            return Optional.of(recap.results());
        } catch (ClusterLockedException e) {
            say(cycleId, "acting on nothing: " + message(e));
            return Optional.empty();
        }
    }

    /**
     * The memory brought up to this plan: members seen down since when (a member up again is
     * forgotten), failures kept only while the plan still has the same step under the same facts,
     * and the suspension as read this cycle (kept as last known when no member answered the read).
     */
    static Memory remember(Memory memory, Plan plan, Quorum quorum, List<String> memberHosts, Suspensions.Read suspension,
                           Instant now) {
        Map<String, Instant> down = new HashMap<>();
        for (String host : memberHosts) {
            if (!quorum.healthy().contains(host)) {
                down.put(host, memory.downSince().getOrDefault(host, now));
            }
        }
        Map<String, String> digests = new HashMap<>();
        plan.steps().forEach(s -> digests.put(s.id(), Memory.digestOf(plan, s)));
        List<Memory.FailedStep> failures = memory.failures().stream()
                .filter(f -> f.digest().equals(digests.get(f.stepId()))).toList();
        Optional<Suspension> suspended;
        if (suspension instanceof Suspensions.Read.Suspended s) {
            suspended = Optional.of(s.suspension());
        } else if (suspension instanceof Suspensions.Read.NotSuspended) {
            suspended = Optional.empty();
        } else {
            suspended = memory.suspension();
        }
        return new Memory(down, failures, suspended);
    }

    /** A held group is logged when it becomes held, and again when its reason changes: not at every cycle. */
    private void logHeld(ClusterState cluster, String cycleId, Decision decision) {
        Instant now = clock.instant();
        Map<String, String> nowHeld = new LinkedHashMap<>();
        for (Decision.Held held : decision.held()) {
            List<String> ids = held.steps().isEmpty() ? List.of("plan") : held.steps().stream().map(Step::id).toList();
            for (String id : ids) {
                String reason = held.why().reason();
                nowHeld.put(id, reason);
                if (!reason.equals(cluster.heldReasons.get(id))) {
                    events.write(new WatchEvent(now, cycleId, cluster.name, id, held.safety().label(), WatchEvent.Outcome.HELD, 0,
                            reason, held.why().command()));
                    cluster.heldSince.putIfAbsent(id, now);
                }
            }
        }
        for (Step s : decision.run()) {
            cluster.firstPlanned.putIfAbsent(s.id(), now);
        }
        cluster.heldReasons.keySet().retainAll(nowHeld.keySet());
        cluster.heldSince.keySet().retainAll(nowHeld.keySet());
        cluster.heldReasons.putAll(nowHeld);
        Set<String> planned = new java.util.HashSet<>(nowHeld.keySet());
        decision.run().forEach(s -> planned.add(s.id()));
        decision.later().forEach(s -> planned.add(s.id()));
        cluster.firstPlanned.keySet().retainAll(planned);
        nowHeld.keySet().forEach(id -> cluster.firstPlanned.putIfAbsent(id, now));
    }

    private static Map<String, Integer> heldBySafety(Decision decision) {
        return decision.held().stream().collect(Collectors.groupingBy(h -> h.safety().label(),
                Collectors.summingInt(h -> Math.max(1, h.steps().size()))));
    }

    /** The line a cycle prints: its condition in words, with the command for what is held. */
    public static String describe(ClusterCondition condition) {
        if (condition instanceof ClusterCondition.Drifted d) {
            return "Drifted: " + d.steps() + " step(s) planned, none held";
        } else if (condition instanceof ClusterCondition.Degraded d) {
            return "Degraded: " + d.healthy() + " of " + d.voters() + " voters healthy";
        } else if (condition instanceof ClusterCondition.Held h) {
            return "Held: " + h.reason() + "; run: " + h.command();
        } else if (condition instanceof ClusterCondition.Suspended s) {
            return "Suspended: " + new Suspension(s.by(), s.at(), s.reason()).describe(Instant.now())
                    + "; every step is held until 'etcdwright watch resume'";
        } else if (condition instanceof ClusterCondition.Failed f) {
            return "Failed: " + f.stepId() + ": " + f.error();
        }
        return "Healthy: as the spec says";
    }

    private void say(String cycleId, String line) {
        out.accept(cycleId + ": " + line);
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** What the loop keeps of a cluster from one cycle to the next, beside the {@link Memory} the policy reads. */
    private static final class ClusterState {
        final Target target;
        String name;
        long cycles;
        Memory memory;
        final Map<String, String> heldReasons = new LinkedHashMap<>();
        final Map<String, Instant> heldSince = new LinkedHashMap<>();
        /** When each step now planned was first planned: the start of detection to repair. */
        final Map<String, Instant> firstPlanned = new LinkedHashMap<>();

        ClusterState(Target target) {
            this.target = target;
        }

        String name() {
            return name == null ? target.spec().toString() : name;
        }

        Optional<Instant> oldestHeldSince() {
            return heldSince.values().stream().min(Instant::compareTo);
        }
    }
}
