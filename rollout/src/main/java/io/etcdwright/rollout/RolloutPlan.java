package io.etcdwright.rollout;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.run.BackupStores;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.RecoveryBackups;
import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.FleetRun;
import io.etcdwright.run.PlanSettings;
import io.etcdwright.run.ReviewedPlan;
import io.etcdwright.run.StatusReading;
import io.etcdwright.run.rollout.Waves;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A whole rollout before anything runs, as a value: every cluster's wave and its plan, and the
 * preconditions of the whole fleet (every cluster plannable: reachable, its plan not refused, its
 * lock free, a quorum), all listed at once. A rollout whose preconditions do not all hold touches
 * nothing. A rollout is a plan of plans: each cluster's plan is the single-cluster plan, made by
 * the run service, and is made again under the cluster's lock when its turn comes.
 *
 * @param id       the rollout's name
 * @param settings its waves, parallelism, budget and gate
 * @param waves    the clusters in their waves
 * @param offline  planned from recorded facts: locks and quorum were not asked
 */
public record RolloutPlan(String id, RolloutRecord.Settings settings, List<Wave> waves, boolean offline) {
    public RolloutPlan {
        waves = List.copyOf(waves);
    }

    /**
     * One wave: its number from 1, the label value that makes it ({@code site=dc1}, with
     * {@code --waves-by}), and its clusters in the rollout's order.
     */
    public record Wave(int number, Optional<String> label, List<Entry> clusters) {
        public Wave {
            clusters = List.copyOf(clusters);
        }
    }

    /**
     * One cluster: its input, its plan when it could be made, and why it cannot be rolled out now.
     *
     * @param reviewed in a saved rollout: the plan of it that was reviewed, which {@code plan} was
     *                 compared with and its apply is compared with again under its lock
     */
    public record Entry(String name, FleetRun.Input input, Optional<Plan> plan, List<String> problems,
                        Optional<ReviewedPlan> reviewed) {
        public Entry {
            problems = List.copyOf(problems);
        }

        public boolean hasChanges() {
            return plan.map(Plan::hasChanges).orElse(false);
        }

        /** In a saved rollout: its plan now is not its reviewed one (its hosts changed since it was saved). */
        public boolean changedSinceSaved() {
            return plan.isPresent() && reviewed.isPresent() && !reviewed.get().matches(plan.get());
        }
    }

    /**
     * What the plan was made with: how each cluster's plan is made and how long etcd is asked for.
     *
     * @param reviewed a saved rollout's reviewed plans, by cluster: each cluster's plan made now must be
     *                 its reviewed one (a cluster whose hosts changed since is a precondition not met);
     *                 empty for a rollout planned afresh
     */
    public record Making(ConnectionSettings connection, PlanSettings planSettings, Duration timeout, Optional<Path> factsDir,
                         Optional<Duration> backupWithin, Map<String, ReviewedPlan> reviewed) {
        public Making {
            reviewed = Map.copyOf(reviewed);
        }

        public Making(ConnectionSettings connection, PlanSettings planSettings, Duration timeout, Optional<Path> factsDir,
                      Optional<Duration> backupWithin) {
            this(connection, planSettings, timeout, factsDir, backupWithin, Map.of());
        }

        /** Without a backup precondition. */
        public Making(ConnectionSettings connection, PlanSettings planSettings, Duration timeout, Optional<Path> factsDir) {
            this(connection, planSettings, timeout, factsDir, Optional.empty());
        }

        /** The same, each cluster's plan compared with its reviewed one of a saved rollout. */
        public Making reviewing(Map<String, ReviewedPlan> saved) {
            return new Making(connection, planSettings, timeout, factsDir, backupWithin, saved);
        }
    }

    /** Every cluster of it, in the rollout's order. */
    public List<Entry> entries() {
        return waves.stream().flatMap(w -> w.clusters().stream()).toList();
    }

    /** Every precondition holds: the rollout may start. */
    public boolean ready() {
        return entries().stream().allMatch(e -> e.problems().isEmpty());
    }

