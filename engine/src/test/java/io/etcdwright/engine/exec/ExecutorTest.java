package io.etcdwright.engine.exec;

import io.etcdwright.engine.plan.ChangeKind;
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
    static Step step(String host, String id, Operation op, String... after) {
        return Step.on(host, "test", id).kind(ChangeKind.ACTION).summary(id).after(List.of(after)).does(op);
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
        Recap recap = run(4,
                step("h1", "a", ctx -> { throw new IllegalStateException("disk full"); }),
                step("h1", "b", ctx -> { ran.add("b"); return Outcome.CHANGED; }, "h1/a"),
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
        run(4,
                step("h1", "restart", ctx -> { Thread.sleep(50); order.add("h1"); return Outcome.CHANGED; }),
                step("h2", "restart", ctx -> { order.add("h2"); return Outcome.CHANGED; }, "h1/restart"),
                step("h3", "restart", ctx -> { order.add("h3"); return Outcome.CHANGED; }, "h2/restart"));
        assertEquals(List.of("h1", "h2", "h3"), List.copyOf(order));
    }
}
