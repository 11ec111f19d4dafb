package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.lock.LockHolder;
import io.etcdwright.rollout.ClusterState;
import io.etcdwright.rollout.RolloutExecutor;
import io.etcdwright.rollout.RolloutPlan;
import io.etcdwright.rollout.RolloutRecord;
import io.etcdwright.rollout.RolloutRecords;
import io.etcdwright.rollout.RolloutState;
import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.FleetRun;
import io.etcdwright.run.LockSettings;
import io.etcdwright.run.PlanSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Rollouts (docs/rollouts.md): one change across many clusters in waves, gated on etcd's health.
 * 'apply' over a fleet starts one; these commands plan one whole, and follow, resume and abort one
 * from its record. What runs is the rollout layer's: this class parses and prints.
 */
@Command(name = "rollout", description = {"Plan, follow, resume or abort a rollout: a change applied across many clusters in waves.",
        "A rollout starts with 'etcdwright apply' over several specs (-f more than once, or a directory)."},
        subcommands = {RolloutCommand.PlanRollout.class, RolloutCommand.Status.class, RolloutCommand.Resume.class,
                RolloutCommand.Abort.class})
final class RolloutCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return Main.ERROR;
    }

    /** Who drives a rollout now, as its record says: user@host. */
    static String driver() {
        LockHolder me = LockHolder.thisProcess("rollout", Instant.now());
        return me.user() + "@" + me.host();
    }

    /** The clusters of a rollout's input, every one read and checked before any host is contacted. */
    record Loaded(List<FleetRun.Input> inputs, List<DesiredState> clusters) {
        Map<String, DesiredState> byName() {
            Map<String, DesiredState> byName = new LinkedHashMap<>();
            clusters.forEach(d -> byName.put(d.spec().name(), d));
            return byName;
        }
    }

    static Loaded load(List<FleetRun.Input> inputs, int parallel) {
        return new Loaded(inputs, FleetRun.loadEvery(inputs, parallel));
    }

    /**
     * Starts a rollout of {@code loaded} ('apply' over a fleet): the whole rollout planned and shown,
     * its preconditions checked, confirmed, recorded, then walked.
     */
    static int start(Loaded loaded, RolloutOptions options, ConnectionSettings connection, LockSettings lock, PlanSettings planSettings,
                     boolean yes, boolean json, Path junit, boolean detailedExitcode, PrintWriter out, PrintWriter err, int parallel) {
        if (lock.noLock()) {
            throw new IllegalArgumentException("--no-lock: a rollout applies each cluster under its lock, as apply does");
        }
        RolloutRecord.Settings settings = options.settings(parallel);
        String id = options.id();
        RolloutPlan plan = RolloutPlan.make(id, loaded.inputs(), loaded.clusters(), options.sizes(), settings,
                new RolloutPlan.Making(connection, planSettings, io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT, Optional.empty()));
        PrintWriter shown = json ? err : out;
        RolloutReport.plan(plan, shown);
        if (!plan.ready()) {
            err.println("Not started: the rollout's preconditions do not all hold (see above). Nothing was changed.");
            return Main.ERROR;
        }
        if (!plan.hasChanges()) {
            shown.println("Nothing to roll out: every cluster is as its spec says.");
            return Main.OK;
        }
        if (!yes && !Confirmation.ask("Start rollout " + id + " of " + plan.entries().size() + " clusters in " + plan.waves().size()
                + " waves?", shown)) {
            err.println("Not started: no confirmation (pass --yes to skip the question).");
            return Main.ERROR;
        }
        try (RolloutRecords records = RolloutRecords.of(loaded.clusters())) {
            records.create(plan.record(driver()));
            shown.println("Recorded rollout " + id + " in " + records.describe() + ": 'etcdwright rollout status " + id
                    + "' follows it, 'etcdwright rollout resume " + id + "' resumes it if this process dies.");
            return walk(records, id, loaded, connection, lock, planSettings, json, junit, detailedExitcode, out, err);
        }
    }

    static int walk(RolloutRecords records, String id, Loaded loaded, ConnectionSettings connection, LockSettings lock,
                    PlanSettings planSettings, boolean json, Path junit, boolean detailedExitcode, PrintWriter out, PrintWriter err) {
        PrintWriter shown = json ? err : out;
        RolloutRecord end = RolloutExecutor.of(records, loaded.byName(), connection, lock, planSettings, RolloutReport.live(shown), id)
                .run(id, driver());
        return report(end, json, junit, detailedExitcode, out);
    }

    static int report(RolloutRecord end, boolean json, Path junit, boolean detailedExitcode, PrintWriter out) {
        if (json) {
            out.println(RolloutReport.json(end));
        } else {
            RolloutReport.summary(end, out);
        }
        if (junit != null) {
            RolloutReport.writeJunit(junit, end);
        }
        boolean failed = end.clusters().stream().anyMatch(c -> c.state() == ClusterState.FAILED)
                || end.state() == RolloutState.STOPPED || end.state() == RolloutState.ABORTED;
        if (failed) {
            return Main.ERROR;
        }
        boolean changed = end.clusters().stream().anyMatch(c -> c.steps() > 0);
        return detailedExitcode && changed ? Main.CHANGES : Main.OK;
    }

    /** Where a rollout's record is: the specs' shared store when they are given and have one, else this workstation's. */
    static final class Where {
        @Option(names = {"-f", "--file"}, paramLabel = "SPEC", description = "The rollout's specs (as given to apply): their shared state store"
                + " holds the record, and a resumed rollout applies them. Without: the record in $ETCDWRIGHT_HOME and the specs it names.")
        List<Path> specs = new ArrayList<>();

        @Option(names = {"-i", "--inventory"}, paramLabel = "INVENTORY", description = "With -f: the inventory, once or once per spec.")
        List<Path> inventories = new ArrayList<>();

        /** The clusters given with -f, or none. */
        Optional<Loaded> given(int parallel) {
            if (specs.isEmpty()) {
                if (!inventories.isEmpty()) {
                    throw new IllegalArgumentException("-i without -f: give the rollout's specs with -f too");
                }
                return Optional.empty();
            }
            FleetOptions fleet = new FleetOptions();
            fleet.specs = specs;
            fleet.inventories = inventories;
            fleet.parallel = parallel;
            return Optional.of(load(fleet.inputs(), parallel));
        }

        RolloutRecords records(Optional<Loaded> given) {
            return given.map(l -> RolloutRecords.of(l.clusters())).orElseGet(RolloutRecords::local);
        }
    }

    static RolloutRecord find(RolloutRecords records, String id) {
        return records.read(id).orElseThrow(() -> new IllegalArgumentException("no rollout named " + id + " in " + records.describe()
                + (records.ids().isEmpty() ? "" : "; there are: " + String.join(", ", records.ids()))));
    }

    @Command(name = "plan", description = {"Show a whole rollout before it runs: every cluster's wave and steps, and every precondition not met.",
            "Exits as plan does: 0 no changes, 2 changes with --detailed-exitcode, 1 a precondition not met or an error."})
    static final class PlanRollout implements Callable<Integer> {
        @Mixin
        FleetOptions input;

        @Mixin
        RolloutOptions rollout;

        @Mixin
        ConnectionOptions connection;

        @Mixin
        WaitOptions waits;

        @Option(names = "--facts", paramLabel = "DIR", description = "Plan offline from facts recorded with 'etcdwright facts -o json',"
                + " one file a cluster named CLUSTER.json: no host is contacted.")
        Path facts;

        @Option(names = "--detailed-exitcode", description = "Exit 2 when some cluster has changes, 0 when none has.")
        boolean detailedExitcode;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            RolloutRecord.Settings settings = rollout.settings(input.parallel);
            Loaded loaded = load(input.inputs(), input.parallel);
            RolloutPlan plan = RolloutPlan.make(rollout.id(), loaded.inputs(), loaded.clusters(), rollout.sizes(), settings,
                    new RolloutPlan.Making(connection.settings(), new PlanSettings(true, false, waits.timeouts()),
                            io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT, Optional.ofNullable(facts)));
            RolloutReport.plan(plan, out);
            if (!plan.ready()) {
                return Main.ERROR;
            }
            return detailedExitcode && plan.hasChanges() ? Main.CHANGES : Main.OK;
        }
    }

    @Command(name = "status", description = {"Show a rollout's record: each cluster's wave and state, and where the rollout is.",
            "With -f, the record in the specs' shared state store; without, in $ETCDWRIGHT_HOME."})
    static final class Status implements Callable<Integer> {
        @Parameters(paramLabel = "ROLLOUT", description = "The rollout's name.")
        String id;

        @Mixin
        Where where;

        @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "FORMAT", description = "text or json.")
        OutputFormat output;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (RolloutRecords records = where.records(where.given(8))) {
                RolloutRecord record = find(records, id);
                if (output == OutputFormat.json) {
                    out.println(RolloutReport.json(record));
                } else {
                    RolloutReport.summary(record, out);
                }
                return Main.OK;
            }
        }
    }

    @Command(name = "resume", description = {"Resume a rollout that paused, stopped on its failure budget, or whose process died.",
            "Clusters done are not applied again; one left half-way is applied again (its apply converges)."})
    static final class Resume implements Callable<Integer> {
        @Parameters(paramLabel = "ROLLOUT", description = "The rollout's name.")
        String id;

        @Mixin
        Where where;

        @Mixin
        ConnectionOptions connection;

        @Mixin
        WaitOptions waits;

        @Mixin
        LockOptions locks;

        @Option(names = "--no-snapshot", description = "Do not take a snapshot before a membership change or a minor upgrade.")
        boolean noSnapshot;

        @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "FORMAT", description = "text or json.")
        OutputFormat output;

        @Option(names = "--junit", paramLabel = "FILE", description = "Write a JUnit XML report: one test suite a wave, one case a cluster.")
        Path junit;

        @Option(names = "--detailed-exitcode", description = "Exit 2 when something was changed, 0 when nothing was.")
        boolean detailedExitcode;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Optional<Loaded> given = where.given(8);
            try (RolloutRecords records = where.records(given)) {
                RolloutRecord record = find(records, id);
                Loaded loaded = given.orElseGet(() -> load(record.clusters().stream()
                        .map(c -> new FleetRun.Input(Path.of(c.spec()), Path.of(c.inventory()))).toList(), 8));
                Map<String, DesiredState> byName = loaded.byName();
                List<String> missing = record.clusters().stream().map(RolloutRecord.Cluster::name).filter(n -> !byName.containsKey(n)).toList();
                if (!missing.isEmpty()) {
                    throw new IllegalArgumentException("rollout " + id + " has clusters the given specs do not: " + String.join(", ", missing)
                            + "; give every spec of the rollout with -f");
                }
                if (locks.settings().noLock()) {
                    throw new IllegalArgumentException("--no-lock: a rollout applies each cluster under its lock, as apply does");
                }
                return walk(records, id, loaded, connection.settings(), locks.settings(),
                        new PlanSettings(!noSnapshot, false, waits.timeouts()), output == OutputFormat.json, junit, detailedExitcode,
                        out, spec.commandLine().getErr());
            }
        }
    }

    @Command(name = "abort", description = {"Abort a rollout: clusters not started are skipped and left untouched.",
            "A cluster whose apply is running finishes it; the rollout then stops."})
    static final class Abort implements Callable<Integer> {
        @Parameters(paramLabel = "ROLLOUT", description = "The rollout's name.")
        String id;

        @Mixin
        Where where;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the record.")
        String reason;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (RolloutRecords records = where.records(where.given(8))) {
                find(records, id);
                String why = "aborted by " + driver() + (reason == null ? "" : ": " + reason);
                RolloutRecord record = records.update(id, r -> {
                    if (r.state() == RolloutState.DONE) {
                        throw new IllegalStateException("rollout " + id + " is done: nothing to abort");
                    }
                    RolloutRecord aborted = r.withState(RolloutState.ABORTED, Optional.of(why));
                    for (RolloutRecord.Cluster c : r.clusters()) {
                        if (c.state() == ClusterState.WAITING) {
                            aborted = aborted.withCluster(c.name(), x -> x.with(ClusterState.SKIPPED));
                        }
                    }
                    return aborted;
                });
                out.println("Rollout " + id + " aborted. " + (record.clusters().stream().anyMatch(c -> c.state().inProgress())
                        ? "A running rollout finishes the clusters in progress, then stops; the others are left untouched."
                        : "The clusters not started are left untouched."));
                return Main.OK;
            }
        }
    }
}