    /**
     * Why a rollout of this plan must not start, or empty when it may: in a saved rollout, clusters
     * whose plans changed since it was saved (each one's problem says what its plan would be now),
     * else a precondition not met. Nothing is touched then.
     */
    public Optional<String> whyNotStarted() {
        long changed = entries().stream().filter(Entry::changedSinceSaved).count();
        if (changed > 0) {
            return Optional.of(changed + " of " + entries().size() + (entries().size() == 1 ? " cluster" : " clusters")
                    + " changed since the rollout was saved (above: what each one's plan would be now); run 'etcdwright rollout"
                    + " plan --out' again and review it");
        }
        if (!ready()) {
            return Optional.of("the rollout's preconditions do not all hold (see above)");
        }
        return Optional.empty();
    }

    /** Some cluster has steps to run. */
    public boolean hasChanges() {
        return entries().stream().anyMatch(Entry::hasChanges);
    }

    /** The record a rollout of this plan starts from: every cluster waiting. */
    public RolloutRecord record(String by) {
        List<RolloutRecord.Cluster> clusters = new ArrayList<>();
        for (Wave w : waves) {
            for (Entry e : w.clusters()) {
                clusters.add(new RolloutRecord.Cluster(e.name(), e.input().spec().toString(), e.input().inventory().toString(),
                        w.number(), ClusterState.WAITING, Optional.empty(), 0, 0, e.reviewed()));
            }
        }
        Instant now = Instant.now();
        return new RolloutRecord(id, RolloutState.RUNNING, Optional.empty(), now, now, by, settings, clusters);
    }

    /**
     * Plans the rollout of {@code clusters} (loaded and checked: {@link FleetRun#loadEvery}), the
     * clusters in the order given, put into waves by {@code grouping}.
     *
     * @throws io.etcdwright.engine.source.InvalidInputException when the grouping cannot place a
     *         cluster (a spec without the label of {@code --waves-by}), before any host is contacted
     */
    public static RolloutPlan make(String id, List<FleetRun.Input> inputs, List<DesiredState> clusters, Waves grouping,
                                   RolloutRecord.Settings settings, Making making) {
        List<Waves.Wave> grouped = grouping.group(clusters.stream().map(DesiredState::spec).toList());
        List<Entry> entries = checkAll(inputs, clusters, settings.parallel(), making);
        List<Wave> waves = new ArrayList<>();
        for (int i = 0; i < grouped.size(); i++) {
            waves.add(new Wave(i + 1, grouped.get(i).label(), grouped.get(i).clusters().stream().map(entries::get).toList()));
        }
        return new RolloutPlan(id, settings, waves, making.factsDir().isPresent());
    }

    /**
     * One wave of a rollout run as shards ({@code apply --wave K --shard I/N}): {@code clusters}, this
     * shard's part of it, as wave {@code number} (made by {@code label}, with {@code --waves-by}), the
     * waves before it left out (their gate is checked from the hosts, not from a record).
     */
    public static RolloutPlan oneWave(String id, int number, Optional<String> label, List<FleetRun.Input> inputs,
                                      List<DesiredState> clusters, RolloutRecord.Settings settings, Making making) {
        List<Entry> entries = checkAll(inputs, clusters, settings.parallel(), making);
        return new RolloutPlan(id, settings, List.of(new Wave(number, label, entries)), making.factsDir().isPresent());
    }

    /** The same plan with its clusters in waves given by name (from a record): {@code waveOf} names each one's wave. */
    public static RolloutPlan inWaves(String id, List<FleetRun.Input> inputs, List<DesiredState> clusters,
                                      Map<String, Integer> waveOf, RolloutRecord.Settings settings, Making making) {
        return inWaves(id, inputs, clusters, waveOf, Map.of(), settings, making);
    }

