package io.etcdwright.cli;

import io.etcdwright.engine.exec.Activity;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an operator sees of long transfers and waits: in a log (CI, NO_COLOR) and on a terminal. */
class ProgressPrinterTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MIB = 1024 * 1024;

    private final StringWriter written = new StringWriter();
    private final long start = 1_000 * SECOND;
    private long now = start;
    private final Step install = Step.on("h1", "install", "install").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.CREATE).summary("install etcd 3.5.16")
            .does(ctx -> Outcome.CHANGED);
    private final Step health = Step.on("h2", "service", "start").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.ACTION).summary("start etcd")
            .does(ctx -> Outcome.CHANGED);

    private static Activity upload(long done) {
        return new Activity("upload etcd-v3.5.16-linux-amd64.tar.gz", Activity.Kind.TRANSFER, done, 20 * MIB, "", Duration.ofSeconds(12));
    }

    @Test
    void aLogGetsAPlainLinePerHostEveryTenSecondsAndTheTotalOfALongTransfer() {
        ProgressPrinter printer = new ProgressPrinter(new PrintWriter(written), false, 80, () -> now);
        printer.moving(install, 1, upload(0));
        printer.moving(health, 2, new Activity("3 member(s) to report healthy", Activity.Kind.WAIT, 0, -1, "", Duration.ZERO));
        printer.moving(install, 1, upload(5 * MIB));
        printer.moving(health, 2, new Activity("3 member(s) to report healthy", Activity.Kind.WAIT, 0, -1,
                "https://10.77.0.12:2379: connection refused", Duration.ofSeconds(3)));
        printer.tick(start + 5 * SECOND);
        assertEquals("", written.toString(), "work shorter than ten seconds is not worth a line in a log");

        printer.tick(start + 10 * SECOND);
        String lines = written.toString();
        assertTrue(lines.contains("h1           upload etcd-v3.5.16-linux-amd64.tar.gz: 5.0 MiB of 20.0 MiB (25%), 512.0 KiB/s"), lines);
        assertTrue(lines.contains("h2           waiting for 3 member(s) to report healthy: 10 s (https://10.77.0.12:2379: connection refused)"),
                lines);

        printer.tick(start + 15 * SECOND);
        assertEquals(lines, written.toString(), "one line every ten seconds, not at each tick");
        printer.tick(start + 20 * SECOND);
        assertTrue(written.toString().contains("waiting for 3 member(s) to report healthy: 20 s"), written::toString);

        printer.ended(install, 1, upload(20 * MIB));
        assertTrue(written.toString().contains("h1           upload etcd-v3.5.16-linux-amd64.tar.gz: 20.0 MiB in 12.0 s, 1.7 MiB/s"),
                written::toString);
        assertFalse(written.toString().contains("\u001b") || written.toString().contains("\r"), "no escape codes in a log");
    }

    @Test
    void aTerminalGetsOneStatusLineRedrawnInPlaceThatStepLinesPushUp() {
        ProgressPrinter printer = new ProgressPrinter(new PrintWriter(written), true, 200, () -> now);
        printer.moving(install, 1, upload(10 * MIB));
        printer.tick(start + SECOND / 2);
        assertEquals("", written.toString(), "not drawn in its first second: it would only flicker");

        printer.tick(start + 2 * SECOND);
        assertTrue(written.toString().endsWith("\r\u001b[Kh1 upload etcd-v3.5.16-linux-amd64.tar.gz: 10.0 MiB of 20.0 MiB (50%), 5.0 MiB/s"),
                written::toString);

        printer.started(health);
        String after = written.toString();
        int erased = after.lastIndexOf("\r\u001b[Kh2         > start etcd ...\n");
        assertTrue(erased > 0, "the status line is erased before a step's line: " + after);

        printer.finished(new StepResult(install, StepResult.Status.CHANGED, Duration.ofSeconds(3), Optional.empty()));
        assertTrue(written.toString().endsWith("install etcd 3.5.16: changed (3.0 s)\n"),
                "a finished step takes its activities with it: nothing left to redraw: " + written);
    }

    @Test
    void activitiesOfAStepThatThrewDoNotLinger() {
        ProgressPrinter printer = new ProgressPrinter(new PrintWriter(written), false, 80, () -> now);
        printer.moving(install, 7, upload(1));
        printer.finished(new StepResult(install, StepResult.Status.FAILED, Duration.ofSeconds(1), Optional.of("broken pipe")));
        int length = written.toString().length();
        printer.tick(start + 60 * SECOND);
        assertEquals(length, written.toString().length(), written::toString);
    }
}
