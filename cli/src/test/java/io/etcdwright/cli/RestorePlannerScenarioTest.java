package io.etcdwright.cli;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.restore.RestoreMarker;
import io.etcdwright.modules.restore.SnapshotSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The restore planner on facts recorded from real hosts: the order of the work, its refusals and what it says. */
class RestorePlannerScenarioTest {
    static final String SHA = "ab".repeat(32);
    static final List<String> HOSTS = List.of("h1", "h2", "h3");

    @TempDir
    Path home;
    PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    static SnapshotSource snapshot(boolean trailer, Optional<Version> takenBy) {
        return new SnapshotSource("/backups/s.db", Path.of("/backups/s.db"), SHA, 20512, trailer, takenBy,
                Optional.empty(), Optional.empty());
    }

    Plan plan(String facts, String spec, SnapshotSource source, boolean skip, Map<String, Optional<RestoreMarker>> markers,
              Set<String> unreachable) {
        return scenarios.restore(new PlannerScenarios.Scenario(facts, spec), source, skip, markers, unreachable);
    }

    Plan converged(SnapshotSource source) {
        return plan("converged", "three", source, false, Map.of(), Set.of());
    }

    static Step step(Plan plan, String id) {
        return plan.steps().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow(() -> new AssertionError(id
                + " not in " + PlannerScenarios.shape(plan)));
    }