    /**
     * As {@link #inWaves(String, List, List, Map, RolloutRecord.Settings, Making)}, each wave with the
     * label value that made it ({@code labelOf}, by wave number: a saved rollout's, with {@code --waves-by}).
     */
    public static RolloutPlan inWaves(String id, List<FleetRun.Input> inputs, List<DesiredState> clusters,
                                      Map<String, Integer> waveOf, Map<Integer, String> labelOf, RolloutRecord.Settings settings,
                                      Making making) {
        List<Entry> entries = checkAll(inputs, clusters, settings.parallel(), making);
        int count = waveOf.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        List<Wave> waves = new ArrayList<>();
        for (int w = 1; w <= count; w++) {
            int wave = w;
            waves.add(new Wave(w, Optional.ofNullable(labelOf.get(w)), entries.stream().filter(e -> waveOf.get(e.name()) == wave)
                    .toList()));
        }
        return new RolloutPlan(id, settings, waves, making.factsDir().isPresent());
    }

    private static List<Entry> checkAll(List<FleetRun.Input> inputs, List<DesiredState> clusters, int parallel, Making making) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallel, clusters.size())), r -> {
            Thread t = new Thread(r, "etcdwright-rollout-plan");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Entry>> checks = new ArrayList<>();
            for (int i = 0; i < clusters.size(); i++) {
                FleetRun.Input input = inputs.get(i);
                DesiredState desired = clusters.get(i);
                checks.add(pool.submit(() -> check(input, desired, making)));
            }
            List<Entry> entries = new ArrayList<>();
            for (Future<Entry> f : checks) {
                entries.add(f.get());
            }
            return entries;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One cluster's plan and the preconditions it does not meet: in a saved rollout, also that its
     * plan is still the reviewed one (a new cluster planned with the saved token, as its apply will).
     */
    private static Entry check(FleetRun.Input input, DesiredState desired, Making making) {
        String name = desired.spec().name();
        Optional<ReviewedPlan> reviewed = Optional.ofNullable(making.reviewed().get(name));
        Optional<String> token = reviewed.flatMap(ReviewedPlan::newClusterToken);
        List<String> problems = new ArrayList<>();
        Optional<Plan> plan = Optional.empty();
        try {
            if (making.factsDir().isPresent()) {
                Path facts = making.factsDir().get().resolve(name + ".json");
                plan = Optional.of(ClusterRun.planOffline(input.inventory(), input.spec(), facts, making.planSettings(), token));
            } else {
                try (ClusterRun run = ClusterRun.of(desired, making.connection())) {
                    ClusterRun.Planned planned = run.planned(making.planSettings(), token);
                    plan = Optional.of(planned.plan());
                    planned.facts().unreachable().forEach((host, why) -> problems.add("host " + host + " unreachable: " + why));
                }
                StatusReading status = StatusReading.of(desired, making.connection(), making.timeout(), true);
                ClusterStatus cluster = status.status();
                if (!cluster.quorum()) {
                    problems.add("no quorum: " + cluster.healthyCount() + " of " + desired.members().size() + " members healthy");
                }
                if (making.backupWithin().isPresent()) {
                    problems.addAll(BackupFreshness.problems(new RecoveryBackups(desired, store -> BackupStores.open(store, desired,
                            making.connection()), RecoveryBackups.BOUND).look(), making.backupWithin().get(), Instant.now()));
                }
                status.lock().ifPresent(held -> problems.add("its lock is held" + held.holder()
                        .map(h -> " by " + h.describe(Instant.now())).orElse("") + ": wait for it, or see 'etcdwright unlock'"));
            }
        } catch (RuntimeException e) {
            problems.add("cannot be planned: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
        Entry entry = new Entry(name, input, plan, problems, reviewed);
        if (entry.changedSinceSaved()) {
            // What it would do now is its plan, shown as every cluster's is; its refusals, if it is refused now, say why not.
            Plan now = plan.orElseThrow();
            problems.add("changed since the rollout was saved: the hosts changed since it was planned, and " + (now.isRefused()
                    ? "now it is refused: " + String.join("; ", now.refusals().stream().map(r -> r.line()).toList())
                    : now.hasChanges() ? "its steps above are what it would do now" : "now it has nothing to do"));
        } else {
            plan.ifPresent(p -> p.refusals().forEach(r -> problems.add("refused: " + r.line())));
        }
        return new Entry(name, input, plan, problems, reviewed);
    }
}
