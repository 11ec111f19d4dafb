package io.etcdwright.rollout;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.run.ClusterApply;
import io.etcdwright.run.ReviewedPlan;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The executor's walk of a rollout's record, with the clusters' applies and gates played by the test. */
class RolloutExecutorTest {
    @TempDir
    Path dir;

    private RolloutRecords records;
    private final Map<String, DesiredState> clusters = new LinkedHashMap<>();
    private final List<String> applied = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> failing = Collections.synchronizedSet(new HashSet<>());
    private final Map<String, Integer> gateFailsOnCheck = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, Integer> gateChecks = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<Duration> slept = Collections.synchronizedList(new ArrayList<>());
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void clusters() throws Exception {
        records = RolloutRecords.in(dir.resolve("records"));
        Files.writeString(dir.resolve("hosts.yaml"), """
                all:
                  hosts:
                    h1: {ansible_host: 10.0.0.11}
                    h2: {ansible_host: 10.0.0.12}
                    h3: {ansible_host: 10.0.0.13}
                    h4: {ansible_host: 10.0.0.14}
                    h5: {ansible_host: 10.0.0.15}
                    h6: {ansible_host: 10.0.0.16}
                """);
        for (int i = 1; i <= 6; i++) {
            Path spec = Files.writeString(dir.resolve("c" + i + ".yaml"), """
                    cluster:
                      name: c%d
                    members:
                      hosts: [h%d]
                    etcd:
                      version: 3.5.16
                    """.formatted(i, i));
            clusters.put("c" + i, DesiredStateLoader.load(dir.resolve("hosts.yaml"), spec));
        }
    }

    /** A rollout of c1..c6 in waves 1, 2, 3 (c1 | c2 c3 | c4 c5 c6). */
    private void record(String id, String maxFailures, boolean pause, Duration soak) {
        List<RolloutRecord.Cluster> list = new ArrayList<>();
        int[] waves = {1, 2, 2, 3, 3, 3};
        for (int i = 1; i <= 6; i++) {
            list.add(new RolloutRecord.Cluster("c" + i, "c" + i + ".yaml", "hosts.yaml", waves[i - 1], ClusterState.WAITING,
                    Optional.empty(), 0, 0));
        }
        Instant now = Instant.now();
        records.create(new RolloutRecord(id, RolloutState.RUNNING, Optional.empty(), now, now, "tester@here",
                new RolloutRecord.Settings("1,2,3", Optional.empty(), 2, maxFailures, 2, Duration.ofSeconds(10), soak, pause), list));
    }

    private RolloutExecutor executor() {
        RolloutExecutor.ClusterWork work = (desired, reviewed, stats) -> {
            String name = desired.spec().name();
            applied.add(name);
            stats.steps = 3;
            return failing.contains(name) ? Optional.of("step restart-h failed: etcd did not start") : Optional.empty();
        };
        RolloutExecutor.Gate gate = desired -> {
            String name = desired.spec().name();
            int check = gateChecks.merge(name, 1, Integer::sum);
            return gateFailsOnCheck.getOrDefault(name, 0) == check ? List.of(name + "-m1 is not healthy") : List.of();
        };
        return new RolloutExecutor(records, clusters, work, gate, executorListener(), slept::add);
    }

    private List<ClusterState> states(RolloutRecord r) {
        return r.clusters().stream().map(RolloutRecord.Cluster::state).toList();
    }

    @Test
    void everyWaveRunsInOrderAndEachClusterIsGatedTwice() {
        record("r1", "0", false, Duration.ZERO);
        RolloutRecord end = executor().run("r1", "tester@here");
        assertEquals(RolloutState.DONE, end.state());
        assertEquals(List.of(ClusterState.DONE, ClusterState.DONE, ClusterState.DONE, ClusterState.DONE, ClusterState.DONE,
                ClusterState.DONE), states(end));
        assertEquals("c1", applied.get(0), "the first wave is applied first");
        assertEquals(Set.of("c2", "c3"), Set.copyOf(applied.subList(1, 3)), "wave 2 before wave 3");
        assertEquals(Set.of("c4", "c5", "c6"), Set.copyOf(applied.subList(3, 6)));
        gateChecks.values().forEach(n -> assertEquals(2, n, "validate-count checks of every cluster"));
        assertEquals(6, slept.size(), "one interval between each cluster's two checks, no soak");
        assertEquals(3, end.cluster("c4").orElseThrow().steps());
        assertEquals(Optional.of(RolloutState.DONE), records.read("r1").map(RolloutRecord::state), "the record is written, not only returned");
    }

