package io.etcdwright.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.restore.RestoreMarker;
import io.etcdwright.modules.restore.WriteFence;
import io.etcdwright.modules.upgrade.VersionChange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A minor downgrade (members on 3.5.16, spec 3.4.23) planned from facts recorded on real hosts:
 * with the downtime allowed, a fenced snapshot restored with 3.4.23's etcdctl; a write fence an
 * interrupted apply left raised, lifted first; a restore an interrupted apply left in flight (its
 * markers on the hosts), finished from the staged snapshot under the same token.
 */
class MinorDowngradeScenarioTest {
    static final ConvergePlanner.VersionOptions ALLOWED = new ConvergePlanner.VersionOptions(true, VersionChange.PatchOffers.NONE);
    static final String SHA = "cd".repeat(32);
    static final List<String> HOSTS = List.of("h1", "h2", "h3");
    static final String PREFLIGHT = "cluster/version-preflight";

    @TempDir
    Path home;
    PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    private static Step step(Plan plan, String id) {
        return plan.steps().stream().filter(s -> s.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " not in " + PlannerScenarios.shape(plan)));
    }

    private static List<String> each(String format) {
        return HOSTS.stream().map(h -> String.format(format, h)).toList();
    }

    /** The restore part of a plan: staged after the snapshot, stops after every stage, and so on. */
    private static List<String> restore(String stagedAfter) {
        List<String> shape = new ArrayList<>();
        HOSTS.forEach(h -> shape.add(h + "/restore/stage <- " + h + "/install, " + h + "/unit" + stagedAfter));
        String stages = String.join(", ", each("%s/restore/stage"));
        HOSTS.forEach(h -> shape.add(h + "/restore/stop <- " + stages));
        String stops = String.join(", ", each("%s/restore/stop"));
        HOSTS.forEach(h -> shape.add(h + "/restore/data <- " + stops));
        String data = String.join(", ", each("%s/restore/data"));
        HOSTS.forEach(h -> shape.add(h + "/restore/start <- " + data));
        shape.add("cluster/restore/lift-write-fence <- " + String.join(", ", each("%s/restore/start")));
        shape.add("cluster/restore/healthy <- cluster/restore/lift-write-fence");
        shape.add("cluster/restore/prove <- cluster/restore/healthy");
        return shape;
    }

    @Test
    void withTheDowntimeAllowedItIsAFencedSnapshotRestoredWithTheOlderVersion() {
        Plan plan = scenarios.plan(new Scenario("converged", "three-34"), ALLOWED, true);
        List<String> want = new ArrayList<>(List.of(PREFLIGHT));
        for (String h : HOSTS) {
            want.add(h + "/install <- " + PREFLIGHT);
            want.add(h + "/config-file <- " + PREFLIGHT);
            want.add(h + "/unit <- " + h + "/config-file, " + PREFLIGHT);
        }
        want.add("cluster/downgrade-snapshot <- " + PREFLIGHT + ", "
                + String.join(", ", HOSTS.stream().map(h -> h + "/install, " + h + "/unit").toList()));
        want.addAll(restore(", cluster/downgrade-snapshot"));
        assertEquals(want, PlannerScenarios.shape(plan));

        assertEquals(List.of("every member answering, on 3.5.16, no alarm"), step(plan, PREFLIGHT).requires());
        assertEquals("install etcd 3.4.23", step(plan, "h1/install").summary());
        assertTrue(step(plan, "h1/config-file").diff().orElseThrow().after().contains("initial-cluster-token: scn-"));
        assertTrue(step(plan, "cluster/downgrade-snapshot").summary()
                .startsWith("refuse writes (etcd's NOSPACE alarm), then snapshot the cluster to " + home.resolve("snapshots")));
        assertEquals("copy the snapshot to /var/lib/etcdwright/restore and read it with etcdctl 3.4.23",
                step(plan, "h1/restore/stage").summary());
        assertEquals("prove the restore: one cluster on etcd 3.4.23, revision at least the snapshot's, the snapshot's keys",
                step(plan, "cluster/restore/prove").summary());

        String warnings = String.join("\n", plan.warnings());
        assertTrue(plan.warnings().get(0).startsWith("DOWNTIME: every member is stopped"), warnings);
        assertTrue(warnings.contains("minor downgrade from 3.5.16 to 3.4.23 through a snapshot and a restore: etcd 3.4.23"
                + " cannot join a cluster that speaks 3.5 (a rolling downgrade needs 3.4.32 or newer"), warnings);
        assertTrue(warnings.contains("raises etcd's NOSPACE alarm (member id " + Long.toHexString(WriteFence.MEMBER_ID)), warnings);
        assertTrue(warnings.contains("stop the writers"), warnings);
        assertTrue(warnings.contains("etcdctl 3.4.23 cannot raise the revision"), warnings);
        assertFalse(warnings.contains("does not say which etcd took it"), warnings);
    }

    @Test
    void theRestoresTokenIsFreshAndTheSameForTheSameFactsSoASavedPlanApplies() {
        Scenario s = new Scenario("converged", "three-34");
        Plan plan = scenarios.plan(s, ALLOWED, true);
        assertEquals(plan.fingerprint(), scenarios.plan(s, ALLOWED, true).fingerprint());
        String config = step(plan, "h1/config-file").diff().orElseThrow().after();
        String before = step(plan, "h1/config-file").diff().orElseThrow().before();
        assertFalse(config.lines().filter(l -> l.startsWith("initial-cluster-token:")).findFirst().orElseThrow()
                .equals(before.lines().filter(l -> l.startsWith("initial-cluster-token:")).findFirst().orElseThrow()), config);
    }

    @Test
    void withoutTheFlagItIsRefusedAndNoSnapshotCannotSkipTheSnapshotItRestores() {
        Plan refused = scenarios.plan(new Scenario("converged", "three-34"), ConvergePlanner.VersionOptions.DEFAULT, true);
        assertEquals(List.of("refused downtime-not-allowed: cluster scn"), PlannerScenarios.shape(refused));
        Plan noSnapshot = scenarios.plan(new Scenario("converged", "three-34"), ALLOWED, false);
        assertEquals(List.of("refused snapshot-required: cluster scn"), PlannerScenarios.shape(noSnapshot));
        assertEquals("apply without --no-snapshot", noSnapshot.refusals().get(0).whatToDo());
    }

    @Test
    void aDowngradeKeepsTheMembersItHasAMembershipChangeComesFirst() throws IOException {
        Path spec = home.resolve("h1-h2-34.yaml");
        Files.writeString(spec, Files.readString(PlannerScenarios.DIR.resolve("h1-h2.yaml"))
                .replace("version: 3.5.16", "version: 3.4.23"));
        String name = spec.toString().substring(0, spec.toString().length() - ".yaml".length());
        Plan plan = scenarios.plan(new Scenario("converged", name), ALLOWED, true);
        assertEquals(List.of("refused membership-differs: cluster scn"), PlannerScenarios.shape(plan));
        assertTrue(plan.refusals().get(0).whatToDo().startsWith("change the members first"), plan.refusals().toString());
    }

    @Test
    void aFenceAnInterruptedApplyLeftIsLiftedByTheNextApplyWhateverItPlans() throws IOException {
        Scenario fenced = new Scenario(edited("converged", this::raiseFence), "three");
        Plan converge = scenarios.plan(fenced, ConvergePlanner.VersionOptions.DEFAULT, true);
        assertEquals(List.of("cluster/lift-write-fence"), PlannerScenarios.shape(converge));

        Plan downgrade = scenarios.plan(new Scenario(fenced.facts(), "three-34"), ALLOWED, true);
        List<String> shape = PlannerScenarios.shape(downgrade);
        assertEquals(List.of("cluster/lift-write-fence", PREFLIGHT + " <- cluster/lift-write-fence"), shape.subList(0, 2));
        assertTrue(shape.contains("h1/install <- cluster/lift-write-fence, " + PREFLIGHT), shape.toString());
    }

    @Test
    void aRestoreKilledAfterItsFirstStopsIsFinishedFromTheStagedSnapshotUnderItsToken() throws IOException {
        // h2 and h3 stopped for the restore (h3's data restored already), h1 not stopped yet.
        String facts = edited("h2-h3-stopped", recording -> {
            marker(recording, "h2", "stopped");
            marker(recording, "h3", "restored");
        });
        // The flag is not needed: the downtime began in the apply that was allowed it.
        Plan plan = scenarios.plan(new Scenario(facts, "three-34"), ConvergePlanner.VersionOptions.DEFAULT, true);
        assertFalse(plan.isRefused(), plan.refusals().toString());
        List<String> shape = PlannerScenarios.shape(plan);
        assertFalse(shape.contains("cluster/downgrade-snapshot"), "no new snapshot: writes were fenced since");
        assertEquals(restore(""), shape.subList(shape.size() - restore("").size(), shape.size()));
        assertEquals("copy the snapshot to /var/lib/etcdwright/restore/" + SHA.substring(0, 16) + ".db and read it with"
                + " etcdctl 3.4.23", step(plan, "h1/restore/stage").summary());
        assertEquals("restored by an earlier run: kept", step(plan, "h3/restore/data").reason());
        assertEquals("restored by an earlier run: kept running", step(plan, "h3/restore/stop").reason());
        assertTrue(step(plan, "h2/restore/data").reason().startsWith("its data moves to /var/lib/etcd.pre-restore-"));
        assertTrue(step(plan, "h1/config-file").diff().orElseThrow().after().contains("initial-cluster-token: scn-resumed"));
        assertEquals("prove the restore: one cluster on etcd 3.4.23, revision at least the snapshot's, 1200 keys",
                step(plan, "cluster/restore/prove").summary());
        String warnings = String.join("\n", plan.warnings());
        assertTrue(warnings.contains("a restore is in flight: an earlier apply stopped or restored members from snapshot "
                + SHA.substring(0, 16)), warnings);
        assertTrue(warnings.contains("under the new cluster token scn-resumed"), warnings);
    }

    @Test
    void aProvenRestoreIsOverAndMarkersOfTwoSnapshotsAreRefused() throws IOException {
        Plan proven = scenarios.plan(new Scenario(edited("converged", r -> marker(r, "h1", "proven")), "three-34"),
                ConvergePlanner.VersionOptions.DEFAULT, true);
        assertEquals(List.of("refused downtime-not-allowed: cluster scn"), PlannerScenarios.shape(proven));

        Plan mixed = scenarios.plan(new Scenario(edited("h2-h3-stopped", r -> {
            marker(r, "h2", "stopped");
            ((ObjectNode) host(r, "h3").path("probes")).put("etcd_restore_marker", markerText("stopped").replace(SHA, "ef".repeat(32)));
            ((ObjectNode) host(r, "h3").path("probe_arguments")).putArray("etcd_restore_marker").add("/var/lib/etcd.etcdwright-restore");
        }), "three-34"), ALLOWED, true);
        assertEquals(List.of("refused restore-in-flight: cluster scn"), PlannerScenarios.shape(mixed));
        assertTrue(mixed.refusals().get(0).whatToDo().contains("etcdwright restore --from FILE"));
    }

    // ---- recordings edited: what an interrupted apply leaves on the hosts ----

    private String edited(String facts, java.util.function.Consumer<ObjectNode> edit) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode recording = (ObjectNode) json.readTree(PlannerScenarios.DIR.resolve(facts + ".json").toFile());
        edit.accept(recording);
        Path file = home.resolve(facts + "-edited-" + System.nanoTime());
        json.writeValue(file.resolveSibling(file.getFileName() + ".json").toFile(), recording);
        return file.toString();
    }

    private static ObjectNode host(ObjectNode recording, String name) {
        for (var h : recording.path("hosts")) {
            if (h.path("host").asText().equals(name)) {
                return (ObjectNode) h;
            }
        }
        throw new AssertionError("no host " + name);
    }

    /** The leader's answer to 'alarm list' names the fence (etcdctl's JSON: member id and alarm type as numbers). */
    private void raiseFence(ObjectNode recording) {
        String leader = recording.path("cluster_facts").path("leader").asText();
        ObjectNode probes = (ObjectNode) host(recording, leader).path("probes");
        String member = probes.path("etcd_member").asText();
        String alarms = member.lines().filter(l -> l.startsWith("alarms=")).findFirst().orElseThrow();
        probes.put("etcd_member", member.replace(alarms, alarms.substring(0, alarms.length() - 1)
                + ",\"alarms\":[{\"memberID\":" + Long.toUnsignedString(WriteFence.MEMBER_ID) + ",\"alarm\":1}]}"));
    }

    private static String markerText(String state) {
        return "snapshot=" + SHA + "\ntoken=scn-resumed\nstate=" + state + "\nmoved-to=\nbytes=2101280\nrevision=5000\n"
                + "keys=1200\ntaken-by=3.5.16\n";
    }

    private static void marker(ObjectNode recording, String host, String state) {
        ObjectNode h = host(recording, host);
        ((ObjectNode) h.path("probes")).put("etcd_restore_marker", markerText(state));
        ((ObjectNode) h.path("probe_arguments")).putArray("etcd_restore_marker").add("/var/lib/etcd.etcdwright-restore");
        assertTrue(RestoreMarker.parse(markerText(state)).isPresent());
    }
}
