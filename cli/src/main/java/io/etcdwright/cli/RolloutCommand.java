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
                RolloutCommand.Abort.class, RolloutCommand.Report.class})
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
        if (options.wave != null) {
            return startShard(loaded, options, settings, connection, lock, planSettings, yes, json, junit, detailedExitcode, out, err);
        }
        if (options.shard != null || options.shards != null) {
            throw new IllegalArgumentException((options.shard != null ? "--shard" : "--shards") + " takes --wave K: a shard is part of one wave");
        }
        String id = options.id();
        RolloutPlan plan = RolloutPlan.make(id, loaded.inputs(), loaded.clusters(), options.grouping(), settings,
                new RolloutPlan.Making(connection, planSettings, io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT, Optional.empty(),
                        options.backupWithin()));
        PrintWriter shown = json ? err : out;
        RolloutReport.plan(plan, shown);
        Optional<String> notStarted = plan.whyNotStarted();
        if (notStarted.isPresent()) {
            err.println("Not started: " + notStarted.get() + ". Nothing was changed.");
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

    /**
     * Starts a rollout saved with {@code rollout plan --out} ({@code apply FILE}), its inputs already
     * proved unchanged ({@link SavedRollout#from}): the saved waves and settings, the fleet's
     * preconditions checked now, and every cluster's plan made again and compared with the saved one;
     * a cluster whose hosts changed refuses the whole rollout before wave 1, every such cluster listed
     * with what its plan would be now. Nothing is asked: the rollout was reviewed when it was saved.
     * Each cluster's plan is compared once more under its lock at its turn (the record keeps them).
     */
    static int startSaved(SavedRollout saved, Path file, ConnectionSettings connection, LockSettings lock,
                          io.etcdwright.run.StepWaits waits, boolean json, Path junit, boolean detailedExitcode, PrintWriter out,
                          PrintWriter err) {
        if (lock.noLock()) {
            throw new IllegalArgumentException("--no-lock: a rollout applies each cluster under its lock, as apply does");
        }
        Loaded loaded = load(saved.inputs(), saved.settings().parallel());
        PrintWriter shown = json ? err : out;
        // As 'rollout plan' planned them: a snapshot before risky changes, no downtime.
        PlanSettings planSettings = new PlanSettings(true, false, waits);
        try (RolloutRecords records = RolloutRecords.of(loaded.clusters())) {
            if (records.read(saved.id()).isPresent()) {
                throw new IllegalStateException("rollout " + saved.id() + " saved in " + file + " was started already (its record is in "
                        + records.describe() + "): a saved rollout is applied once; see 'etcdwright rollout status " + saved.id()
                        + "', resume it with 'etcdwright rollout resume " + saved.id() + "', or save a new one with"
                        + " 'etcdwright rollout plan --out'");
            }
            RolloutPlan plan = RolloutPlan.inWaves(saved.id(), loaded.inputs(), loaded.clusters(), saved.waveOf(), saved.labelOf(),
                    saved.settings(),
                    new RolloutPlan.Making(connection, planSettings, io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT, Optional.empty(),
                            saved.backupWithin()).reviewing(saved.reviewed()));
            RolloutReport.plan(plan, shown);
            Optional<String> notStarted = plan.whyNotStarted();
            if (notStarted.isPresent()) {
                err.println("Not started (" + file + "): " + notStarted.get() + ". Nothing was changed.");
                return Main.ERROR;
            }
            if (!plan.hasChanges()) {
                shown.println("Nothing to roll out: every cluster is as its spec says.");
                return Main.OK;
            }
            records.create(plan.record(driver()));
            shown.println("Recorded rollout " + saved.id() + " in " + records.describe() + ": 'etcdwright rollout status " + saved.id()
                    + "' follows it, 'etcdwright rollout resume " + saved.id() + "' resumes it if this process dies.");
            return walk(records, saved.id(), loaded, connection, lock, planSettings, json, junit, detailedExitcode, out, err);
        }
    }

    /**
     * One shard of one wave ({@code apply --wave K --shard I/N}), as a CI matrix job or an Indexed
     * Job's pod runs it: the waves computed from the inputs as every shard computes them, the gate
     * of wave K-1 checked from the hosts (stateless: no record of the other shards is needed), then
     * this shard's clusters of wave K rolled out as one wave, under a record of its own
     * ({@code NAME-waveK-shardIofN}) whose JSON and JUnit {@code rollout report --merge} joins.
     */
    static int startShard(Loaded loaded, RolloutOptions options, RolloutRecord.Settings settings, ConnectionSettings connection,
                          LockSettings lock, PlanSettings planSettings, boolean yes, boolean json, Path junit, boolean detailedExitcode,
                          PrintWriter out, PrintWriter err) {
        if (options.name == null) {
            throw new IllegalArgumentException("--wave takes --rollout NAME: every shard of every wave names the same rollout");
        }
        String base = options.id();
        java.util.OptionalInt total = options.shards == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(options.shards);
        io.etcdwright.run.rollout.Shard shard = io.etcdwright.run.rollout.Shard.of(Optional.ofNullable(options.shard), total, System.getenv())
                .orElse(new io.etcdwright.run.rollout.Shard(1, 1));
        // The waves of the whole rollout, as every shard and the rollout run whole compute them.
        List<io.etcdwright.run.rollout.Waves.Wave> waves = options.grouping()
                .group(loaded.clusters().stream().map(DesiredState::spec).toList());
        int k = options.wave;
        if (k < 1 || k > waves.size()) {
            throw new IllegalArgumentException("--wave " + k + ": the rollout of " + loaded.clusters().size() + " clusters in waves "
                    + settings.waves() + " has waves 1 to " + waves.size());
        }
        PrintWriter shown = json ? err : out;
        if (k > 1) {
            List<DesiredState> before = waves.get(k - 2).clusters().stream().map(i -> loaded.clusters().get(i)).toList();
            List<String> problems = gateProblems(before, connection, planSettings);
            if (!problems.isEmpty()) {
                problems.forEach(p -> err.println("error: " + p));
                err.println("Not started: wave " + (k - 1) + " has not passed its health gate (above); wave " + k
                        + " waits for it. Nothing was changed.");
                return Main.ERROR;
            }
            shown.println("Wave " + (k - 1) + " passed its health gate: " + before.size() + " clusters.");
        }
        List<Integer> mine = shard.take(waves.get(k - 1).clusters(), i -> loaded.clusters().get(i).spec().name());
        mine = mine.stream().sorted().toList();
        String id = RolloutRecords.checkId(base + "-wave" + k + "-shard" + shard.index() + "of" + shard.total());
        RolloutPlan plan = RolloutPlan.oneWave(id, k, waves.get(k - 1).label(), mine.stream().map(i -> loaded.inputs().get(i)).toList(),
                mine.stream().map(i -> loaded.clusters().get(i)).toList(), settings,
                new RolloutPlan.Making(connection, planSettings, io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT, Optional.empty(),
                        options.backupWithin()));
        shown.println("Shard " + shard + " of wave " + k + ": " + plan.entries().size() + " of its " + waves.get(k - 1).clusters().size()
                + " clusters.");
        RolloutReport.plan(plan, shown);
        if (!plan.ready()) {
            err.println("Not started: the shard's preconditions do not all hold (see above). Nothing was changed.");
            return Main.ERROR;
        }
        if (!yes && plan.hasChanges() && !Confirmation.ask("Start shard " + shard + " of wave " + k + "?", shown)) {
            err.println("Not started: no confirmation (pass --yes to skip the question).");
            return Main.ERROR;
        }
        try (RolloutRecords records = RolloutRecords.of(loaded.clusters())) {
            if (records.read(id).isEmpty()) {
                records.create(plan.record(driver()));
            }
            return walk(records, id, loaded, connection, lock, planSettings, json, junit, detailedExitcode, out, err);
        }
    }

    /** Every reason a cluster of {@code clusters} does not pass its health gate now, each prefixed with its name. */
    static List<String> gateProblems(List<DesiredState> clusters, ConnectionSettings connection, PlanSettings planSettings) {
        io.etcdwright.rollout.HealthGate gate = new io.etcdwright.rollout.HealthGate(connection, planSettings,
                io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT);
        return clusters.parallelStream().flatMap(d -> gate.problems(d).stream().map(p -> d.spec().name() + ": " + p)).toList();
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
            "Exits as plan does: 0 no changes, 2 changes with --detailed-exitcode, 1 a precondition not met or an error.",
            "With --out FILE, saved for 'etcdwright apply FILE', which rolls out exactly that or nothing."})
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

        @Option(names = "--out", paramLabel = "FILE", description = "Save the rollout for 'etcdwright apply FILE' (0600): its waves and"
                + " settings, each cluster's files by digest and its plan's fingerprint. Not saved when a precondition is not met.")
        Path saveTo;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            RolloutRecord.Settings settings = rollout.settings(input.parallel);
            List<FleetRun.Input> inputs = input.inputs();
            if (saveTo != null) {
                if (rollout.wave != null || rollout.shard != null || rollout.shards != null) {
                    throw new IllegalArgumentException("--out saves the whole rollout, every wave: --wave, --shard and --shards run"
                            + " one wave's shard from its specs, without a saved rollout");
                }
                // 'apply FILE' reads the inputs again to prove them unchanged by their digests.
                Optional<String> unsavable = PlanFile.unsavable(inputs.stream().flatMap(i -> java.util.stream.Stream.of(i.spec(),
                        i.inventory())).toList());
                if (unsavable.isPresent()) {
                    err.println("error: " + unsavable.get());
                    return Main.ERROR;
                }
            }
            Loaded loaded = load(inputs, input.parallel);
            RolloutPlan plan = RolloutPlan.make(rollout.id(), loaded.inputs(), loaded.clusters(), rollout.grouping(), settings,
                    new RolloutPlan.Making(connection.settings(), new PlanSettings(true, false, waits.timeouts()),
                            io.etcdwright.rollout.HealthGate.ETCD_TIMEOUT, Optional.ofNullable(facts), rollout.backupWithin()));
            RolloutReport.plan(plan, out);
            if (!plan.ready()) {
                if (saveTo != null) {
                    err.println("Not saved to " + saveTo + ": a rollout whose preconditions do not all hold (above) is not one to apply.");
                }
                return Main.ERROR;
            }
            if (saveTo != null) {
                SavedRollout.of(plan, rollout.backupWithin()).write(saveTo);
                out.println("Saved the rollout to " + saveTo + (plan.offline() ? " (planned from recorded facts: its note says what"
                        + " that cannot promise)" : "") + ". Run: etcdwright apply " + saveTo);
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

    @Command(name = "report", description = {"Join the reports of a rollout's shards into one: the summary, one JSON document, one JUnit report.",
            "Each FILE is a shard's -o json output (apply --wave K --shard I/N -o json)."})
    static final class Report implements Callable<Integer> {
        @Option(names = "--merge", required = true, arity = "1..*", paramLabel = "FILE", description = "The shards' JSON documents.")
        List<Path> files;

        @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "FORMAT", description = "text or json.")
        OutputFormat output;

        @Option(names = "--junit", paramLabel = "FILE", description = "Write the joined JUnit XML report: one test suite a wave.")
        Path junit;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            List<RolloutRecord> shards = new ArrayList<>();
            for (Path f : files) {
                shards.add(RolloutRecord.parse(java.nio.file.Files.readAllBytes(f), f.toString()));
            }
            return report(merge(shards, files), output == OutputFormat.json, junit, false, spec.commandLine().getOut());
        }

        /** The shards' records as one: every cluster once, the worst state, the rollout's own name. */
        static RolloutRecord merge(List<RolloutRecord> shards, List<Path> files) {
            Map<String, Path> seen = new LinkedHashMap<>();
            List<RolloutRecord.Cluster> clusters = new ArrayList<>();
            for (int i = 0; i < shards.size(); i++) {
                for (RolloutRecord.Cluster c : shards.get(i).clusters()) {
                    Path first = seen.putIfAbsent(c.name(), files.get(i));
                    if (first != null) {
                        throw new IllegalArgumentException(files.get(i) + ": cluster " + c.name() + " is also in " + first
                                + ": a cluster is in one shard of one wave");
                    }
                    clusters.add(c);
                }
            }
            clusters.sort(java.util.Comparator.comparingInt(RolloutRecord.Cluster::wave).thenComparing(RolloutRecord.Cluster::name));
            RolloutState worst = RolloutState.DONE;
            Optional<String> reason = Optional.empty();
            for (RolloutRecord r : shards) {
                if (severity(r.state()) > severity(worst)) {
                    worst = r.state();
                    reason = r.reason().map(w -> r.id() + ": " + w);
                }
            }
            RolloutRecord first = shards.get(0);
            String id = first.id().replaceFirst("-wave\\d+-shard\\d+of\\d+$", "");
            Instant created = shards.stream().map(RolloutRecord::created).min(Instant::compareTo).orElseThrow();
            Instant updated = shards.stream().map(RolloutRecord::updated).max(Instant::compareTo).orElseThrow();
            return new RolloutRecord(id, worst, reason, created, updated, first.by(), first.settings(), clusters);
        }

        private static int severity(RolloutState s) {
            return switch (s) {
                case DONE -> 0;
                case PAUSED -> 1;
                case RUNNING -> 2;
                case STOPPED -> 3;
                case ABORTED -> 4;
            };
        }
    }
}
