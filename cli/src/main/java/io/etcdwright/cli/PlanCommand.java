package io.etcdwright.cli;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.PendingStops;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.EtcdAdminClient;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.pki.ClusterPki;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "plan", description = "Show what apply would change, and why, without changing anything.")
final class PlanCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

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

    @Option(names = "--detailed-exitcode", description = "Exit 0 with no changes, 2 with changes, 1 on error.")
    boolean detailedExitcode;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (ClusterRun run = ClusterRun.open(input, connection)) {
            Plan plan = make(run, !noSnapshot, waits.timeouts());
            if (output == OutputFormat.json) {
                out.println(PlanPrinter.json(plan));
            } else {
                PlanPrinter.text(plan, diff, out);
            }
            if (this.out != null) {
                SavedPlan.of(input.inventory, input.spec, plan).write(this.out);
                if (output == OutputFormat.text) {
                    out.println("Saved the plan to " + this.out + ". Run: etcdwright apply " + this.out);
                }
            }
            if (plan.isRefused()) {
                return Main.ERROR;
            }
            return detailedExitcode && plan.hasChanges() ? Main.CHANGES : Main.OK;
        }
    }

    static Plan make(ClusterRun run, boolean snapshot, ConvergePlanner.Timeouts timeouts) {
        ClusterRun.Facts facts = run.gather();
        ClusterPki pki = run.pki();
        Optional<Path> snapshots = snapshot ? Optional.of(EtcdwrightHome.snapshotDir(run.desired.spec().name())) : Optional.empty();
        return ConvergePlanner.plan(new ConvergePlanner.Inputs(run.desired, run.layout, facts.byHost(), facts.unreachable(), pki,
                new ReleaseCache(EtcdwrightHome.releaseCache()), clusterView(run, facts, pki), snapshots,
                new PendingStops(EtcdwrightHome.removedHostsDir(run.desired.spec().name())), timeouts));
    }

    /**
     * The cluster's own member list and each member's health, asked once of the members that run:
     * what membership changes are planned from. Empty for a cluster not created yet, or when no
     * member answers (then the planner refuses to add members rather than guess).
     */
    static Optional<ClusterStatus> clusterView(ClusterRun run, ClusterRun.Facts facts, ClusterPki pki) {
        boolean anyRunning = facts.byHost().values().stream().anyMatch(f -> f.service().running());
        Health.Access access = Endpoints.healthAccess(pki);
        if (!anyRunning || !Files.isRegularFile(access.clientCert()) || !Files.isRegularFile(access.clientKey())) {
            return Optional.empty();
        }
        List<String> endpoints = Endpoints.clientUrls(run.desired.members(), run.layout);
        try (EtcdAdminClient client = EtcdAdminClient.connect(endpoints, access.caCert(), access.clientCert(),
                access.clientKey(), Duration.ofSeconds(5))) {
            return Optional.of(client.status());
        } catch (EtcdAdminException e) {
            return Optional.empty();
        }
    }
}
