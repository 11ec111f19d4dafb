package io.etcdwright.cli;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.Step;

import java.io.PrintWriter;

/** Live progress, one line a finished step, and Ansible's recap at the end. */
final class ProgressPrinter implements ProgressListener {
    private final PrintWriter out;

    ProgressPrinter(PrintWriter out) {
        this.out = out;
    }

    @Override
    public synchronized void started(Step step) {
        out.printf("%-10s %s ...%n", step.target(), step.line());
        out.flush();
    }

    @Override
    public synchronized void finished(StepResult r) {
        String status = r.status().name().toLowerCase();
        out.printf("%-10s %s: %s (%.1f s)%s%n", r.step().target(), r.step().summary(), status,
                r.took().toMillis() / 1000.0, r.error().map(e -> "\n           " + e.replace("\n", "\n           ")).orElse(""));
        out.flush();
    }

    @Override
    public synchronized void note(Step step, String message) {
        out.printf("%-10s   %s%n", step.target(), message);
        out.flush();
    }

    /** The recap, with a line for every host of the run, including those nothing happened on. */
    static void recap(Recap recap, java.util.Collection<String> hosts, PrintWriter out) {
        out.println();
        out.println("RECAP");
        recap.byHost(hosts).forEach((host, t) -> out.printf("%-10s ok=%d changed=%d failed=%d skipped=%d unreachable=%d%n",
                host, t.ok(), t.changed(), t.failed(), t.skipped(), t.unreachable()));
    }
}