    @Test
    void aWaveOverItsBudgetStopsTheRolloutAndLaterWavesAreUntouchedUntilResumed() {
        record("r2", "0", false, Duration.ZERO);
        failing.add("c3");
        RolloutRecord stopped = executor().run("r2", "tester@here");
        assertEquals(RolloutState.STOPPED, stopped.state());
        assertTrue(stopped.reason().orElseThrow().contains("wave 2: 1 of 2 clusters failed"), stopped.reason().toString());
        assertEquals(ClusterState.FAILED, stopped.cluster("c3").orElseThrow().state());
        assertEquals(Optional.of("step restart-h failed: etcd did not start"), stopped.cluster("c3").orElseThrow().error());
        assertEquals(List.of(ClusterState.WAITING, ClusterState.WAITING, ClusterState.WAITING),
                stopped.wave(3).stream().map(RolloutRecord.Cluster::state).toList());
        assertEquals(Set.of("c1", "c2", "c3"), Set.copyOf(applied));

        failing.clear();
        applied.clear();
        RolloutRecord resumed = executor().run("r2", "other@there");
        assertEquals(RolloutState.DONE, resumed.state());
        assertEquals(List.of("c3"), applied.subList(0, 1), "resumed: the failed cluster again, the done ones not");
        assertEquals(Set.of("c3", "c4", "c5", "c6"), Set.copyOf(applied));
        assertEquals("other@there", resumed.by());
        assertEquals(6, resumed.cluster("c3").orElseThrow().steps(), "the steps of both its applies");
        assertEquals(3, resumed.cluster("c1").orElseThrow().steps(), "done before the resume: as it was");
    }

    @Test
    void aBudgetAllowsThatManyFailuresAWave() {
        record("r3", "1", false, Duration.ZERO);
        failing.add("c5");
        RolloutRecord end = executor().run("r3", "tester@here");
        assertEquals(RolloutState.DONE, end.state(), "one failure of three is within a budget of 1");
        assertEquals(ClusterState.FAILED, end.cluster("c5").orElseThrow().state());
    }

    @Test
    void aClusterFailingItsGateOnTheSecondCheckFailsWithTheReason() {
        record("r4", "0", false, Duration.ZERO);
        gateFailsOnCheck.put("c1", 2);
        RolloutRecord end = executor().run("r4", "tester@here");
        assertEquals(RolloutState.STOPPED, end.state());
        assertEquals(Optional.of("health gate, check 2 of 2: c1-m1 is not healthy"), end.cluster("c1").orElseThrow().error());
        assertEquals(List.of("c1"), applied, "nothing after the canary");
    }

    @Test
    void theSoakRunsAfterTheChecksAndIsFollowedByOneMore() {
        record("r5", "0", false, Duration.ofMinutes(5));
        gateFailsOnCheck.put("c1", 3);
        RolloutRecord end = executor().run("r5", "tester@here");
        assertTrue(slept.contains(Duration.ofMinutes(5)), slept.toString());
        assertEquals(Optional.of("after the soak: health gate, check 1 of 1: c1-m1 is not healthy"),
                end.cluster("c1").orElseThrow().error());
    }

    @Test
    void pauseAfterWaveStopsAfterEachWaveUntilResumed() {
        record("r6", "0", true, Duration.ZERO);
        RolloutRecord paused = executor().run("r6", "tester@here");
        assertEquals(RolloutState.PAUSED, paused.state());
        assertEquals(List.of("c1"), applied);
        paused = executor().run("r6", "tester@here");
        assertEquals(RolloutState.PAUSED, paused.state());
        assertEquals(3, applied.size());
        assertEquals(RolloutState.DONE, executor().run("r6", "tester@here").state(), "no pause after the last wave");
    }

