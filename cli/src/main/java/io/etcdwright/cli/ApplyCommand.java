package io.etcdwright.cli;

import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.LockedRun;
import io.etcdwright.run.PlanSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "apply", description = {"Make the cluster match the desired state.",
        "Either -i INVENTORY -f SPEC (plans, asks, applies) or a plan saved with 'plan --out' (applied only if still current)."})
final class ApplyCommand implements Callable<Integer> {
    @Option(names = {"-i", "--inventory"}, paramLabel = "INVENTORY", description = "YAML inventory.")
    Path inventory;

    @Option(names = {"-f", "--file"}, paramLabel = "SPEC", description = "Desired state (YAML).")
    Path specFile;

    @Parameters(arity = "0..1", paramLabel = "PLAN", description = "A plan saved with 'etcdwright plan --out'.")
    Path savedPlan;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    WaitOptions waits;

    @Mixin
    LockOptions locks;

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

    @Option(names = "--no-snapshot", description = "Do not take a snapshot before a membership change or a minor upgrade"
            + " (by default one is taken to $ETCDWRIGHT_HOME/clusters/NAME/snapshots and verified).")
    boolean noSnapshot;

    @Option(names = "--allow-downtime", description = "Allow a change that stops every member at once: a minor downgrade,"
            + " made as a verified snapshot restored with the older version (stop the writers first).")
    boolean allowDowntime;

    @Option(names = "--detailed-exitcode", description = "Exit 2 when something was changed, 0 when nothing was.")
    boolean detailedExitcode;

    /** Refused, not merely unknown: say why rather than "unknown option". */
    @Option(names = "--facts", hidden = true, paramLabel = "FACTS")
    Path facts;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (facts != null) {
            throw new IllegalArgumentException("apply does not take --facts: recorded facts show the hosts as they were,"
                    + " and steps must be planned from the hosts as they are. Review with 'etcdwright plan --facts "
                    + facts + "', then apply with -i/-f (or a plan saved with 'plan --out', which apply checks against"
                    + " fresh facts)");
        }
        PrintWriter out = spec.commandLine().getOut();
        InputOptions input = new InputOptions();
        SavedPlan saved = null;
        if (savedPlan != null) {
            if (inventory != null || specFile != null) {
                throw new IllegalArgumentException("give either a saved plan or -i/-f, not both");
            }
            saved = SavedPlan.read(savedPlan);
            input.inventory = saved.inventory();
            input.spec = saved.spec();
        } else {
            if (inventory == null || specFile == null) {
                throw new IllegalArgumentException("apply needs -i INVENTORY and -f SPEC, or a saved PLAN file");
            }
            input.inventory = inventory;
            input.spec = specFile;
        }
        try (ClusterRun run = ClusterRun.open(input.inventory, input.spec, connection.settings());
             LockedRun locked = run.lock("apply", locks.settings(), out::println)) {
            // Planned under the lock: facts gathered before it could be another run's half-way state.
            Plan plan = locked.converge(new PlanSettings(!noSnapshot, allowDowntime, waits.timeouts()),
                    saved == null ? java.util.Optional.empty() : saved.bootstrapToken());
            if (saved != null) {
                String stale = saved.stalenessAgainst(plan);
                if (stale != null) {
                    throw new IllegalStateException("refusing stale plan " + savedPlan + ": " + stale
                            + "\nRun 'etcdwright plan' again and review the new plan.");
                }
            }
            PlanPrinter.text(plan, false, out);
            if (plan.isRefused()) {
                spec.commandLine().getErr().println("Not applied: nothing can be changed safely (see above). Nothing was changed.");
                return Main.ERROR;
            }
            if (!plan.hasChanges()) {
                return Main.OK;
            }
            if (saved == null && !yes && !Confirmation.ask("Apply these " + plan.steps().size() + " steps?", out)) {
                spec.commandLine().getErr().println("Not applied: no confirmation (pass --yes to skip the question).");
                return Main.ERROR;
            }
            out.println();
            Recap recap = locked.apply(plan, new ProgressPrinter(out));
            ProgressPrinter.recap(recap, run.memberHosts(), out);
            if (!recap.succeeded()) {
                spec.commandLine().getErr().println("Apply did not finish: see the failed steps above. "
                        + "Fix the cause and apply again; finished steps are not repeated.");
                return Main.ERROR;
            }
            // Last: what the operator gives the clients now that the cluster changed (kube-apiserver's flags).
            PlanPrinter.clientChanges(plan, out);
            return detailedExitcode && recap.changedAnything() ? Main.CHANGES : Main.OK;
        }
    }
}
