package io.etcdwright.cli;

import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.LockedRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "destroy", description = {"Stop etcd and remove its unit, config, certificates and binaries from the members.",
        "The client files it placed on hosts that run no member are removed too.",
        "Data directories are kept unless --wipe-data is given."})
final class DestroyCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    LockOptions locks;

    @Option(names = "--wipe-data", description = "Also DELETE the data directories. This cannot be undone.")
    boolean wipeData;

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (ClusterRun run = ClusterRun.open(input.inventory, input.spec, connection.settings());
             LockedRun locked = run.lock("destroy", locks.settings(), out::println)) {
            Plan plan = locked.teardown(wipeData);
            PlanPrinter.text(plan, false, out, "Nothing to destroy: no etcd of cluster " + plan.subject() + " is left on its members.");
            if (plan.isRefused()) {
                return Main.ERROR;
            }
            if (!plan.hasChanges()) {
                return Main.OK;
            }
            String question = "Destroy cluster " + plan.subject() + (wipeData ? " AND DELETE ITS DATA" : "") + "?";
            if (!yes && !Confirmation.ask(question, out)) {
                spec.commandLine().getErr().println("Not destroyed: no confirmation (pass --yes to skip the question).");
                return Main.ERROR;
            }
            Recap recap = locked.apply(plan, new ProgressPrinter(out));
            ProgressPrinter.recap(recap, run.memberHosts(), out);
            return recap.succeeded() ? Main.OK : Main.ERROR;
        }
    }
}
