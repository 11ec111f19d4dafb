package io.etcdwright.cli;

import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.upgrade.VersionChange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Online minor downgrades (3.6.16 -> 3.5.35 through etcd's downgrade API) planned from facts
 * recorded on real hosts by testbed/record-scenarios-downgrade (scenarios/downgrade/README in
 * scenarios/README.md): planned from a converged 3.6 cluster; enabled by hand, every member's
 * storage already moved; enabled while h3 was stopped (its storage still at 3.6); half done (a
 * downgrade killed after its first swap); that one cancelled by hand; all on 3.5. Each with the
 * older version asked (go on) and the newer one (cancel, or converge's minor upgrade once no
 * downgrade is under way). The recorded leader is h2, so h2 is swapped last.
 */
class OnlineDowngradeScenarioTest {
    static final String PREFLIGHT = "cluster/version-preflight";

    @TempDir
    Path home;
    PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    private Plan plan(String facts, String spec) {
        return plan(facts, spec, ConvergePlanner.VersionOptions.DEFAULT);
    }

    private Plan plan(String facts, String spec, ConvergePlanner.VersionOptions versions) {
        return scenarios.plan(new Scenario("downgrade/" + facts, "downgrade/" + spec), "downgrade/inventory", versions);
    }

    private static Step step(Plan plan, String id) {
        return plan.steps().stream().filter(s -> s.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " not in " + PlannerScenarios.shape(plan)));
    }

    /**
     * Host h's files written after {@code after} (and its release), then its swap. Its config file too:
     * the 3.6 file turns etcd's corruption checks on as feature gates, the 3.5 one as experimental booleans.
     */
    private static List<String> swap(String h, String after, boolean installed) {
        String ready = after + (installed ? "" : ", " + h + "/install");
        return List.of(h + "/config-file <- " + ready, h + "/unit <- " + h + "/config-file, " + ready,
                h + "/downgrade <- " + after + ", " + h + "/unit");
    }

    @Test
    void aThreeSixClusterGoesDownThroughEtcdsDowngradeApiOneMemberAtATimeLeaderLast() {
        Plan plan = plan("converged-36", "three-35");
        List<String> want = new java.util.ArrayList<>(List.of(PREFLIGHT,
                "h1/install <- " + PREFLIGHT, "h2/install <- " + PREFLIGHT, "h3/install <- " + PREFLIGHT,
                "cluster/snapshot <- " + PREFLIGHT,
                "cluster/downgrade-enable <- cluster/snapshot"));
        want.addAll(swap("h1", "cluster/downgrade-enable", false));
        want.addAll(swap("h3", "h1/downgrade", false));
        want.addAll(swap("h2", "h3/downgrade", false));
        want.add("cluster/downgrade-ended <- h2/downgrade, cluster/downgrade-enable");
        assertEquals(want, PlannerScenarios.shape(plan));

        assertEquals(List.of("every member answering, on 3.5.35 or 3.6.16, no alarm"), step(plan, PREFLIGHT).requires());
        assertEquals("install etcd 3.5.35", step(plan, "h1/install").summary());
        Step enable = step(plan, "cluster/downgrade-enable");
        assertEquals("enable the downgrade to 3.5 (etcd's downgrade validate, then enable)", enable.summary());
        assertEquals(List.of("every member's storage version 3.5 within 120 s"), enable.readyWhen());
        Step leader = step(plan, "h2/downgrade");
        assertEquals("> swap etcd to 3.5.35 (runs 3.6.16)", leader.line());
        assertEquals(List.of("every member other than h2 healthy", "the downgrade to 3.5 under way, h2's storage at 3.5"),
                leader.requires());
        assertEquals(List.of("all 3 members healthy within 120 s", "a write commits through h2 within 120 s", "h2 on etcd 3.5.35"),
                leader.readyWhen());
        assertEquals(List.of("no downgrade under way within 120 s", "cluster version 3.5 within 120 s"),
                step(plan, "cluster/downgrade-ended").readyWhen());

        String warnings = String.join("\n", plan.warnings());
        assertTrue(warnings.contains("online minor downgrade from 3.6.16 to 3.5.35 through etcd's downgrade API: the members'"
                + " storage is moved to 3.5 first, then each member is swapped to 3.5.35, the leader last"), warnings);
        assertFalse(warnings.contains("DOWNTIME"), warnings);
        // --allow-downtime changes nothing: there is no downtime to allow.
        assertEquals(PlannerScenarios.shape(plan), PlannerScenarios.shape(plan("converged-36", "three-35",
                new ConvergePlanner.VersionOptions(true, VersionChange.PatchOffers.NONE))));
    }

    @Test
    void theSamePlanForTheSameFactsSoASavedPlanApplies() {
        assertEquals(plan("converged-36", "three-35").fingerprint(), plan("converged-36", "three-35").fingerprint());
        assertEquals(plan("half-done", "three-36").fingerprint(), plan("half-done", "three-36").fingerprint());
    }

    @Test
    void theVersionTheMembersRunIsNoChange() {
        assertEquals(List.of(), PlannerScenarios.shape(plan("converged-36", "three-36")));
        // Every member on 3.5: etcd's leader ended the downgrade, nothing is left.
        assertEquals(List.of(), PlannerScenarios.shape(plan("downgraded", "three-35")));
    }

    @Test
    void aDowngradeEnabledEarlierIsNotEnabledAgainItsStorageMoveIsAwaited() {
        Plan plan = plan("enabled", "three-35");
        List<String> want = new java.util.ArrayList<>(List.of(PREFLIGHT,
                "h1/install <- " + PREFLIGHT, "h2/install <- " + PREFLIGHT, "h3/install <- " + PREFLIGHT,
                "cluster/downgrade-storage <- " + PREFLIGHT));
        want.addAll(swap("h1", "cluster/downgrade-storage", false));
        want.addAll(swap("h3", "h1/downgrade", false));
        want.addAll(swap("h2", "h3/downgrade", false));
        want.add("cluster/downgrade-ended <- h2/downgrade, cluster/downgrade-storage");
        assertEquals(want, PlannerScenarios.shape(plan));
        // No second snapshot: the first apply took it before it enabled the downgrade.
        assertEquals(List.of("every member's storage version 3.5 within 120 s"),
                step(plan, "cluster/downgrade-storage").readyWhen());
        assertTrue(plan.warnings().contains("a downgrade to 3.5 is under way (an earlier apply enabled it): this apply goes on"
                + " with h1, h2, h3"), plan.warnings().toString());
    }

    @Test
    void aMemberStoppedWhenTheDowngradeWasEnabledStartsOnItsOwnFilesThenIsSwappedOnceItsStorageMoved() {
        Plan plan = plan("storage-pending-h3", "three-35");
        List<String> want = new java.util.ArrayList<>(List.of(PREFLIGHT,
                "h1/install <- " + PREFLIGHT, "h2/install <- " + PREFLIGHT, "h3/install <- " + PREFLIGHT,
                "cluster/downgrade-storage <- " + PREFLIGHT,
                "h3/start <- cluster/downgrade-storage, h3/install",
                "cluster/healthy <- h3/start"));
        want.addAll(swap("h1", "cluster/healthy", false));
        want.addAll(swap("h3", "h1/downgrade", false));
        want.addAll(swap("h2", "h3/downgrade", false));
        want.add("cluster/downgrade-ended <- h2/downgrade, cluster/downgrade-storage");
        assertEquals(want, PlannerScenarios.shape(plan));
        // Its storage is still 3.6 (it missed the move): on the 3.5 binary it would not start.
        assertEquals("> start etcd (not running; on the files it has, swapped once its storage moved)",
                step(plan, "h3/start").line());
        assertEquals(List.of("all 3 members healthy within 120 s", "every member's storage version 3.5 within 120 s"),
                step(plan, "cluster/healthy").readyWhen());
        assertEquals("> swap etcd to 3.5.35 (was stopped)", step(plan, "h3/downgrade").line());
        // The storage awaited first is that of the members running when planned.
        assertEquals(List.of("every member's storage version 3.5 within 120 s"),
                step(plan, "cluster/downgrade-storage").readyWhen());
    }

    @Test
    void halfDoneGoesOnWithTheMembersStillOnTheNewerMinorTheLeaderLast() {
        Plan plan = plan("half-done", "three-35");
        List<String> want = new java.util.ArrayList<>(List.of(PREFLIGHT, "cluster/downgrade-storage <- " + PREFLIGHT));
        want.addAll(swap("h3", "cluster/downgrade-storage", true));
        want.addAll(swap("h2", "h3/downgrade", true));
        want.add("cluster/downgrade-ended <- h2/downgrade, cluster/downgrade-storage");
        assertEquals(want, PlannerScenarios.shape(plan));
        assertEquals(List.of("every member answering, on 3.5.35 or 3.6.16, no alarm"), step(plan, PREFLIGHT).requires());
        assertTrue(plan.warnings().contains("a downgrade to 3.5 is under way (an earlier apply enabled it): this apply goes on"
                + " with h2, h3"), plan.warnings().toString());
    }

    @Test
    void theNewerVersionBackCancelsTheDowngradeAndSendsTheSwappedMemberBack() {
        Plan plan = plan("half-done", "three-36");
        assertEquals(List.of(PREFLIGHT,
                "h1/install <- " + PREFLIGHT, "h2/install <- " + PREFLIGHT, "h3/install <- " + PREFLIGHT,
                "cluster/downgrade-cancel <- " + PREFLIGHT,
                "h1/config-file <- cluster/downgrade-cancel, h1/install",
                "h1/unit <- h1/config-file, cluster/downgrade-cancel, h1/install",
                "h1/restart <- cluster/downgrade-cancel, h1/unit",
                "cluster/cluster-version <- h1/restart, cluster/downgrade-cancel"), PlannerScenarios.shape(plan));
        Step cancel = step(plan, "cluster/downgrade-cancel");
        assertEquals("> cancel the downgrade to 3.5 (etcd's downgrade cancel) (etcd.version is 3.6.16 again)", cancel.line());
        // etcd answers a cancel with success even when nothing was cancelled: the members must say so.
        assertEquals(List.of("no downgrade under way within 120 s"), cancel.readyWhen());
        assertEquals("> restart etcd on 3.6.16 (runs 3.5.35)", step(plan, "h1/restart").line());
        // The members still on 3.6 are left running: only their links go back to 3.6.16.
        assertEquals("activate etcd 3.6.16", step(plan, "h2/install").summary());
        assertTrue(plan.warnings().contains("etcd.version 3.6.16 while a downgrade to 3.5 is under way: this apply cancels it"
                + " (etcd's downgrade cancel), then h1 goes back to 3.6.16; etcd raises the cluster version to 3.6 once every"
                + " member runs it"), plan.warnings().toString());

        // Cancelled before any swap: the cancel, and the cluster version back at 3.6.
        assertEquals(List.of(PREFLIGHT, "cluster/downgrade-cancel <- " + PREFLIGHT,
                "cluster/cluster-version <- cluster/downgrade-cancel"), PlannerScenarios.shape(plan("enabled", "three-36")));
    }

    @Test
    void aCancelledDowngradeIsTheRestOfAnUpgradeOrOfARollback() {
        // Cancelled by hand with h1 on 3.5: the cluster version stays 3.5 until every member runs 3.6, so
        // the rest is a minor step 3.5 -> 3.6 as any other: etcd's checks first, then h1's files at its turn.
        Plan up = plan("cancelled", "three-36");
        String checks = "cluster/upgrade-checks";
        String installs = "h1/install-minor, h2/install-minor, h3/install-minor";
        assertEquals(List.of(PREFLIGHT, "cluster/snapshot <- " + PREFLIGHT, checks + " <- cluster/snapshot",
                "h1/install-minor <- " + checks, "h2/install-minor <- " + checks, "h3/install-minor <- " + checks,
                "h1/config-file-minor <- " + checks + ", " + installs,
                "h1/unit-minor <- h1/config-file-minor, " + checks + ", " + installs,
                "h1/restart-minor <- " + checks + ", " + installs + ", h1/unit-minor",
                "cluster/cluster-version <- h1/restart-minor"), PlannerScenarios.shape(up));
        Plan down = plan("cancelled", "three-35");
        // Rolled back to 3.5: h2's and h3's files as 3.5 reads them (the corruption checks as experimental booleans).
        assertEquals(List.of(PREFLIGHT, "h2/config-file <- " + PREFLIGHT, "h2/unit <- h2/config-file, " + PREFLIGHT,
                "h3/config-file <- " + PREFLIGHT, "h3/unit <- h3/config-file, " + PREFLIGHT, "cluster/snapshot <- " + PREFLIGHT,
                "h3/restart <- cluster/snapshot, h3/unit", "h2/restart <- h3/restart, h2/unit"), PlannerScenarios.shape(down));
    }

    @Test
    void membersOtherThanTheSpecsAreChangedFirstOnTheVersionTheyRun() {
        Plan plan = plan("converged-36", "two-35");
        assertEquals(List.of("refused membership-differs: cluster scn"), PlannerScenarios.shape(plan));
        assertTrue(plan.refusals().get(0).whatToDo().startsWith("change the members first, on the version they run"),
                plan.refusals().get(0).whatToDo());
    }
}