    @Test
    void everySnapshotIsReadBeforeAnyStopAndEveryStopBeforeAnyRestoreAndEveryRestoreBeforeAnyStart() {
        Plan plan = converged(snapshot(true, Optional.empty()));
        assertFalse(plan.isRefused(), plan.refusals().toString());
        for (String h : HOSTS) {
            Step stop = step(plan, h + "/restore/stop");
            Step data = step(plan, h + "/restore/data");
            Step start = step(plan, h + "/restore/start");
            for (String other : HOSTS) {
                assertTrue(stop.after().contains(other + "/restore/stage"), stop.id() + " " + stop.after());
                assertTrue(data.after().contains(other + "/restore/stop"), data.id() + " " + data.after());
                assertTrue(start.after().contains(other + "/restore/data"), start.id() + " " + start.after());
            }
            assertTrue(data.reason().contains("moves to /var/lib/etcd.pre-restore-20261124t200000z"), data.reason());
        }
        assertEquals(List.of("cluster/restore/healthy", "cluster/restore/prove"),
                plan.steps().subList(plan.steps().size() - 2, plan.steps().size()).stream().map(Step::id).toList());
        assertEquals(List.of("all 3 members healthy within 120 s"), step(plan, "cluster/restore/healthy").readyWhen());
        assertTrue(plan.warnings().get(0).startsWith("DOWNTIME: every member is stopped"), plan.warnings().toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("under the new cluster token fresh-token")));
    }

    @Test
    void theConfigCarriesTheRestoresTokenSoTheNextApplyKeepsIt() {
        Plan plan = converged(snapshot(true, Optional.empty()));
        for (String h : HOSTS) {
            Step config = step(plan, h + "/config-file");
            assertTrue(config.diff().orElseThrow().after().contains("initial-cluster-token: fresh-token"));
            assertTrue(step(plan, h + "/restore/stage").after().contains(h + "/config-file"));
        }
    }

    @Test
    void aSnapshotOfAnotherMinorIsRefusedWithTheWayOut() {
        Plan plan = converged(snapshot(true, Optional.of(Version.parse("3.4.23"))));
        assertEquals(List.of("refused snapshot-version: /backups/s.db"), PlannerScenarios.shape(plan));
        assertTrue(plan.refusals().get(0).whatToDo().contains("restore it with etcd 3.4.23 first"), plan.refusals().toString());
    }

    @Test
    void aDatabaseWithoutTrailerNeedsTheExplicitFlagAndThePlanSaysItIsUnchecked() {
        Plan refused = converged(snapshot(false, Optional.empty()));
        assertEquals(List.of("refused snapshot-without-hash: /backups/s.db"), PlannerScenarios.shape(refused));
        Plan plan = plan("converged", "three", snapshot(false, Optional.empty()), true, Map.of(), Set.of());
        assertFalse(plan.isRefused());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("restored UNCHECKED")), plan.warnings().toString());
    }

    /**
     * A restore onto fewer members than the cluster had (quorum lost: the spec names the members to
     * rebuild): the old members on hosts the spec no longer lists would go on as the old cluster. Where
     * they answer, they are stopped and disabled (data kept) once the snapshot is staged everywhere,
     * beside the restore's own stops.
     */
    @Test
    void oldMembersOnHostsTheSpecNoLongerListsAreStoppedWithTheRestore() {
        Plan plan = scenarios.restoreReplacing(new PlannerScenarios.Scenario("converged", "one"), snapshot(true, Optional.empty()));
        assertFalse(plan.isRefused(), plan.refusals().toString());
        for (String old : List.of("h2", "h3")) {
            Step stop = step(plan, old + "/stop-removed");
            assertEquals("stop and disable etcd (its data in /var/lib/etcd stays)", stop.summary());
            assertEquals(old + " was a member of the cluster this restore replaces, and " + old + " is no member of the spec",
                    stop.reason());
            assertTrue(stop.after().contains("h1/restore/stage"), stop.after().toString());
        }
        assertTrue(plan.steps().stream().noneMatch(st -> st.id().equals("cluster/note-old-members")));
    }

    /**
     * Two of three hosts crashed (recorded), the cluster restored onto h1 alone: h2 and h3 cannot be
     * stopped now. The plan names them and why it matters, and notes them for the next apply, which
     * stops them once they are back.
     */
    @Test
    void oldMembersWhoseHostsAreDownAreNamedAndNotedForTheNextApply() throws Exception {
        Plan plan = scenarios.restoreReplacing(new PlannerScenarios.Scenario("h2-h3-crashed", "one"),
                snapshot(true, Optional.empty()));
        assertFalse(plan.isRefused(), plan.refusals().toString());
        assertTrue(plan.steps().stream().noneMatch(st -> st.id().endsWith("/stop-removed")), PlannerScenarios.shape(plan).toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("h2, h3 (members of the cluster before this restore, no"
                + " member of the spec) cannot be reached now: when they come back, etcd there starts as the old cluster")
                && w.contains("The next apply stops and disables it there, data kept")), plan.warnings().toString());
        Step note = step(plan, "cluster/note-old-members");
        assertTrue(note.after().contains("h1/restore/stage"), note.after().toString());
        assertEquals(io.etcdwright.engine.plan.Outcome.CHANGED, note.operation().run(null));
        assertEquals(Map.of("h3", "h3", "h2", "h2"), new io.etcdwright.modules.cluster.PendingStops(home.resolve("removed-hosts"))
                .pending());
        assertEquals(io.etcdwright.engine.plan.Outcome.OK, note.operation().run(null), "noted already: nothing changes");
    }

    @Test
    void anUnreachableMemberHostIsRefusedWithTheDisasterRecoveryWayOut() {
        Plan plan = plan("converged", "three", snapshot(true, Optional.empty()), false, Map.of(), Set.of("h3"));
        assertEquals(List.of("refused unreachable-host: h3"), PlannerScenarios.shape(plan));
        assertTrue(plan.refusals().get(0).whatToDo().contains("give member h3 a new host in the inventory"));
    }

    @Test
    void etcd34RestoresWithEtcdctlAndSaysItCannotBumpTheRevision() {
        Plan plan = plan("converged-34", "three-34", snapshot(true, Optional.empty()), false, Map.of(), Set.of());
        assertFalse(plan.isRefused(), plan.refusals().toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("etcdctl 3.4.23 cannot raise the revision")),
                plan.warnings().toString());
        assertFalse(step(plan, "cluster/restore/prove").summary().contains("+ 1000000000"));
    }

    @Test
    void anInterruptedRestoreResumesUnderTheTokenItBeganWith() {
        RestoreMarker begun = new RestoreMarker(SHA, "rs-restore-1", RestoreMarker.State.RESTORED, Optional.empty());
        Plan plan = plan("converged", "three", snapshot(true, Optional.empty()), false,
                Map.of("h1", Optional.of(begun), "h2", Optional.empty(), "h3", Optional.empty()), Set.of());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("under the new cluster token rs-restore-1")));
        assertEquals("restored by an earlier run: kept", step(plan, "h1/restore/data").reason());
        assertTrue(step(plan, "h2/restore/data").reason().startsWith("its data moves to"));
        Plan again = plan("converged", "three", snapshot(true, Optional.empty()), false,
                Map.of("h1", Optional.of(begun.proven())), Set.of());
        assertTrue(again.warnings().stream().anyMatch(w -> w.contains("under the new cluster token fresh-token")),
                "a proven restore is over: restoring again is a new restore");
    }
}