    @Test
    void anAbortSkipsTheClustersNotStartedAndIsNotResumed() {
        record("r7", "0", false, Duration.ZERO);
        RolloutExecutor.ClusterWork abortingCanary = (desired, reviewed, stats) -> {
            applied.add(desired.spec().name());
            records.update("r7", r -> r.withState(RolloutState.ABORTED, Optional.of("aborted by a person")));
            return Optional.empty();
        };
        RolloutRecord end = new RolloutExecutor(records, clusters, abortingCanary, d -> List.of(), executorListener(), slept::add)
                .run("r7", "tester@here");
        assertEquals(RolloutState.ABORTED, end.state());
        assertEquals(ClusterState.DONE, end.cluster("c1").orElseThrow().state(), "the cluster in progress finishes");
        assertEquals(List.of(ClusterState.SKIPPED, ClusterState.SKIPPED, ClusterState.SKIPPED, ClusterState.SKIPPED, ClusterState.SKIPPED),
                states(end).subList(1, 6));
        assertEquals(List.of("c1"), applied);
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> executor().run("r7", "tester@here"));
        assertTrue(refused.getMessage().contains("is aborted"), refused.getMessage());
    }

    @Test
    void aRolloutKilledMidWaveResumesTheClusterInProgressAndNotTheDoneOnes() {
        record("r8", "0", false, Duration.ZERO);
        records.update("r8", r -> r.withCluster("c1", c -> c.with(ClusterState.DONE))
                .withCluster("c2", c -> c.with(ClusterState.DONE)).withCluster("c3", c -> c.with(ClusterState.APPLYING)));
        RolloutRecord end = executor().run("r8", "tester@here");
        assertEquals(RolloutState.DONE, end.state());
        assertEquals(Set.of("c3", "c4", "c5", "c6"), Set.copyOf(applied));
        assertEquals("c3", applied.get(0));
    }

    /**
     * A saved rollout's record names each cluster's reviewed plan: the executor hands it to the cluster's
     * apply, read from the record (so a resumed rollout compares again), and a cluster whose plan under
     * its lock is another ({@link RolloutExecutor#failureOf} of a stale outcome) fails, not applied,
     * counted against its wave's budget.
     */
    @Test
    void aSavedRolloutsClusterIsComparedWithItsReviewedPlanAndOneThatChangedFailsItsWave() {
        Plan nothingToDo = new Plan("c", List.of(), List.of(), List.of());
        ReviewedPlan asSaved = ReviewedPlan.of(nothingToDo);
        ReviewedPlan other = new ReviewedPlan("0".repeat(64), Optional.empty());
        List<RolloutRecord.Cluster> list = new ArrayList<>();
        int[] waves = {1, 2, 2, 3, 3, 3};
        for (int i = 1; i <= 6; i++) {
            list.add(new RolloutRecord.Cluster("c" + i, "c" + i + ".yaml", "hosts.yaml", waves[i - 1], ClusterState.WAITING,
                    Optional.empty(), 0, 0, Optional.of(i == 3 ? other : asSaved)));
        }
        Instant now = Instant.now();
        records.create(new RolloutRecord("r9", RolloutState.RUNNING, Optional.empty(), now, now, "tester@here",
                new RolloutRecord.Settings("1,2,3", Optional.empty(), 2, "0", 1, Duration.ZERO, Duration.ZERO, false), list));
        Map<String, Optional<ReviewedPlan>> given = Collections.synchronizedMap(new LinkedHashMap<>());
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        RolloutExecutor.ClusterWork work = (desired, reviewed, stats) -> {
            given.put(desired.spec().name(), reviewed);
            return RolloutExecutor.failureOf(ClusterApply.underLock(new ClusterApply.Locked() {
                @Override
                public Plan converge(io.etcdwright.run.PlanSettings settings, Optional<String> newClusterToken) {
                    return nothingToDo;
                }

                @Override
                public io.etcdwright.engine.exec.Recap apply(Plan plan, ProgressListener progress) {
                    ran.add(desired.spec().name());
                    return new io.etcdwright.engine.exec.Recap(List.of());
                }
            }, null, reviewed, plan -> Optional.empty(), RolloutExecutor.shownAs(desired.spec().name(), executorListener())), stats);
        };
        RolloutRecord end = new RolloutExecutor(records, clusters, work, d -> List.of(), executorListener(), slept::add)
                .run("r9", "tester@here");
        assertEquals(Optional.of(asSaved), given.get("c1"));
        assertEquals(Optional.of(other), given.get("c3"), "each cluster's own, from the record");
        assertEquals(List.of(), ran, "nothing to do: no step run");
        RolloutRecord.Cluster c3 = end.cluster("c3").orElseThrow();
        assertEquals(ClusterState.FAILED, c3.state());
        assertEquals(Optional.of("not applied: its plan is not the one saved with the rollout: the hosts changed since the plan was"
                + " made; now there is nothing to do"), c3.error());
        assertEquals(RolloutState.STOPPED, end.state(), "over wave 2's budget of 0: wave 3 untouched");
        assertEquals(ClusterState.WAITING, end.cluster("c4").orElseThrow().state());
        assertEquals(Optional.of(other), records.read("r9").orElseThrow().cluster("c3").orElseThrow().reviewed(),
                "kept in the record for a resume");
    }

    private RolloutListener executorListener() {
        return new RolloutListener() {
            @Override
            public void line(String line) {
                lines.add(line);
            }

            @Override
            public void planned(String cluster, Plan plan) {
            }

            @Override
            public ProgressListener progress(String cluster) {
                return ProgressListener.SILENT;
            }
        };
    }
}
