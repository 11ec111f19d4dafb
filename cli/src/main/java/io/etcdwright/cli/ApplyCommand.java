package io.etcdwright.cli;

import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.ClusterApply;
import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.run.PlanSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "apply", description = {"Make the cluster match the desired state.",
        "Either -i INVENTORY -f SPEC (plans, asks, applies) or a plan saved with 'plan --out' (applied only if still current),"
                + " or a rollout saved with 'rollout plan --out'.",
        "Several specs (-f more than once, or a directory) make a rollout: the clusters applied in waves, each wave gated on"
                + " etcd's health before the next (docs/rollouts.md)."})
final class ApplyCommand implements Callable<Integer> {
    @Option(names = {"-i", "--inventory"}, paramLabel = "INVENTORY", description = "YAML inventory. With several specs: once for all,"
            + " or once per spec, in their order.")
    List<Path> inventories = new ArrayList<>();

    @Option(names = {"-f", "--file"}, paramLabel = "SPEC", description = "Desired state (YAML). More than once, or a directory of specs:"
            + " a rollout of those clusters in waves.")
    List<Path> specFiles = new ArrayList<>();

    @Mixin
    RolloutOptions rollout;

    @Option(names = "--parallel", defaultValue = "8", paramLabel = "N",
            description = "In a rollout: clusters of a wave applied at once (default: ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "FORMAT",
            description = "In a rollout: text, or json (the rollout's record at its end; the live lines go to stderr).")
    OutputFormat output;

    @Option(names = "--junit", paramLabel = "FILE", description = "In a rollout: write a JUnit XML report, one test suite a wave,"
            + " one case a cluster.")
    Path junit;

    @Parameters(arity = "0..1", paramLabel = "PLAN", description = "A plan saved with 'etcdwright plan --out', or a rollout saved"
            + " with 'etcdwright rollout plan --out' (applied only if every cluster's plan is still the one saved).")
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

    /** What a saved rollout decides, as it was reviewed: its clusters (-i, -f), its waves and settings, how its plans are made. */
    private static final List<String> DECIDED_BY_A_SAVED_ROLLOUT = List.of("--inventory", "--file", "--parallel", "--no-snapshot",
            "--allow-downtime");

