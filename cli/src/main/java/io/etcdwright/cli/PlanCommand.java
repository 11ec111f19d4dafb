package io.etcdwright.cli;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.install.ReleaseArtifact;
import io.etcdwright.modules.upgrade.PatchProbe;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.modules.upgrade.VersionChange;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.cluster.PendingStops;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.pki.ClusterPki;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
            // 'apply PLAN' reads the inputs again to prove them unchanged: a pipe gives its text once.
            for (Path given : new Path[] {input.inventory, input.spec}) {
                if (io.etcdwright.engine.source.PipedInput.isPipe(given)) {
                    spec.commandLine().getErr().println("error: " + given + " is a pipe, and a saved plan is applied by reading"
                            + " its input files again; write the input to a file (mode 0600 if it holds secrets) to use --out,"
                            + " or plan and apply without saving the plan");
                    return Main.ERROR;
                }
            }
        }
        Plan plan;
        if (facts != null) {
            // Offline: the recorded facts stand for the hosts; no connection is opened at all.
            DesiredState desired = DesiredStateLoader.loadOffline(input.inventory, input.spec);
            EtcdLayout layout = Layouts.of(desired);
            EtcdProbes probes = EtcdProbes.of(layout);
            ClusterRun.Facts recorded = FactsFile.load(facts, desired.spec().name(),
                    desired.members().stream().map(m -> m.host()).toList(), desired.inventory().hosts(), probes);
            plan = plan(desired, layout, recorded, !noSnapshot, allowDowntime, waits.timeouts(), false);
        } else {
            try (ClusterRun run = ClusterRun.open(input, connection)) {
                plan = make(run, !noSnapshot, allowDowntime, waits.timeouts());
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
        try (ClusterRun run = ClusterRun.of(desired, connection)) {
            Plan plan = make(run, !noSnapshot, allowDowntime, waits.timeouts());
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


    static Plan make(ClusterRun run, boolean snapshot, boolean allowDowntime, ConvergePlanner.Timeouts timeouts) {
        return make(run, snapshot, allowDowntime, timeouts, Optional.empty());
    }

    /** As {@link #make(ClusterRun, boolean, boolean, ConvergePlanner.Timeouts)}, a new cluster bootstrapping with {@code token}. */
    static Plan make(ClusterRun run, boolean snapshot, boolean allowDowntime, ConvergePlanner.Timeouts timeouts,
                     Optional<String> newClusterToken) {
        return plan(run.desired, run.layout, run.gatherWithClientHosts(), snapshot, allowDowntime, timeouts, true, newClusterToken,
                new RecoveryBackups(run.desired, store -> BackupStores.open(store, run.desired, run.connections),
                        RecoveryBackups.BOUND));
    }

    /**
     * The plan from facts, live or recorded: the cluster's own view (member list, leader, health)
     * comes with them, derived from what the members answered on their hosts
     * ({@link io.etcdwright.modules.cluster.ClusterFacts}); the workstation's PKI, release cache
     * and pending stops are read as they are now.
     */
    static Plan plan(DesiredState desired, EtcdLayout layout, ClusterRun.Facts facts, boolean snapshot,
                     boolean allowDowntime, ConvergePlanner.Timeouts timeouts, boolean askReleaseSource) {
        return plan(desired, layout, facts, snapshot, allowDowntime, timeouts, askReleaseSource, Optional.empty(),
                io.etcdwright.modules.backup.BackupsSeen.Lookup.notLooked("the plan is made offline, from recorded facts"));
    }

    /** @param backups what the backup stores hold, asked only when the cluster lost quorum (a restore is then a way out) */
    static Plan plan(DesiredState desired, EtcdLayout layout, ClusterRun.Facts facts, boolean snapshot,
                     boolean allowDowntime, ConvergePlanner.Timeouts timeouts, boolean askReleaseSource,
                     Optional<String> newClusterToken, io.etcdwright.modules.backup.BackupsSeen.Lookup backups) {
        ClusterPki pki = Pkis.of(desired);
        Optional<Path> snapshots = snapshot ? Optional.of(EtcdwrightHome.snapshotDir(desired.spec().name())) : Optional.empty();
        ReleaseCache releases = new ReleaseCache(EtcdwrightHome.releaseCache());
        return ConvergePlanner.plan(new ConvergePlanner.Inputs(desired, layout, facts.byHost(), facts.unreachable(), pki,
                releases, facts.cluster(), snapshots,
                new PendingStops(EtcdwrightHome.removedHostsDir(desired.spec().name())), timeouts, java.time.Instant.now(),
                new ConvergePlanner.VersionOptions(allowDowntime,
                        askReleaseSource ? offers(desired, facts, releases) : VersionChange.PatchOffers.NONE))
                .withNewClusterToken(newClusterToken).withClientHosts(facts.clientHosts()).withBackups(backups));
    }

    /**
     * Which releases the spec's artifact source offers, asked of it (a HEAD per version) only when a
     * minor upgrade is planned, with the members' architecture. Not asked offline (--facts): such a
     * plan opens no connection at all.
     */
    private static VersionChange.PatchOffers offers(DesiredState desired, ClusterRun.Facts facts, ReleaseCache releases) {
        var artifacts = desired.spec().artifacts();
        String arch = facts.byHost().values().stream().map(f -> f.system().architecture()).findFirst().orElse("amd64");
        return new PatchProbe(VersionCatalogue.builtIn(), v -> releases.offers(ReleaseArtifact.of(v.toString(), arch,
                artifacts.urlTemplate(), artifacts.checksumsUrlTemplate(), Optional.empty())));
    }
}
