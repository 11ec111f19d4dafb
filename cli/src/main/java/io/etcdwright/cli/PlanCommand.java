package io.etcdwright.cli;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.PlanSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "plan", description = "Show what apply would change, and why, without changing anything.")
final class PlanCommand implements Callable<Integer> {
    @Mixin
    FleetOptions input;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    WaitOptions waits;

    @Option(names = "--out", paramLabel = "PLAN", description = "Save the plan for 'etcdwright apply PLAN'.")
    Path out;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
    OutputFormat output;

    @Option(names = "--diff", description = "Show before and after of changed files (secrets redacted).")
    boolean diff;

    @Option(names = "--no-snapshot", description = "Do not take a snapshot before a membership change or a minor upgrade"
            + " (by default one is taken to $ETCDWRIGHT_HOME/clusters/NAME/snapshots and verified).")
    boolean noSnapshot;

    @Option(names = "--allow-downtime", description = "Allow a change that stops every member at once: a minor downgrade,"
            + " made as a verified snapshot restored with the older version (stop the writers first).")
    boolean allowDowntime;

    @Option(names = "--detailed-exitcode", description = "Exit 0 with no changes, 2 with changes or drift no step fixes (stale scheduled backups), 1 on error.")
    boolean detailedExitcode;

    @Option(names = "--facts", paramLabel = "FACTS", description = "Plan offline from facts recorded with"
            + " 'etcdwright facts -i INVENTORY -f SPEC -o json > FACTS': no host is contacted.")
    Path facts;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** The fleet's summary columns (docs/fleets.md). */
    static final List<Fleet.Column> FLEET_COLUMNS = List.of(new Fleet.Column("CHANGES", "changes"),
            new Fleet.Column("REFUSALS", "refusals"), new Fleet.Column("DRIFT", "drift"));

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (input.fleet()) {
            if (this.out != null || facts != null) {
                throw new IllegalArgumentException((this.out != null ? "--out" : "--facts") + " takes one cluster: plan a fleet"
                        + " without it, or each cluster on its own");
            }
            return Fleet.run("plan", input, FLEET_COLUMNS, this::planOne, output == OutputFormat.json, out,
                    spec.commandLine().getErr());
        }
        InputOptions input = this.input.single();
        if (this.out != null) {
            // 'apply PLAN' reads the inputs again to prove them unchanged by their digests.
            java.util.Optional<String> unsavable = PlanFile.unsavable(List.of(input.inventory, input.spec));
            if (unsavable.isPresent()) {
                spec.commandLine().getErr().println("error: " + unsavable.get());
                return Main.ERROR;
            }
        }
        Plan plan;
        if (facts != null) {
            // Offline: the recorded facts stand for the hosts; no connection is opened at all.
            plan = ClusterRun.planOffline(input.inventory, input.spec, facts, settings());
        } else {
            try (ClusterRun run = ClusterRun.open(input.inventory, input.spec, connection.settings())) {
                plan = run.plan(settings());
            }
        }
        if (output == OutputFormat.json) {
            out.println(PlanPrinter.json(plan));
        } else {
            PlanPrinter.text(plan, diff, out);
        }
        if (plan.isRefused()) {
            if (this.out != null) {
                spec.commandLine().getErr().println("Not saved to " + this.out + ": a refused plan has nothing to apply.");
            }
            return Main.ERROR;
        }
        if (this.out != null) {
            SavedPlan.of(input.inventory, input.spec, plan).write(this.out);
            if (output == OutputFormat.text) {
                out.println("Saved the plan to " + this.out + ". Run: etcdwright apply " + this.out);
            }
        }
        return detailedExitcode && plan.differs() ? Main.CHANGES : Main.OK;
    }

    /**
     * One cluster of a fleet, as a plan of it alone: its own connections, facts and refusals. With a
     * JUnit report the exit code is the detailed one: a report with a failure and exit 0 would disagree.
     */
    private Fleet.Outcome planOne(DesiredState desired) throws Exception {
        try (ClusterRun run = ClusterRun.of(desired, connection.settings())) {
            Plan plan = run.plan(settings());
            java.io.StringWriter text = new java.io.StringWriter();
            PlanPrinter.text(plan, diff, new PrintWriter(text, true));
            Fleet.Verdict verdict = plan.isRefused() ? Fleet.Verdict.REFUSED : !plan.steps().isEmpty() ? Fleet.Verdict.CHANGES
                    : plan.differs() ? Fleet.Verdict.DRIFT : Fleet.Verdict.OK;
            int exit = plan.isRefused() ? Main.ERROR
                    : (detailedExitcode || input.junit != null) && plan.differs() ? Main.CHANGES : Main.OK;
            Map<String, Object> counts = new LinkedHashMap<>();
            counts.put("changes", plan.steps().size());
            counts.put("refusals", plan.refusals().size());
            counts.put("drift", plan.drift().size());
            return new Fleet.Outcome(verdict, exit, text.toString(), io.etcdwright.engine.output.Json.mapper().readTree(PlanPrinter.json(plan)), counts);
        }
    }


    private PlanSettings settings() {
        return new PlanSettings(!noSnapshot, allowDowntime, waits.timeouts());
    }
}
