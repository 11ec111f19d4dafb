package io.etcdwright.cli;

import io.etcdwright.engine.exec.Recap;
import io.etcdwright.modules.maintenance.DefragPlanner;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.LockedRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

@Command(name = "defrag", description = {"Defragment the members whose database is worth it, one at a time, followers first and the"
        + " leader last, each health-checked; then disarm a NOSPACE alarm once every database is below the quota.",
        "A defragmenting member serves nothing until done (seconds per GiB): its clients wait or go to another member."})
final class DefragCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    LockOptions locks;

    @Option(names = "--min-fragmentation", paramLabel = "PERCENT",
            description = "Defragment a member only when at least this share of its database file is free pages"
                    + " (default: the spec's maintenance.defrag.minFragmentationPercent, else "
                    + DefragPlanner.DEFAULT_MIN_FRAGMENTATION_PERCENT + "; 0 defragments every member).")
    Integer minFragmentationFlag;

    @Option(names = "--defrag-timeout", defaultValue = "300", paramLabel = "SECONDS",
            description = "How long one member's defragmentation may take (default: ${DEFAULT-VALUE}).")
    int defragSeconds;

    @Option(names = "--ready-timeout", defaultValue = "120", paramLabel = "SECONDS",
            description = "How long to wait for the members healthy after each (default: ${DEFAULT-VALUE}).")
    int readySeconds;

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (minFragmentationFlag != null && (minFragmentationFlag < 0 || minFragmentationFlag > 100)) {
            throw new IllegalArgumentException("--min-fragmentation must be 0 to 100, got " + minFragmentationFlag);
        }
        ConnectionOptions.positive("--defrag-timeout", defragSeconds);
        ConnectionOptions.positive("--ready-timeout", readySeconds);
        PrintWriter out = spec.commandLine().getOut();
        try (ClusterRun run = ClusterRun.open(input.inventory, input.spec, connection.settings());
             LockedRun locked = run.lock("defrag", locks.settings(), out::println)) {
            DefragPlanner.Defrag defrag = locked.defrag(minFragmentationPercent(run.desired().spec()),
                    Duration.ofSeconds(defragSeconds), Duration.ofSeconds(readySeconds));
            defrag.assessment().forEach(out::println);
            PlanPrinter.text(defrag.plan(), false, out, "Nothing to defragment in cluster " + defrag.plan().subject()
                    + ", and no NOSPACE alarm to disarm.");
            if (defrag.plan().isRefused()) {
                return Main.ERROR;
            }
            if (!defrag.plan().hasChanges()) {
                return Main.OK;
            }
            if (!yes && !Confirmation.ask("Run these " + defrag.plan().steps().size() + " steps?", out)) {
                spec.commandLine().getErr().println("Not defragmented: no confirmation (pass --yes to skip the question).");
                return Main.ERROR;
            }
            out.println();
            Recap recap = locked.apply(defrag.plan(), new ProgressPrinter(out));
            ProgressPrinter.recap(recap, run.memberHosts(), out);
            return recap.succeeded() ? Main.OK : Main.ERROR;
        }
    }

    /** The flag, else the spec's threshold (the one its schedule uses), else the default. */
    int minFragmentationPercent(io.etcdwright.engine.spec.ClusterSpec spec) {
        return minFragmentationFlag != null ? minFragmentationFlag : spec.maintenance().defrag()
                .map(io.etcdwright.engine.spec.Maintenance.Defrag::minFragmentationPercent)
                .orElse(DefragPlanner.DEFAULT_MIN_FRAGMENTATION_PERCENT);
    }
}