    /**
     * A saved rollout is applied as it was reviewed: an option that would make it another rollout
     * (other specs, waves, budget, gate) is a usage error, not silently preferred or ignored.
     */
    private void refuseWhatASavedRolloutDecides() {
        java.util.Set<String> decided = new java.util.LinkedHashSet<>(DECIDED_BY_A_SAVED_ROLLOUT);
        spec.mixins().get("rollout").options().forEach(o -> decided.add(o.longestName()));
        List<String> given = spec.commandLine().getParseResult().matchedOptions().stream()
                .map(picocli.CommandLine.Model.OptionSpec::longestName).filter(decided::contains).distinct().toList();
        if (!given.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), String.join(", ", given) + " with a saved rollout: "
                    + savedPlan + " decides its clusters, waves and settings, as they were reviewed; apply it alone"
                    + " ('etcdwright apply " + savedPlan + "'), or save another rollout with 'etcdwright rollout plan ... --out'");
        }
    }

    @Override
    public Integer call() {
        if (facts != null) {
            throw new IllegalArgumentException("apply does not take --facts: recorded facts show the hosts as they were,"
                    + " and steps must be planned from the hosts as they are. Review with 'etcdwright plan --facts "
                    + facts + "', then apply with -i/-f (or a plan saved with 'plan --out', which apply checks against"
                    + " fresh facts)");
        }
        PrintWriter out = spec.commandLine().getOut();
        PlanFile.Read planFile = savedPlan == null ? null : PlanFile.read(savedPlan);
        if (planFile != null && planFile.isRollout()) {
            refuseWhatASavedRolloutDecides();
            return RolloutCommand.startSaved(SavedRollout.from(planFile), savedPlan, connection.settings(), locks.settings(),
                    waits.timeouts(), output == OutputFormat.json, junit, detailedExitcode, out, spec.commandLine().getErr());
        }
        FleetOptions fleet = new FleetOptions();
        fleet.specs = specFiles;
        fleet.inventories = inventories;
        fleet.parallel = parallel;
        fleet.junit = junit;
        if (savedPlan == null && !specFiles.isEmpty() && (fleet.fleet() || rollout.asked() || output == OutputFormat.json)) {
            return RolloutCommand.start(RolloutCommand.load(fleet.inputs(), parallel), rollout, connection.settings(), locks.settings(),
                    new PlanSettings(!noSnapshot, allowDowntime, waits.timeouts()), yes, output == OutputFormat.json, junit,
                    detailedExitcode, out, spec.commandLine().getErr(), parallel);
        }
        Path inventory = inventories.size() == 1 ? inventories.get(0) : null;
        Path specFile = specFiles.size() == 1 ? specFiles.get(0) : null;
        if (inventories.size() > 1) {
            throw new IllegalArgumentException("-i is given " + inventories.size() + " times for one spec: give it once");
        }
        InputOptions input = new InputOptions();
        SavedPlan saved = null;
        if (savedPlan != null) {
            if (inventory != null || specFile != null) {
                throw new IllegalArgumentException("give either a saved plan or -i/-f, not both");
            }
            saved = SavedPlan.from(planFile);
            input.inventory = saved.inventory();
            input.spec = saved.spec();
        } else {
            if (inventory == null || specFile == null) {
                throw new IllegalArgumentException("apply needs -i INVENTORY and -f SPEC, or a saved PLAN file");
            }
            input.inventory = inventory;
            input.spec = specFile;
        }
        SavedPlan fromFile = saved;
        try (ClusterRun run = ClusterRun.open(input.inventory, input.spec, connection.settings())) {
            ClusterApply.Outcome outcome = ClusterApply.apply(run, "apply", locks.settings(),
                    new PlanSettings(!noSnapshot, allowDowntime, waits.timeouts()),
                    fromFile == null ? Optional.empty() : Optional.of(fromFile.reviewed()),
                    plan -> fromFile != null ? fromFile.inputsChanged()
                            : yes || Confirmation.ask("Apply these " + plan.steps().size() + " steps?", out)
                            ? Optional.empty() : Optional.of("no confirmation (pass --yes to skip the question)"),
                    new ClusterApply.Listener() {
                        @Override
                        public void note(String line) {
                            out.println(line);
                        }

                        @Override
                        public void planned(Plan plan) {
                            PlanPrinter.text(plan, false, out);
                        }

                        @Override
                        public ProgressListener progress() {
                            out.println();
                            return new ProgressPrinter(out);
                        }
                    });
            if (outcome instanceof ClusterApply.Outcome.Stale stale) {
                throw new IllegalStateException("refusing stale plan " + savedPlan + ": " + stale.why()
                        + "\nRun 'etcdwright plan' again and review the new plan.");
            }
            if (outcome instanceof ClusterApply.Outcome.Refused) {
                spec.commandLine().getErr().println("Not applied: nothing can be changed safely (see above). Nothing was changed.");
                return Main.ERROR;
            }
            if (outcome instanceof ClusterApply.Outcome.NotApproved declined) {
                spec.commandLine().getErr().println("Not applied: " + declined.why() + ".");
                return Main.ERROR;
            }
            if (!(outcome instanceof ClusterApply.Outcome.Applied applied)) {
                return Main.OK;
            }
            Recap recap = applied.recap();
            ProgressPrinter.recap(recap, run.memberHosts(), out);
            if (!recap.succeeded()) {
                spec.commandLine().getErr().println("Apply did not finish: see the failed steps above. "
                        + "Fix the cause and apply again; finished steps are not repeated.");
                return Main.ERROR;
            }
            // Last: what the operator gives the clients now that the cluster changed (kube-apiserver's flags).
            PlanPrinter.clientChanges(applied.plan(), out);
            return detailedExitcode && recap.changedAnything() ? Main.CHANGES : Main.OK;
        }
    }
}
