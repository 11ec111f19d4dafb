package io.etcdwright.engine.exec;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.plan.Operation;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Scheduling logic only: these operations touch no host. */
class ExecutorTest {
    static Step step(String host, String id, Operation op, Step... after) {
        return Step.on(host, "test", id).safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.ACTION).summary(id).after(after).does(op);
    }

    static Recap run(int forks, Step... steps) {
        SshConnections none = new SshConnections(new SshOptions(Path.of("/nonexistent/known_hosts"), false,
                Duration.ofSeconds(1), Duration.ofSeconds(1)));
        return new Executor(none, Map.of(), forks, ProgressListener.SILENT)
                .run(new Plan("test", List.of(steps), List.of(), List.of()));
    }

    @Test
    void dependentsOfAFailureAreSkippedAndIndependentWorkStillRuns() {
        ConcurrentLinkedQueue<String> ran = new ConcurrentLinkedQueue<>();
        Step a = step("h1", "a", ctx -> { throw new IllegalStateException("disk full"); });
        Recap recap = run(4, a,
                step("h1", "b", ctx -> { ran.add("b"); return Outcome.CHANGED; }, a),
                step("h2", "a", ctx -> { ran.add("h2a"); return Outcome.OK; }));
        assertEquals(List.of("h2a"), List.copyOf(ran));
        assertFalse(recap.succeeded());
        Recap.HostTally h1 = recap.byHost().get("h1");
        assertEquals(1, h1.failed());
        assertEquals(1, h1.skipped());
        assertEquals(1, recap.byHost().get("h2").ok());
        assertTrue(recap.results().stream().anyMatch(r -> r.error().orElse("").equals("disk full")));
    }

    @Test
    void independentStepsRunSideBySide() {
        CountDownLatch bothStarted = new CountDownLatch(2);
        Operation meet = ctx -> {
            bothStarted.countDown();
            // Only returns true when the other step is running at the same time.
            return bothStarted.await(5, TimeUnit.SECONDS) ? Outcome.CHANGED : Outcome.OK;
        };
        Recap recap = run(2, step("h1", "x", meet), step("h2", "x", meet));
        assertEquals(2, recap.results().stream().filter(r -> r.status() == StepResult.Status.CHANGED).count());
        assertTrue(recap.changedAnything());
    }

    @Test
    void orderedStepsRunInOrder() {
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        Step h1 = step("h1", "restart", ctx -> { Thread.sleep(50); order.add("h1"); return Outcome.CHANGED; });
        Step h2 = step("h2", "restart", ctx -> { order.add("h2"); return Outcome.CHANGED; }, h1);
        run(4, h1, h2, step("h3", "restart", ctx -> { order.add("h3"); return Outcome.CHANGED; }, h2));
        assertEquals(List.of("h1", "h2", "h3"), List.copyOf(order));
    }

    /** A condition that holds or not, counting how often it was asked. */
    static Condition condition(String what, boolean holds, List<String> log) {
        return new Condition() {
            @Override
            public String description() {
                return what;
            }

            @Override
            public void verify(StepContext context) {
                log.add(what);
                if (!holds) {
                    throw new ConditionNotMetException(what + " is false");
                }
            }
        };
    }

    @Test
    void aFailedPreconditionStopsTheStepBeforeItDoesAnythingAndSkipsWhatDependsOnIt() {
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        Step guarded = Step.on("h1", "test", "restart").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.ACTION).summary("restart")
                .requires(condition("others healthy", false, log))
                .does(ctx -> { log.add("restarted"); return Outcome.CHANGED; });
        Step next = step("h2", "restart", ctx -> { log.add("h2"); return Outcome.CHANGED; }, guarded);
        Recap recap = run(2, guarded, next);
        assertEquals(List.of("others healthy"), log);
        StepResult failed = recap.results().stream().filter(r -> r.step() == guarded).findFirst().orElseThrow();
        assertEquals(StepResult.Status.FAILED, failed.status());
        assertTrue(failed.error().orElseThrow().contains("others healthy does not hold: others healthy is false"),
                failed.error().toString());
        assertEquals(1, recap.byHost().get("h2").skipped());
    }

    @Test
    void aStepIsDoneOnlyWhenItsReadinessHolds() {
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        Step ready = Step.on("h1", "test", "start").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.ACTION).summary("start")
                .requires(condition("pre", true, log)).readyWhen(condition("healthy", true, log))
                .does(ctx -> { log.add("op"); return Outcome.CHANGED; });
        Step notReady = Step.on("h2", "test", "start").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.ACTION).summary("start")
                .readyWhen(condition("never healthy", false, log))
                .does(ctx -> Outcome.CHANGED);
        Recap recap = run(1, ready, notReady);
        assertEquals(List.of("pre", "op", "healthy", "never healthy"), log);
        assertEquals(StepResult.Status.CHANGED, recap.results().get(0).status());
        assertEquals(StepResult.Status.FAILED, recap.results().get(1).status());
        assertTrue(recap.results().get(1).error().orElseThrow().startsWith("done, but not ready: never healthy"));
    }

    @Test
    void aStepReadsWhatAnEarlierStepProduced() {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Step add = step("h1", "add", ctx -> { ctx.output("member_id", "8e9e05c52164694d"); return Outcome.CHANGED; });
        Step promote = step("h1", "promote", ctx -> {
            seen.add(ctx.outputOf(add.id(), "member_id").orElse("none"));
            seen.add(ctx.outputOf("h1/never-ran", "member_id").orElse("none"));
            return Outcome.CHANGED;
        }, add);
        run(2, add, promote);
        assertEquals(List.of("8e9e05c52164694d", "none"), seen);
    }
}
