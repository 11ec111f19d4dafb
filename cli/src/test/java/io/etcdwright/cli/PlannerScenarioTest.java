package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.EtcdHostFacts;

import io.etcdwright.cli.PlannerScenarios.Pki;
import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The converge planner on facts recorded from real hosts (testbed/record-scenarios): for each
 * state an operator meets, the exact steps, their order and dependencies, and the refusals. These
 * run without hosts, in CI, and fail when a plan changes: a change here is a change of behaviour
 * to review, not a fixture to regenerate blindly.
 */
class PlannerScenarioTest {
    @TempDir
    Path home;

    PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    private Plan plan(Scenario s) {
        return scenarios.plan(s);
    }

    private static List<String> shape(Plan plan) {
        return PlannerScenarios.shape(plan);
    }

    /**
     * A bare host's preparation: set up, then the release install beside the chain of
     * certificates (after the workstation's PKI steps, {@code pki}), config and unit.
     */
    private static List<String> prepared(String host, String pki) {
        return List.of(host + "/host-setup", host + "/install <- " + host + "/host-setup",
                host + "/certificates <- " + pki + host + "/host-setup", host + "/config-file <- " + host + "/certificates",
                host + "/unit <- " + host + "/config-file");
    }

    /** What a host's start or restart waits for after a bare host's preparation: the install and the chain's end. */
    private static String preparedDone(String host) {
        return host + "/install, " + host + "/unit";
    }

    /** Restart steps one after another, the first after {@code first}, each after its host's {@code prepared} step. */
    private static List<String> restarts(List<String> order, String first, String prepared) {
        return restarts(order, first, "", prepared);
    }

    /** As above, when the host's install ran beside its chain ({@code beside} "install, "). */
    private static List<String> restarts(List<String> order, String first, String beside, String prepared) {
        List<String> shape = new ArrayList<>();
        String previous = first;
        for (String h : order) {
            shape.add(h + "/restart <- " + (previous.isEmpty() ? "" : previous + ", ")
                    + (beside.isEmpty() ? "" : h + "/" + beside) + h + "/" + prepared);
            previous = h + "/restart";
        }
        return shape;
    }

    /**
     * Removals as MembershipPlan orders them: followers first, the leader last after handing
     * leadership off, each followed by the stop of its host; numbered from {@code n}.
     */
    private static List<String> removals(List<String> leaving, String leader, int n, String first) {
        List<String> shape = new ArrayList<>();
        String previous = first;
        for (String h : PlannerScenarios.leaderLast(leaving, leader)) {
            if (h.equals(leader)) {
                shape.add("cluster/" + n + "-hand-off-" + h + " <- " + previous);
                previous = "cluster/" + n++ + "-hand-off-" + h;
            }
            shape.add("cluster/" + n + "-remove-" + h + " <- " + previous);
            shape.add(h + "/stop-removed <- cluster/" + n + "-remove-" + h);
            previous = "cluster/" + n++ + "-remove-" + h;
        }
        List<String> order = PlannerScenarios.leaderLast(leaving, leader);
        shape.add("cluster/healthy-after-membership <- " + order.get(order.size() - 1) + "/stop-removed");
        return shape;
    }

    private static Step step(Plan plan, String id) {
        return plan.steps().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow(() -> new AssertionError(id));
    }

    // ---- creating ----

    @Test
    void freshHostsBecomeOneThreeOrFiveMembersBootstrappedTogether() {
        for (List<String> hosts : List.of(List.of("h1"), List.of("h1", "h2", "h3"), List.of("h1", "h2", "h3", "h4", "h5"))) {
            String spec = switch (hosts.size()) { case 1 -> "one"; case 3 -> "three"; default -> "five"; };
            Plan plan = plan(new Scenario("fresh", spec).withPki(Pki.NONE));
            List<String> want = new ArrayList<>(List.of("cluster/ca", "cluster/clients <- cluster/ca"));
            hosts.forEach(h -> want.addAll(prepared(h, "cluster/ca, cluster/clients, ")));
            hosts.forEach(h -> want.add(h + "/start <- " + preparedDone(h)));
            want.add("cluster/healthy <- " + String.join(", ", hosts.stream().map(h -> h + "/start").toList())
                    + ", cluster/ca, cluster/clients");
            assertEquals(want, shape(plan), spec);
            Step healthy = step(plan, "cluster/healthy");
            assertEquals(List.of("all " + hosts.size() + " member" + (hosts.size() == 1 ? "" : "s") + " healthy within 120 s"),
                    healthy.readyWhen());
            assertTrue(healthy.summary().startsWith("bootstrap cluster scn"), healthy.summary());
        }
    }

    /**
     * A new cluster's token is random per plan, so a plan saved with 'plan --out' keeps the one it
     * shows, and its apply plans again with it: otherwise every saved create would be stale.
     */
    @Test
    void aSavedCreateKeepsItsBootstrapTokenSoItsApplyPlansTheSame() {
        Scenario fresh = new Scenario("fresh", "three").withPki(Pki.NONE);
        Plan first = plan(fresh);
        assertNotEquals(first.fingerprint(), plan(fresh).fingerprint(), "each plan of a new cluster draws its own token");
        SavedPlan saved = SavedPlan.of(PlannerScenarios.DIR.resolve("inventory.yaml"), PlannerScenarios.DIR.resolve("three.yaml"), first);
        String token = saved.bootstrapToken().orElseThrow();
        assertTrue(token.startsWith("scn-"), token);
        Plan again = scenarios.plan(fresh, Optional.of(token));
        assertEquals(first.fingerprint(), again.fingerprint());
        assertNull(saved.stalenessAgainst(again));
        // A running cluster's token is its own, whatever a saved plan says.
        assertEquals(plan(new Scenario("converged", "three")).fingerprint(),
                scenarios.plan(new Scenario("converged", "three"), Optional.of("scn-000000000000")).fingerprint());
    }

    // ---- converged, and each kind of drift ----

    @Test
    void aConvergedClusterNeedsNothing() {
        Plan plan = plan(new Scenario("converged", "three"));
        assertEquals(List.of(), shape(plan));
        assertFalse(plan.hasChanges());
        // Recorded before etcdwright told etcd 3.4 to serve its gRPC gateway (its config file leaves it
        // off, and etcdwright asks etcd through it): each member's config gains exactly that line, and
        // the members restart one at a time for it.
        Plan v34 = plan(new Scenario("converged-34", "three-34"));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-34"));
        List<String> want = new ArrayList<>(List.of("h1/config-file", "h2/config-file", "h3/config-file"));
        want.addAll(restarts(order, "", "config-file"));
        assertEquals(want, shape(v34));
        for (String h : List.of("h1", "h2", "h3")) {
            io.etcdwright.engine.plan.FileDiff diff = step(v34, h + "/config-file").diff().orElseThrow();
            assertEquals(diff.before(), diff.after().replace("enable-grpc-gateway: true\n", ""), h);
            assertTrue(diff.after().contains("enable-grpc-gateway: true\n"), diff.after());
        }
    }

    // ---- least key material on hosts ----

    static final String ADMIN_FILES = "/etc/etcd/pki/admin.key, /etc/etcd/pki/admin.crt";
    static final String APISERVER_FILES = "/etc/etcd/pki/kube-apiserver-etcd-client.key, /etc/etcd/pki/kube-apiserver-etcd-client.crt";

    /**
     * The recorded hosts, made by an etcdwright that put the admin and kube-apiserver client keys on
     * every member: the upgrade gives each member its own healthcheck client, then removes the
     * shared client files by name, and restarts nothing for them (neither is a file etcd reads). The
     * same etcdwright wrote no corruption checks: each config file gains them, and that restarts the
     * members one at a time ({@link #hostsAnOlderEtcdwrightConfiguredGetEtcdsCorruptionChecksOneMemberAtATime}).
     */
    @Test
    void anUpgradeGivesEachMemberItsHealthcheckClientAndRemovesTheSharedClientKeysWithoutARestart() {
        Plan plan = plan(new Scenario("converged", "three").recorded());
        List<String> want = new ArrayList<>();
        for (String h : List.of("h1", "h2", "h3")) {
            want.addAll(List.of(h + "/certificates", h + "/config-file <- " + h + "/certificates",
                    h + "/client-keys <- " + h + "/config-file"));
        }
        want.addAll(restarts(List.of("h1", "h2", "h3"), "", "client-keys"));
        assertEquals(want, shape(plan));
        Step certs = step(plan, "h1/certificates");
        assertEquals(io.etcdwright.engine.plan.ChangeKind.UPDATE, certs.kind());
        assertEquals("healthcheck-client.crt missing on host; healthcheck-client.key missing on host; "
                + io.etcdwright.modules.pki.CertificatesModule.NO_RESTART, certs.reason());
        Step removal = step(plan, "h2/client-keys");
        assertEquals(io.etcdwright.engine.plan.ChangeKind.DELETE, removal.kind());
        assertEquals("remove " + ADMIN_FILES + ", " + APISERVER_FILES, removal.summary());
        assertEquals("clients does not name h2 for admin or kube-apiserver: client keys stay on the workstation unless"
                + " the spec names the host; no restart", removal.reason());
        // Each restart is the config file's, not the keys'.
        for (String h : List.of("h1", "h2", "h3")) {
            assertEquals("config changed", step(plan, h + "/restart").reason());
        }
    }

    private static final String CORRUPTION_CHECKS = "etcd's data-corruption checks on by default (etcd.settings can turn them off)";

    /**
     * Hosts an etcdwright before the corruption-check default configured (the recordings, as they
     * are): each member's config file gains etcd's checks as its release spells them, with the
     * reason, and nothing else; the members restart one at a time, each only while every other one
     * is healthy, the leader last: the rolling restart of any setting, no downtime.
     */
    @Test
    void hostsAnOlderEtcdwrightConfiguredGetEtcdsCorruptionChecksOneMemberAtATime() {
        Map<String, String> added = Map.of(
                "converged", "experimental-compact-hash-check-enabled: true\nexperimental-initial-corrupt-check: true\n",
                "converged-36", "feature-gates: CompactHashCheck=true,InitialCorruptCheck=true\n",
                "converged-37", "feature-gates: CompactHashCheck=true,InitialCorruptCheck=true\n");
        Map<String, String> specs = Map.of("converged", "three", "converged-36", "three-36", "converged-37", "three-37");
        for (String facts : List.of("converged", "converged-36", "converged-37")) {
            Plan plan = plan(new Scenario(facts, specs.get(facts)).recorded());
            List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf(facts));
            String previous = "";
            for (String h : order) {
                Step config = step(plan, h + "/config-file");
                assertEquals(CORRUPTION_CHECKS, config.reason(), facts);
                String before = config.diff().orElseThrow().before();
                String after = config.diff().orElseThrow().after();
                assertFalse(before.contains("corrupt") || before.contains("CompactHash"), before);
                // The checks' lines, and nothing else, are new.
                assertEquals(before.lines().toList(), after.lines().filter(l -> !added.get(facts).contains(l + "\n")).toList(),
                        facts);
                assertTrue(after.contains(added.get(facts)), after);
                Step restart = step(plan, h + "/restart");
                assertEquals("config changed", restart.reason());
                assertEquals(List.of("every member other than " + h + " healthy"), restart.requires());
                if (!previous.isEmpty()) {
                    assertTrue(restart.after().contains(previous), facts + ": " + shape(plan));
                }
                previous = h + "/restart";
            }
            assertEquals(3, plan.steps().stream().filter(st -> st.id().endsWith("/restart")).count(), shape(plan).toString());
        }
        // The same hosts as this version leaves them (the checks written): nothing to do.
        assertEquals(List.of(), shape(plan(new Scenario("converged", "three"))));
    }

    /** etcd.settings turns a check off: the file says so, under the name the release reads. */
    @Test
    void theSpecTurnsACorruptionCheckOffAndThePlanWritesIt() throws Exception {
        String spec = specLike("three-36", "hash-check-off-36", "    election-timeout: 1000\n", "    election-timeout: 1000\n"
                + "    feature-gates: \"CompactHashCheck=false\"\n");
        Plan plan = plan(new Scenario("converged-36", spec));
        Step config = step(plan, "h1/config-file");
        assertEquals("content differs", config.reason());
        assertTrue(config.diff().orElseThrow().after().contains("feature-gates: CompactHashCheck=false,InitialCorruptCheck=true\n"),
                config.diff().orElseThrow().after());
    }

    /** The spec's clients keeps the named hosts' copies and removes only the others'. */
    @Test
    void hostsTheSpecNamesForAClientKeepItsKeyAndOnlyTheOthersLoseIt() {
        Plan plan = scenarios.plan(new Scenario("converged", "three-clients").recorded(), "inventory-control-plane");
        // The config files gain the corruption checks (the recording's etcdwright wrote none) and restart their members.
        List<String> want = new ArrayList<>(List.of("h1/certificates", "h1/config-file <- h1/certificates", "h2/certificates",
                "h2/config-file <- h2/certificates", "h2/client-keys <- h2/config-file", "h3/certificates",
                "h3/config-file <- h3/certificates", "h3/client-keys <- h3/config-file", "h1/restart <- h1/config-file"));
        want.addAll(restarts(List.of("h2", "h3"), "h1/restart", "client-keys"));
        assertEquals(want, shape(plan));
        assertEquals("remove " + ADMIN_FILES, step(plan, "h2/client-keys").summary());
        assertEquals("clients does not name h2 for admin: client keys stay on the workstation unless the spec names the"
                + " host; no restart", step(plan, "h2/client-keys").reason());
        assertEquals("remove " + ADMIN_FILES + ", " + APISERVER_FILES, step(plan, "h3/client-keys").summary());
    }

    /** Hosts as this version leaves them, then named in clients: the copies are delivered, nothing restarts. */
    @Test
    void hostsNewlyNamedForAClientGetItsCertificateAndKey() {
        Plan plan = scenarios.plan(new Scenario("converged", "three-clients"), "inventory-control-plane");
        assertEquals(List.of("h1/certificates", "h2/certificates"), shape(plan));
        assertEquals("admin.crt missing on host; admin.key missing on host; kube-apiserver-etcd-client.crt missing on host;"
                + " kube-apiserver-etcd-client.key missing on host; " + io.etcdwright.modules.pki.CertificatesModule.NO_RESTART,
                step(plan, "h1/certificates").reason());
        assertEquals("kube-apiserver-etcd-client.crt missing on host; kube-apiserver-etcd-client.key missing on host; "
                + io.etcdwright.modules.pki.CertificatesModule.NO_RESTART, step(plan, "h2/certificates").reason());
    }

    @Test
    void aStoppedMemberIsStartedAndTheClusterAwaitedHealthy() {
        assertEquals(List.of("h2/start", "cluster/healthy <- h2/start"), shape(plan(new Scenario("h2-stopped", "three"))));
    }

    @Test
    void twoStoppedMembersOfThreeAreARepairNotAMembershipChange() {
        assertEquals(List.of("h2/start", "h3/start", "cluster/healthy <- h2/start, h3/start"),
                shape(plan(new Scenario("h2-h3-stopped", "three"))));
    }

    @Test
    void configDriftIsRewrittenAndRestartedOnlyWhereTheContentChanged() {
        Plan plan = plan(new Scenario("config-drift", "three"));
        assertEquals(List.of("h1/config-file", "h2/config-file", "h1/restart <- h1/config-file"), shape(plan));
        assertEquals("content differs", step(plan, "h1/config-file").reason());
        assertTrue(step(plan, "h1/config-file").diff().orElseThrow().before().contains("max-txn-ops: 256"));
        assertEquals("mode/owner differ", step(plan, "h2/config-file").reason());
        assertTrue(step(plan, "h2/config-file").diff().isEmpty(), "a mode change has no content diff");
        Step restart = step(plan, "h1/restart");
        assertEquals("config changed", restart.reason());
        assertEquals(List.of("every member other than h1 healthy"), restart.requires());
        assertEquals(List.of("all 3 members healthy within 120 s", "a write commits through h1 within 120 s"), restart.readyWhen());
    }

    @Test
    void aMissingUnitIsWrittenAndItsMemberRestarted() {
        assertEquals(List.of("h3/unit", "h3/restart <- h3/unit"), shape(plan(new Scenario("unit-missing-h3", "three"))));
    }

    @Test
    void anApplyInterruptedBetweenWriteAndRestartLeavesTheRestart() {
        Plan plan = plan(new Scenario("restart-pending-h1", "three"));
        assertEquals(List.of("h1/restart"), shape(plan));
        assertEquals("config written after etcd started", step(plan, "h1/restart").reason());
    }

    @Test
    void missingLinksOfTheRunningVersionArePutBackWithoutARestart() {
        Plan plan = plan(new Scenario("links-missing-h3", "three"));
        assertEquals(List.of("h3/install"), shape(plan));
        assertEquals("activate etcd 3.5.16", step(plan, "h3/install").summary());
    }

    @Test
    void aWipedMemberIsRemovedAndJoinsAfreshAfterASnapshot() {
        assertEquals(List.of("h2/config-file", "cluster/snapshot", "cluster/1-remove-h2 <- cluster/snapshot",
                "cluster/2-add-h2 <- cluster/1-remove-h2", "h2/join <- cluster/2-add-h2, h2/config-file",
                "cluster/4-promote-h2 <- h2/join", "cluster/healthy-after-membership <- cluster/4-promote-h2"),
                shape(plan(new Scenario("h2-wiped", "three"))));
    }

    @Test
    void aFirstMemberThatNeverStartedJoinsAsItselfWithoutAMembershipChange() {
        // A create killed after two of its members started: the cluster lists h2 (named by the
        // initial cluster) but h2 never ran, so it never published its client URLs, and its host
        // holds no data. Nothing of it was lost: it is started as the member it is, as etcd allows
        // a first member that has not published its client URLs (isMemberBootstrapped).
        Plan plan = plan(new Scenario("h2-never-started", "three"));
        assertEquals(List.of("h2/start", "cluster/healthy <- h2/start"), shape(plan));
    }

    // ---- certificates ----

    @Test
    void certificatesNearExpiryAreRenewedWithoutARestart() {
        // etcd loads its server and peer certificate and key at each new TLS handshake; the CA is the same.
        Plan plan = plan(new Scenario("converged", "three").after(Duration.ofDays(340)));
        assertEquals(List.of("cluster/clients", "h1/certificates <- cluster/clients",
                "h2/certificates <- cluster/clients", "h3/certificates <- cluster/clients"), shape(plan));
        String reason = step(plan, "h1/certificates").reason();
        assertTrue(reason.contains("expires in 24 days"), reason);
        assertTrue(reason.endsWith("; etcd reads its certificate at each new TLS handshake: no restart"), reason);
    }

    // A CA that changed under a running cluster is a rotation now: CaRotationScenarioTest.

    // ---- membership ----

    @Test
    void growingAddsEachNewMemberAsALearnerThenPromotesItOneAtATime() {
        List<String> want = new ArrayList<>();
        want.addAll(prepared("h4", ""));
        want.addAll(prepared("h5", ""));
        want.addAll(List.of("cluster/snapshot", "cluster/1-add-h4 <- cluster/snapshot",
                "h4/join <- cluster/1-add-h4, " + preparedDone("h4"), "cluster/3-promote-h4 <- h4/join",
                "cluster/4-add-h5 <- cluster/3-promote-h4", "h5/join <- cluster/4-add-h5, " + preparedDone("h5"),
                "cluster/6-promote-h5 <- h5/join",
                "cluster/healthy-after-membership <- cluster/6-promote-h5"));
        assertEquals(want, shape(plan(new Scenario("converged", "five"))));
    }

    @Test
    void shrinkingRemovesMembersOneAtATimeLeaderLastAndStopsThemOnTheirHosts() {
        String leader = PlannerScenarios.leaderOf("converged");
        Plan plan = plan(new Scenario("converged", "one"));
        List<String> want = new ArrayList<>(List.of("cluster/snapshot"));
        want.addAll(removals(List.of("h2", "h3"), leader, 1, "cluster/snapshot"));
        assertEquals(want, shape(plan));
        assertEquals(!leader.equals("h1"), shape(plan).stream().anyMatch(l -> l.contains("-hand-off-" + leader)),
                "a leader that leaves hands leadership off first (" + leader + " led)");
    }

    @Test
    void replacingTwoMembersAddsTheNewOneBeforeAnyLeaves() {
        List<String> want = new ArrayList<>(prepared("h4", ""));
        want.addAll(List.of("cluster/snapshot", "cluster/1-add-h4 <- cluster/snapshot",
                "h4/join <- cluster/1-add-h4, " + preparedDone("h4"),
                "cluster/3-promote-h4 <- h4/join"));
        want.addAll(removals(List.of("h2", "h3"), PlannerScenarios.leaderOf("converged"), 4, "cluster/3-promote-h4"));
        assertEquals(want, shape(plan(new Scenario("converged", "h1-h4"))));
    }

    @Test
    void aCrashedMemberThatLeavesTheSpecIsRemovedButAMemberHostThatIsDownIsARefusal() {
        assertEquals(List.of("cluster/snapshot", "cluster/1-remove-h3 <- cluster/snapshot",
                "h3/stop-removed <- cluster/1-remove-h3", "cluster/healthy-after-membership <- h3/stop-removed"),
                shape(plan(new Scenario("h3-crashed", "h1-h2"))));
        Plan refused = plan(new Scenario("h3-crashed", "three"));
        assertEquals(List.of("refused unreachable-host: h3"), shape(refused));
        assertTrue(refused.refusals().get(0).what().contains("connection refused"), refused.refusals().toString());
        assertTrue(refused.refusals().get(0).whatToDo().contains("give member h3 a new host"), refused.refusals().toString());
    }

    /** Every member host switched off: one refusal each, naming why, never an error from facts that are not there. */
    @Test
    void everyMemberHostUnreachableIsARefusalPerHost() {
        Plan plan = scenarios.plan(new Scenario("converged", "three"), facts -> new ClusterRun.Facts(facts.reports(),
                facts.addresses(), java.util.Map.of(), java.util.Map.of("h1", "connection timed out", "h2", "connection timed out",
                "h3", "connection timed out"), Optional.empty()));
        assertEquals(List.of("refused unreachable-host: h1", "refused unreachable-host: h2", "refused unreachable-host: h3"),
                shape(plan));
    }

    @Test
    void aMembershipChangeWithoutQuorumIsRefusedNamingTheMembers() {
        Plan plan = plan(new Scenario("h2-h3-stopped", "h1-h4"));
        assertEquals(List.of("refused quorum-lost: cluster scn"), shape(plan));
        assertTrue(plan.refusals().get(0).what().contains("down: h2 (etcd is not running on h2 (inactive)); h3 (etcd is not"
                + " running on h3 (inactive))"), plan.refusals().get(0).what());
        assertTrue(plan.refusals().get(0).whatToDo().startsWith("(1) bring 1 more voting member back: start etcd on h2, h3."
                + " With the hosts back, apply with the spec's members as the cluster has them (h1, h2, h3) starts etcd where"
                + " it is stopped; change the membership once quorum is back"), plan.refusals().get(0).whatToDo());
        // With the spec's members the cluster's, starting them is the repair, not a refusal.
        assertTrue(plan(new Scenario("h2-h3-stopped", "three")).refusals().isEmpty());
    }

    /**
     * Two of three hosts powered off (recorded): h1 alone answers, its own member list names the three
     * voters and its health read finds no leader. Whatever the spec asks (the same members, or one
     * removed), the plan says first and alone that quorum is lost, and the ways out that work: the
     * hosts back, or a restore from the newest backup the stores hold; never a membership change,
     * which cannot commit (the unreachable host's usual advice, a new host for the member, is one).
     */
    @Test
    void withTwoOfThreeHostsCrashedThePlanNamesLostQuorumAndRestoreNeverAMembershipChange() {
        java.time.Instant recorded = PlannerScenarios.clockOf(new Scenario("h2-h3-crashed", "three")).instant();
        io.etcdwright.modules.backup.BackupName newest = io.etcdwright.modules.backup.BackupName.of(recorded.minusSeconds(47 * 60), 12);
        io.etcdwright.modules.backup.BackupsSeen seen = new io.etcdwright.modules.backup.BackupsSeen.Looked(List.of(
                new io.etcdwright.modules.backup.BackupsSeen.StoreAnswer.Newest("local", newest, java.util.OptionalLong.of(8123)),
                new io.etcdwright.modules.backup.BackupsSeen.StoreAnswer.Unreachable("offsite", "no answer within 10 s")));
        for (String spec : List.of("three", "h1-h2")) {
            Plan plan = scenarios.plan(new Scenario("h2-h3-crashed", spec), () -> seen);
            assertEquals(List.of("refused quorum-lost: cluster scn"), shape(plan), spec);
            String what = plan.refusals().get(0).what();
            String toDo = plan.refusals().get(0).whatToDo();
            assertTrue(what.startsWith("quorum lost: only 1 of the 3 voting members answer (h1), and a quorum is 2; down: "), what);
            assertTrue(what.contains("h2 (host h2 unreachable: connection refused at 10.77.0.12:22 (is sshd running?))"), what);
            assertTrue(what.contains("no member can be removed, replaced or added now"), what);
            assertTrue(toDo.startsWith("(1) bring 1 more voting member back: bring the hosts of h2, h3 back (power, network,"
                    + " sshd)."), toDo);
            assertTrue(toDo.contains("or (2) if they are lost for good, rebuild the cluster from a backup with 'etcdwright"
                    + " restore --from BACKUP'"), toDo);
            assertTrue(toDo.endsWith("the newest backup is " + newest + " in store 'local', taken 47 minutes ago at revision 8123"
                    + " (writes since then are lost); store 'offsite' could not be asked (no answer within 10 s), it may hold a"
                    + " newer one"), toDo);
            assertFalse(toDo.contains("give member") || toDo.contains("new host in the inventory"), toDo);
            assertEquals(spec.equals("three"), !toDo.contains("as the cluster has them (h1, h2, h3)"), toDo);
        }
        assertTrue(scenarios.plan(new Scenario("h2-h3-crashed", "three")).refusals().get(0).whatToDo()
                .endsWith("the backup stores were not looked at (no store in this scenario): 'etcdwright backups list' shows"
                        + " them"));
        // The stores are asked only when quorum is lost: a plan of a healthy cluster never waits for them.
        Plan converged = scenarios.plan(new Scenario("converged", "three"), () -> {
            throw new AssertionError("the stores were asked for a cluster with quorum");
        });
        assertTrue(converged.refusals().isEmpty());
    }

    @Test
    void aMemberOnNoHostOfTheInventoryIsRemovedWithoutAStopStep() {
        Plan plan = scenarios.plan(new Scenario("converged", "h1-h2"), "inventory-without-h3");
        assertEquals(List.of("cluster/snapshot", "cluster/1-remove-h3 <- cluster/snapshot",
                "cluster/healthy-after-membership <- cluster/1-remove-h3"), shape(plan));
    }

    // ---- versions ----

    /** Every host step of a version change waits for the preflight, checked when the apply runs. */
    private static final String PREFLIGHT = "cluster/version-preflight";

    private static List<String> preparedAfterPreflight(String... steps) {
        return java.util.Arrays.stream(steps).map(s -> s + " <- " + PREFLIGHT).toList();
    }

    @Test
    void aPatchUpgradeChecksFirstSnapshotsThenRollsFollowersFirstAndTheLeaderLast() {
        Plan plan = plan(new Scenario("converged", "three-3530"));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT));
        want.addAll(preparedAfterPreflight("h1/install", "h1/unit", "h2/install", "h2/unit", "h3/install", "h3/unit"));
        want.add("cluster/snapshot <- " + PREFLIGHT);
        want.addAll(restarts(PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged")),
                "cluster/snapshot", "install, ", "unit"));
        assertEquals(want, shape(plan));
        assertEquals(List.of("every member answering, on 3.5.16 or 3.5.30, no alarm"), step(plan, PREFLIGHT).requires());
        assertTrue(step(plan, "cluster/snapshot").reason().startsWith("before patch change"), step(plan, "cluster/snapshot").reason());
    }

    @Test
    void aPatchUpgradeKilledAfterItsFirstRestartResumesWithTheOthersLeaderLast() {
        // The recording: 3.5.30 installed and its unit written everywhere, one member restarted on it.
        Plan resume = plan(new Scenario("mixed-3530", "three-3530"));
        List<String> stillOld = List.of("h1", "h2", "h3").stream()
                .filter(h -> resume.steps().stream().anyMatch(s -> s.id().equals(h + "/restart"))).toList();
        assertEquals(2, stillOld.size(), shape(resume).toString());
        List<String> want = new ArrayList<>();
        want.add(PREFLIGHT);
        want.add("cluster/snapshot <- " + PREFLIGHT);
        String previous = "cluster/snapshot";
        for (String h : PlannerScenarios.leaderLast(stillOld, PlannerScenarios.leaderOf("mixed-3530"))) {
            want.add(h + "/restart <- " + previous);
            previous = h + "/restart";
        }
        assertEquals(want, shape(resume));
        assertEquals("unit written after etcd started", step(resume, stillOld.get(0) + "/restart").reason());
        // Going back to 3.5.16 from there is a patch downgrade: it rolls too, and only the member that
        // runs 3.5.30 restarts. The others run 3.5.16 already: their links and unit (moved on to 3.5.30
        // before the kill) are written back, which changes nothing they run.
        Plan back = plan(new Scenario("mixed-3530", "three"));
        assertEquals("activate etcd 3.5.16", step(back, "h1/install").summary());
        assertTrue(back.refusals().isEmpty());
        String upgraded = List.of("h1", "h2", "h3").stream().filter(h -> !stillOld.contains(h)).findFirst().orElseThrow();
        List<String> restarted = back.steps().stream().filter(s -> s.id().endsWith("/restart")).map(s -> s.host().orElseThrow()).toList();
        assertEquals(List.of(upgraded), restarted, back.steps().stream().map(st -> st.id() + ": " + st.summary() + " (" + st.reason() + ")").toList().toString());
        assertEquals("binary changed, unit changed", step(back, upgraded + "/restart").reason());
        for (String h : stillOld) {
            assertEquals("activate etcd 3.5.16", step(back, h + "/install").summary());
            assertTrue(back.steps().stream().anyMatch(s -> s.id().equals(h + "/unit")), shape(back).toString());
        }
    }

    /**
     * A minor step's shape, after {@code first}: the new release to every host at once, then member by
     * member (in {@code order}) its {@code files} (config-file, unit) written just before its restart,
     * then the cluster version awaited. The config file changes in a step out of 3.4 or 3.5: the
     * corruption checks etcdwright turns on are spelled by each release its own way (3.4: the initial
     * check only; 3.5: two experimental booleans; 3.6 and 3.7: feature gates).
     */
    private static List<String> minorStep(List<String> all, List<String> order, String first, String... files) {
        return minorStep(all, order, first, false, files);
    }

    /** As above; with {@code raftSnapshot} each member's turn begins with its raft snapshot (the step to 3.7). */
    private static List<String> minorStep(List<String> all, List<String> order, String first, boolean raftSnapshot,
                                          String... files) {
        List<String> shape = new ArrayList<>();
        all.forEach(h -> shape.add(h + "/install-minor <- " + first));
        // The first member moves once every host holds the release.
        String previous = first + ", " + String.join(", ", all.stream().map(h -> h + "/install-minor").toList());
        for (String h : order) {
            String turn = previous.contains("/install-minor") ? previous : previous + ", " + h + "/install-minor";
            String chain = turn;
            if (raftSnapshot) {
                shape.add(h + "/raft-snapshot-minor <- " + turn);
                chain = h + "/raft-snapshot-minor";
            }
            for (int i = 0; i < files.length; i++) {
                // A file after the first waits for the one before it and for the member's turn.
                shape.add(h + "/" + files[i] + "-minor <- " + chain + (i == 0 ? "" : ", " + turn));
                chain = h + "/" + files[i] + "-minor";
            }
            shape.add(h + "/restart-minor <- " + turn + (raftSnapshot ? ", " + h + "/raft-snapshot-minor" : "")
                    + (files.length == 0 ? "" : ", " + h + "/" + files[files.length - 1] + "-minor"));
            previous = h + "/restart-minor";
        }
        shape.add("cluster/cluster-version <- " + previous);
        return shape;
    }

    @Test
    void aMinorUpgradeTakesASnapshotThenMovesOneMemberAtATimeFilesAndAllLeaderLastAndWaitsForTheClusterVersion() {
        Plan plan = plan(new Scenario("converged-34", "three"));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-34"));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT));
        want.add("cluster/snapshot <- " + PREFLIGHT);
        // No member's unit names 3.5 before its own restart: an apply stopped anywhere leaves each member's
        // files as the release it runs reads them.
        want.addAll(minorStep(List.of("h1", "h2", "h3"), order, "cluster/snapshot", "config-file", "unit"));
        assertEquals(want, shape(plan));
        assertEquals(List.of("cluster version 3.5 within 120 s"), step(plan, "cluster/cluster-version").readyWhen());
        assertEquals(List.of("every member answering, on 3.4.23 or 3.5.16, no alarm, authentication off"),
                step(plan, PREFLIGHT).requires());
        assertTrue(step(plan, "cluster/snapshot").reason().startsWith("before minor upgrade"), step(plan, "cluster/snapshot").reason());
    }

    @Test
    void aMinorUpgradeWithANewerPatchOfferedHopsToItAndTakesTheMinorStepInTheSamePlan() {
        Plan plan = scenarios.plan(new Scenario("converged-34", "three"), "inventory", new ConvergePlanner.VersionOptions(false,
                v -> v.minor() == 4 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.4.35")) : Optional.empty()));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-34"));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT));
        // The recording predates 3.4's config saying enable-grpc-gateway: the hop writes it too.
        for (String h : List.of("h1", "h2", "h3")) {
            want.addAll(List.of(h + "/install <- " + PREFLIGHT, h + "/config-file <- " + PREFLIGHT,
                    h + "/unit <- " + h + "/config-file, " + PREFLIGHT));
        }
        want.add("cluster/snapshot <- " + PREFLIGHT);
        want.addAll(restarts(order, "cluster/snapshot", "install, ", "unit"));
        want.addAll(minorStep(List.of("h1", "h2", "h3"), order, order.get(2) + "/restart", "config-file", "unit"));
        assertEquals(want, shape(plan));
        assertEquals("install etcd 3.4.35", step(plan, "h1/install").summary());
        assertEquals("install etcd 3.5.16", step(plan, "h1/install-minor").summary());
        assertEquals("etcd 3.5.16 after 3.4.35", step(plan, order.get(0) + "/restart-minor").reason());
        // Authentication is checked before the hop: 3.5 cannot replay 3.4's auth entries.
        assertEquals(List.of("every member answering, on 3.4.23 or 3.4.35, no alarm, authentication off"),
                step(plan, PREFLIGHT).requires());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("this plan first moves the members to 3.4.35")
                && w.contains("then upgrades them to 3.5.16")), plan.warnings().toString());
    }

    @Test
    void theStepTo36HopsToTheRequiredPatchChecksTheMembersWithItsEtcdutlThenRollsTheMinor() {
        Plan plan = scenarios.plan(new Scenario("converged", "three-3616"), "inventory", new ConvergePlanner.VersionOptions(false,
                v -> v.minor() == 5 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.5.35")) : Optional.empty()));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged"));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT));
        want.addAll(preparedAfterPreflight("h1/install", "h1/unit", "h2/install", "h2/unit", "h3/install", "h3/unit"));
        want.add("cluster/snapshot <- " + PREFLIGHT);
        want.addAll(restarts(order, "cluster/snapshot", "install, ", "unit"));
        want.add("cluster/upgrade-checks <- " + order.get(2) + "/restart");
        want.addAll(minorStep(List.of("h1", "h2", "h3"), order, "cluster/upgrade-checks", "config-file", "unit"));
        assertEquals(want, shape(plan));
        Step checks = step(plan, "cluster/upgrade-checks");
        assertEquals(List.of("etcdutl check v2store clean on every member, no learner, every member's own member list the same"),
                checks.requires());
        assertTrue(checks.reason().contains("with the etcdutl of 3.5.35"), checks.reason());
        assertEquals(List.of("cluster version 3.6 within 120 s"), step(plan, "cluster/cluster-version").readyWhen());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("etcd requires 3.5.32 or newer before 3.6")),
                plan.warnings().toString());
        // Without a 3.5.32+ release at the source, nothing is touched: the plan says what to make available.
        Plan refused = plan(new Scenario("converged", "three-3616"));
        assertTrue(refused.steps().isEmpty(), shape(refused).toString());
        assertTrue(refused.refusals().get(0).whatToDo().startsWith("set etcd.version to 3.5.32 or newer first"),
                refused.refusals().toString());
    }

    @Test
    void eachMembersConfigIsWrittenAsItsOwnReleaseSpellsTheSettingsHopAndMinorStepAlike() throws Exception {
        // A setting 3.6 renamed (experimental-compaction-batch-limit -> compaction-batch-limit).
        Path spec = home.resolve("renamed.yaml");
        Files.writeString(spec, Files.readString(PlannerScenarios.DIR.resolve("three-3616.yaml"))
                .replace("    election-timeout: 1000\n", "    election-timeout: 1000\n    experimental-compaction-batch-limit: 500\n"));
        Plan plan = scenarios.plan(new Scenario("converged", home.resolve("renamed").toString()), "inventory",
                new ConvergePlanner.VersionOptions(false,
                        v -> v.minor() == 5 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.5.35")) : Optional.empty()));
        assertTrue(plan.refusals().isEmpty(), plan.refusals().toString());
        String hop = step(plan, "h1/config-file").diff().orElseThrow().after();
        String minor = step(plan, "h1/config-file-minor").diff().orElseThrow().after();
        assertTrue(hop.contains("experimental-compaction-batch-limit: 500") && !hop.contains("\ncompaction-batch-limit"), hop);
        assertTrue(minor.contains("\ncompaction-batch-limit: 500") && !minor.contains("experimental-compaction-batch-limit"), minor);
        // The 3.6 file is written at the member's own turn: after the restart before it, just before its own.
        assertTrue(step(plan, "h1/unit-minor").after().contains("h1/config-file-minor"), step(plan, "h1/unit-minor").after().toString());
        assertTrue(step(plan, "h1/restart-minor").after().contains("h1/unit-minor"), step(plan, "h1/restart-minor").after().toString());
        assertTrue(step(plan, "h1/config-file-minor").after().stream().anyMatch(id -> id.endsWith("/restart")
                || id.endsWith("/restart-minor") || id.equals("cluster/upgrade-checks")), step(plan, "h1/config-file-minor").after().toString());
    }

    // ---- minor steps recorded on 3.5.35 and 3.6.16 (testbed/record-scenarios minor-steps) ----

    private static final String MINOR_HOSTS = "inventory-minor-steps";

    private Plan minorSteps(String facts, String spec) {
        return minorSteps(facts, spec, ConvergePlanner.VersionOptions.DEFAULT);
    }

    private Plan minorSteps(String facts, String spec, ConvergePlanner.VersionOptions versions) {
        return scenarios.plan(new Scenario(facts, spec).withPki(Pki.MINOR_STEPS), MINOR_HOSTS, versions);
    }

    @Test
    void onTheRequiredPatchTheStepTo36ChecksTheMembersThenMovesThemOneAtATime() {
        assertEquals(List.of(), minorSteps("converged-3.5.35", "three-3535").steps(), "recorded converged");
        Plan plan = minorSteps("converged-3.5.35", "three-3616");
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-3.5.35"));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT, "cluster/snapshot <- " + PREFLIGHT,
                "cluster/upgrade-checks <- cluster/snapshot"));
        want.addAll(minorStep(List.of("h1", "h2", "h3"), order, "cluster/upgrade-checks", "config-file", "unit"));
        assertEquals(want, shape(plan));
        assertTrue(step(plan, "cluster/upgrade-checks").reason().contains("with the etcdutl of 3.5.35"),
                step(plan, "cluster/upgrade-checks").reason());
        assertEquals(List.of("every member answering, on 3.5.35 or 3.6.16, no alarm"), step(plan, PREFLIGHT).requires());
    }

    @Test
    void aLearnerBeforeTheStepTo36IsRefusedWhenPlanningNamingItAndHowToFinishItsJoin() {
        Plan plan = minorSteps("learner-3.5.35", "three-3616");
        assertTrue(plan.steps().isEmpty(), shape(plan).toString());
        io.etcdwright.engine.plan.Refusal learner = plan.refusals().stream()
                .filter(r -> r.kind().equals("learner-before-minor-upgrade")).findFirst()
                .orElseThrow(() -> new AssertionError(plan.refusals().toString()));
        assertTrue(learner.what().contains("is a learner") && learner.what().contains("too many learner members"), learner.what());
        assertEquals("finish its join first: apply with etcd.version: 3.5.35 (etcdwright promotes it once it is in sync),"
                + " then set 3.6.16 again", learner.whatToDo());
    }

    @Test
    void aStepTo36KilledAfterItsFirstRestartResumesOnlyTheOthersOrRollsBackOnlyTheOneOn36() {
        Plan rest = minorSteps("mixed-3.6.16", "three-3616");
        List<String> restarted = rest.steps().stream().filter(st -> st.id().endsWith("/restart-minor"))
                .map(st -> st.host().orElseThrow()).toList();
        assertEquals(2, restarted.size(), shape(rest).toString());
        String on36 = List.of("h1", "h2", "h3").stream().filter(h -> !restarted.contains(h)).findFirst().orElseThrow();
        // The member on 3.6 is left alone; the checks run on the two still on 3.5, with their etcdutl.
        assertTrue(rest.steps().stream().noneMatch(st -> st.host().equals(Optional.of(on36))), shape(rest).toString());
        assertTrue(step(rest, "cluster/upgrade-checks").reason().contains("with the etcdutl of 3.5.35"),
                step(rest, "cluster/upgrade-checks").reason());
        assertTrue(rest.warnings().stream().anyMatch(w -> w.contains("members run 3.5.35 and 3.6.16")), rest.warnings().toString());
        // Back to 3.5.35 while a member still runs it: only the member on 3.6 restarts.
        Plan back = minorSteps("mixed-3.6.16", "three-3535");
        assertTrue(back.refusals().isEmpty(), back.refusals().toString());
        assertEquals(List.of(on36 + "/restart"), back.steps().stream().map(Step::id).filter(id -> id.contains("restart")).toList(),
                shape(back).toString());
        assertTrue(back.warnings().stream().anyMatch(w -> w.contains("the cluster version is still 3.5")), back.warnings().toString());
    }

    @Test
    void fromA36ClusterTheStepTo37HasNoChecksAndHopsWhenANewer36IsOffered() {
        Plan plan = minorSteps("converged-3.6.16", "three-373");
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-3.6.16"));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT, "cluster/snapshot <- " + PREFLIGHT));
        // Each member snapshots past what 3.5 may have left in its log before it runs 3.7: the recording reads no snapshot.
        want.addAll(minorStep(List.of("h1", "h2", "h3"), order, "cluster/snapshot", true, "unit"));
        assertEquals(want, shape(plan));
        assertEquals(List.of("cluster version 3.7 within 120 s"), step(plan, "cluster/cluster-version").readyWhen());
        Plan hop = minorSteps("converged-3.6.16", "three-373", new ConvergePlanner.VersionOptions(false,
                v -> v.minor() == 6 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.6.17")) : Optional.empty()));
        assertEquals("install etcd 3.6.17", step(hop, "h1/install").summary());
        assertEquals("install etcd 3.7.3", step(hop, "h1/install-minor").summary());
        assertTrue(hop.steps().stream().noneMatch(st -> st.id().equals("cluster/upgrade-checks")), shape(hop).toString());
    }

    @Test
    void beforeRunning37EachMemberRestartsOnceOn36WithSnapshotCountOneUntilItSnapshotsPastTheHighestCommittedIndex() {
        Plan plan = minorSteps("converged-3.6.16", "three-373");
        long highest = scenarios.facts(new Scenario("converged-3.6.16", "three-373").withPki(Pki.MINOR_STEPS)).byHost().values()
                .stream().mapToLong(f -> f.member().status().orElseThrow().raftIndex()).max().orElseThrow();
        Step h1 = step(plan, "h1/raft-snapshot-minor");
        assertEquals("restart etcd 3.6.16 once with snapshot-count 1 until it snapshots past index " + highest
                + ", then write its config back", h1.summary());
        assertTrue(h1.reason().contains("cannot read the v2 requests etcd 3.5 wrote there (etcd-io/etcd#21263)"), h1.reason());
        assertTrue(h1.reason().endsWith("newest snapshot none known, index " + highest + " committed"), h1.reason());
        assertEquals(List.of("every member other than h1 healthy", "every member answering on etcd 3.6 or newer"), h1.requires());
        assertEquals(List.of("a raft snapshot on the member past index " + highest, "all 3 members healthy within 120 s",
                "a write commits through h1 within 120 s"), h1.readyWhen());
        // The config written for that restart alone is etcd 3.6's with snapshot-count 1, marked so the next plan knows it.
        String usual = scenarios.facts(new Scenario("converged-3.6.16", "three-373").withPki(Pki.MINOR_STEPS)).byHost().get("h1")
                .file(io.etcdwright.modules.EtcdLayout.CONFIG_FILE).content().orElseThrow();
        String once = io.etcdwright.modules.cluster.SnapshotBeforeMinor.oneRestartConfig(usual);
        assertTrue(once.startsWith("# Managed by etcdwright") && once.contains(io.etcdwright.modules.cluster.SnapshotBeforeMinor.MARKER),
                once);

        // A hop first: the restart runs the hop's release.
        Plan hop = minorSteps("converged-3.6.16", "three-373", new ConvergePlanner.VersionOptions(false,
                v -> v.minor() == 6 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.6.17")) : Optional.empty()));
        assertTrue(step(hop, "h1/raft-snapshot-minor").summary().startsWith("restart etcd 3.6.17 once"),
                step(hop, "h1/raft-snapshot-minor").summary());
    }

    @Test
    void aMemberWhoseNewestSnapshotIsPastTheHighestCommittedIndexIsLeftAsItIsAndOneRunningTheOneRestartConfigIsNotRestartedAgain() {
        Scenario s = new Scenario("converged-3.6.16", "three-373").withPki(Pki.MINOR_STEPS);
        long highest = scenarios.facts(s).byHost().values().stream()
                .mapToLong(f -> f.member().status().orElseThrow().raftIndex()).max().orElseThrow();
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-3.6.16"));
        // Every member snapshotted past every index committed while all ran 3.6: nothing 3.5 wrote is left to replay.
        Plan past = scenarios.plan(s, MINOR_HOSTS, ConvergePlanner.VersionOptions.DEFAULT, hosts -> snapshotAt(hosts, highest));
        List<String> want = new ArrayList<>(List.of(PREFLIGHT, "cluster/snapshot <- " + PREFLIGHT));
        want.addAll(minorStep(List.of("h1", "h2", "h3"), order, "cluster/snapshot", "unit"));
        assertEquals(want, shape(past));
        // One index short on each: each is snapshotted again.
        Plan shortOfIt = scenarios.plan(s, MINOR_HOSTS, ConvergePlanner.VersionOptions.DEFAULT, hosts -> snapshotAt(hosts, highest - 1));
        assertEquals(3, shortOfIt.steps().stream().filter(st -> st.id().endsWith("/raft-snapshot-minor")).count(), shape(shortOfIt).toString());
        assertTrue(step(shortOfIt, "h1/raft-snapshot-minor").reason().contains("newest snapshot at index " + (highest - 1)),
                step(shortOfIt, "h1/raft-snapshot-minor").reason());

        // An apply killed after h1's restart with the one-restart config: h1 is not restarted again, only written through
        // until it snapshots; its config (the marked one) is rewritten for 3.7 before its restart.
        Plan resumed = scenarios.plan(s, MINOR_HOSTS, ConvergePlanner.VersionOptions.DEFAULT, hosts -> runningOneRestartConfig(hosts, "h1"));
        assertEquals("wait for a raft snapshot past index " + highest + " (etcd runs with snapshot-count 1 already), then write"
                + " its config back", step(resumed, "h1/raft-snapshot-minor").summary());
        assertTrue(resumed.steps().stream().anyMatch(st -> st.id().equals("h1/config-file-minor")), shape(resumed).toString());
        assertTrue(step(resumed, "h2/raft-snapshot-minor").summary().startsWith("restart etcd 3.6.16 once"));
    }

    /** The hosts with every member's newest raft snapshot at {@code index}. */
    private static Map<String, EtcdHostFacts> snapshotAt(Map<String, EtcdHostFacts> hosts, long index) {
        Map<String, EtcdHostFacts> out = new java.util.LinkedHashMap<>();
        hosts.forEach((name, f) -> out.put(name, new EtcdHostFacts(f.host(), f.system(), f.install(), f.setup(), f.files(),
                f.service(), f.member().withNewestSnapshot(Optional.of(new io.etcdwright.modules.membership.RaftSnapshot(3, index))),
                f.schedule(), f.restoreMarker(), f.disk(), f.clockSkewMillis(), f.defragSchedule(), f.certMetrics())));
        return out;
    }

    /** The hosts with {@code host}'s etcd started from the one-restart config (written before it started). */
    private static Map<String, EtcdHostFacts> runningOneRestartConfig(Map<String, EtcdHostFacts> hosts, String host) {
        Map<String, EtcdHostFacts> out = new java.util.LinkedHashMap<>(hosts);
        EtcdHostFacts f = hosts.get(host);
        String path = io.etcdwright.modules.EtcdLayout.CONFIG_FILE;
        io.etcdwright.engine.facts.FileState config = f.file(path);
        String once = io.etcdwright.modules.cluster.SnapshotBeforeMinor.oneRestartConfig(config.content().orElseThrow());
        Map<String, io.etcdwright.engine.facts.FileState> files = new java.util.LinkedHashMap<>(f.files());
        files.put(path, new io.etcdwright.engine.facts.FileState(path, true, io.etcdwright.engine.ssh.HostSession.sha256(
                once.getBytes(java.nio.charset.StandardCharsets.UTF_8)), config.mode(), config.owner(), config.group(),
                Math.min(config.modifiedMicros(), f.service().startedMicros() - 1), Optional.of(once)));
        out.put(host, new EtcdHostFacts(f.host(), f.system(), f.install(), f.setup(), files, f.service(), f.member(), f.schedule(),
                f.restoreMarker(), f.disk(), f.clockSkewMillis(), f.defragSchedule(), f.certMetrics()));
        return out;
    }

    @Test
    void aMinorDowngradeWithoutAllowedDowntimeIsRefusedWithThePathThatWorks() {
        Plan plan = plan(new Scenario("converged", "three-34"));
        assertEquals(List.of("refused downtime-not-allowed: cluster scn"), shape(plan));
        assertTrue(plan.refusals().get(0).what().contains("a verified snapshot restored with etcd 3.4.23"), plan.refusals().get(0).what());
        assertTrue(plan.refusals().get(0).what().contains("3.4.32 or newer"), plan.refusals().get(0).what());
        assertTrue(plan.refusals().get(0).whatToDo().contains("--allow-downtime"), plan.refusals().get(0).whatToDo());
    }

    // ---- safety classes: what watch may run by itself (issue 35) ----

    /** "id class" per step, in plan order: the class each step's planner gave it. */
    private static List<String> classes(Plan plan) {
        return plan.steps().stream().map(st -> st.id() + " " + st.safety().label()).toList();
    }

    private static List<String> allOf(Plan plan, String label) {
        return plan.steps().stream().map(st -> st.id() + " " + label).toList();
    }

    @Test
    void aStoppedMemberOrTwoAreStartedAsRoutineAndAConvergedClusterHasNothingToClassify() {
        assertEquals(List.of(), classes(plan(new Scenario("converged", "three"))));
        assertEquals(List.of("h2/start routine", "cluster/healthy routine"), classes(plan(new Scenario("h2-stopped", "three"))));
        // Two of three stopped on hosts that answer: starting them is what brings quorum back, and routine.
        assertEquals(List.of("h2/start routine", "h3/start routine", "cluster/healthy routine"),
                classes(plan(new Scenario("h2-h3-stopped", "three"))));
        for (String v : List.of("36", "37")) {
            assertEquals(List.of("h2/start routine", "cluster/healthy routine"),
                    classes(plan(new Scenario("h2-stopped-" + v, "three-" + v))), v);
        }
    }

    /**
     * A config file edited on its host after etcd started (a line added, a mode changed) is put back
     * and its member restarted, routine; files missing on a running member's host too. The rule
     * (FileSafety): content that differs in a file older than the running etcd is what the spec or
     * etcdwright renders anew, a change (etcd 3.4's recordings: etcdwright now writes a line more).
     */
    @Test
    void filesChangedOnTheHostAreRoutineAndFilesTheSpecOrEtcdwrightRendersAnewAreAChange() {
        assertEquals(List.of("h1/config-file routine", "h2/config-file routine", "h1/restart routine"),
                classes(plan(new Scenario("config-drift", "three"))));
        for (String v : List.of("36", "37")) {
            assertEquals(List.of("h1/config-file routine", "h1/restart routine"),
                    classes(plan(new Scenario("config-drift-" + v, "three-" + v))), v);
        }
        assertEquals(List.of("h3/unit routine", "h3/restart routine"), classes(plan(new Scenario("unit-missing-h3", "three"))));
        assertEquals(List.of("h1/restart routine"), classes(plan(new Scenario("restart-pending-h1", "three"))));
        assertEquals(List.of("h3/install routine"), classes(plan(new Scenario("links-missing-h3", "three"))));
        Plan v34 = plan(new Scenario("converged-34", "three-34"));
        assertEquals(allOf(v34, "change"), classes(v34));
    }

    @Test
    void aLeafRenewalIsRoutineAndANewClientOrTheHealthcheckClientOfAnUpgradeIsAChange() {
        Plan renewal = plan(new Scenario("converged", "three").after(Duration.ofDays(340)));
        assertEquals(allOf(renewal, "routine"), classes(renewal));
        assertEquals(List.of("h1/certificates change", "h2/certificates change"),
                classes(scenarios.plan(new Scenario("converged", "three-clients"), "inventory-control-plane")));
        Plan upgrade = plan(new Scenario("converged", "three").recorded());
        assertEquals(allOf(upgrade, "change"), classes(upgrade));
    }

    /** A member whose data was wiped re-joins: its config, the snapshot, remove, add, join, promote, all one repair. */
    @Test
    void aWipedMemberReJoiningIsARepairToItsLastStep() {
        Plan plan = plan(new Scenario("h2-wiped", "three"));
        assertEquals(7, plan.steps().size(), shape(plan).toString());
        assertEquals(allOf(plan, "repair"), classes(plan));
        // A first member that never started has no data to lose: starting it finishes a person's create.
        assertEquals(List.of("h2/start change", "cluster/healthy change"), classes(plan(new Scenario("h2-never-started", "three"))));
    }

    @Test
    void whatTheSpecAskedForIsAChangeToItsLastStep() {
        for (Plan plan : List.of(plan(new Scenario("converged", "three-3530")), plan(new Scenario("converged", "five")),
                plan(new Scenario("converged", "one")), plan(new Scenario("h3-crashed", "h1-h2")),
                plan(new Scenario("fresh", "three").withPki(Pki.NONE)))) {
            assertFalse(plan.steps().isEmpty());
            assertEquals(allOf(plan, "change"), classes(plan), shape(plan).toString());
        }
    }

    /** Without quorum nothing is planned at all (so nothing to run); restore and teardown are never a watcher's. */
    @Test
    void aCrashedMajorityIsRefusedAndRestoreAndTeardownAreNever() {
        Plan crashed = plan(new Scenario("h2-h3-crashed", "three"));
        assertTrue(crashed.isRefused() && crashed.steps().isEmpty(), shape(crashed).toString());
        Plan restore = scenarios.restore(new Scenario("converged", "three"), RestorePlannerScenarioTest.snapshot(true,
                Optional.empty()), false, Map.of(), java.util.Set.of());
        assertTrue(restore.steps().size() > 10, shape(restore).toString());
        assertEquals(allOf(restore, "never"), classes(restore));
        ClusterRun.Facts facts = scenarios.facts(new Scenario("converged", "three"));
        Plan teardown = io.etcdwright.modules.teardown.TeardownPlanner.plan("scn", facts.byHost(), facts.unreachable(),
                io.etcdwright.modules.EtcdLayout.DEFAULT, true, io.etcdwright.modules.pki.ClientHostFacts.NONE,
                new io.etcdwright.modules.pki.ClientHostsRecord(home.resolve("pki-record")));
        assertTrue(teardown.steps().stream().anyMatch(st -> st.id().equals("h1/data")), shape(teardown).toString());
        assertEquals(allOf(teardown, "never"), classes(teardown));
    }

    // ---- the plan as a value ----

    @Test
    void theSameFactsGiveTheSameFingerprintAndOtherFactsAnother() {
        Scenario drift = new Scenario("config-drift", "three");
        assertEquals(plan(drift).fingerprint(), plan(drift).fingerprint());
        assertNotEquals(plan(drift).fingerprint(), plan(new Scenario("unit-missing-h3", "three")).fingerprint());
        assertNotEquals(plan(new Scenario("h2-stopped", "three")).fingerprint(),
                plan(new Scenario("h2-h3-stopped", "three")).fingerprint());
    }

    @Test
    void aSavedPlanAppliesOnlyWhileItsFactsHold() throws Exception {
        Path inventory = PlannerScenarios.DIR.resolve("inventory.yaml");
        Path spec = PlannerScenarios.DIR.resolve("three.yaml");
        Plan made = plan(new Scenario("h2-stopped", "three"));
        Path file = home.resolve("saved.plan");
        SavedPlan.of(inventory, spec, made).write(file);
        SavedPlan saved = SavedPlan.read(file);
        assertNull(saved.stalenessAgainst(plan(new Scenario("h2-stopped", "three"))), "the same facts: still current");
        String stale = saved.stalenessAgainst(plan(new Scenario("h2-h3-stopped", "three")));
        assertNotNull(stale);
        assertTrue(stale.contains("now the plan would be:\n  h2: > start etcd (not running)\n  h3: > start etcd (not running)"), stale);
        assertTrue(Files.size(file) > 0);
    }

    // ---- kube-apiserver's etcd flags ----

    /** The plan's lines for its clients' flags, as plan and apply print them. */
    private static List<String> clientLines(Plan plan) {
        return plan.clients().stream().map(io.etcdwright.engine.plan.ClientChange::line).toList();
    }

    @Test
    void aReplacementNamesTheApiServersNewEtcdServersOnceTheNewMemberIsHealthy() {
        Plan plan = plan(new Scenario("converged", "h1-h4"));
        // Before: the client URLs etcd's member list holds (h2, h1, h3 as recorded); after: the spec's h1 and h4.
        assertEquals(List.of("~ kube-apiserver --etcd-servers: -https://10.77.0.12:2379 -https://10.77.0.13:2379"
                + " +https://10.77.0.14:2379"), clientLines(plan));
        io.etcdwright.engine.plan.ClientChange servers = plan.clients().get(0);
        assertEquals(Optional.of("https://10.77.0.12:2379,https://10.77.0.11:2379,https://10.77.0.13:2379"), servers.before());
        assertEquals(Optional.of("https://10.77.0.11:2379,https://10.77.0.14:2379"), servers.after());
        assertTrue(servers.when().startsWith("once this apply is done (every member healthy, new members joined): restart"
                + " kube-apiserver with these flags"), servers.when());
        assertEquals(Optional.empty(), servers.host(), "the spec names no control-plane host: one diff, for wherever it runs");
        // Shown after the plan's steps (and again as apply's last lines), with when to restart kube-apiserver.
        java.io.StringWriter text = new java.io.StringWriter();
        PlanPrinter.text(plan, false, new java.io.PrintWriter(text, true));
        assertTrue(text.toString().endsWith("kube-apiserver: its etcd flags change (it reads them only at start, and no step"
                + " restarts it):\n  " + clientLines(plan).get(0) + "\n      when: " + servers.when() + "\n"), text.toString());
    }

    @Test
    void growingShrinkingAndRemovingACrashedMemberChangeOnlyTheEtcdServers() {
        assertEquals(List.of("~ kube-apiserver --etcd-servers: +https://10.77.0.14:2379 +https://10.77.0.15:2379"),
                clientLines(plan(new Scenario("converged", "five"))));
        assertEquals(List.of("~ kube-apiserver --etcd-servers: -https://10.77.0.12:2379 -https://10.77.0.13:2379"),
                clientLines(plan(new Scenario("converged", "one"))));
        assertEquals(List.of("~ kube-apiserver --etcd-servers: -https://10.77.0.13:2379"),
                clientLines(plan(new Scenario("h3-crashed", "h1-h2"))));
    }

    @Test
    void withoutAMembershipTransportOrCaChangeTheApiServersFlagsStayAsTheyAre() {
        // Converged: no step, no flag. Repairs and config changes: steps, the same URLs and CA.
        for (Scenario s : List.of(new Scenario("converged", "three"), new Scenario("config-drift", "three"),
                new Scenario("h2-stopped", "three"), new Scenario("converged", "three-3530"),
                new Scenario("converged", "three").after(Duration.ofDays(340)))) {
            assertEquals(List.of(), plan(s).clients(), s.toString());
        }
        // A wiped member rejoins with the URL it had; a first member that never started was named all along.
        Plan wiped = plan(new Scenario("h2-wiped", "three"));
        assertTrue(wiped.hasChanges());
        assertEquals(List.of(), wiped.clients());
        assertEquals(List.of(), plan(new Scenario("h2-never-started", "three")).clients());
        // A new cluster: nothing is configured against it yet ('kube-apiserver-flags' gives its flags).
        Plan fresh = plan(new Scenario("fresh", "three").withPki(Pki.NONE));
        assertTrue(fresh.hasChanges());
        assertEquals(List.of(), fresh.clients());
        // A refused plan changes nothing.
        assertEquals(List.of(), plan(new Scenario("h3-crashed", "three")).clients());
    }

    @Test
    void whereTheSpecNamesTheControlPlaneHostsTheDiffIsPerHost() throws Exception {
        String spec = specLike("three-clients", "clients-h1-h4", "hosts: [h1, h2, h3]", "hosts: [h1, h2, h4]");
        Plan plan = scenarios.plan(new Scenario("converged", spec), "inventory-control-plane");
        assertEquals(List.of("~ kube-apiserver on h1 --etcd-servers: -https://10.77.0.13:2379 +https://10.77.0.14:2379",
                "~ kube-apiserver on h2 --etcd-servers: -https://10.77.0.13:2379 +https://10.77.0.14:2379"), clientLines(plan));
    }

    // ---- etcd 3.6 and 3.7 (recorded by testbed/record-scenarios 36-37) ----

    /** A spec the test writes: {@code base} (a scenario spec) with {@code from} replaced; named by its path. */
    private String specLike(String base, String name, String from, String to) throws Exception {
        String text = Files.readString(PlannerScenarios.DIR.resolve(base + ".yaml"));
        assertTrue(text.contains(from), text);
        Files.writeString(home.resolve(name + ".yaml"), text.replace(from, to));
        return home.resolve(name).toString();
    }

    @Test
    void threeSixAndThreeSevenClustersAsRecordedNeedNothing() {
        for (String v : List.of("36", "37")) {
            Plan plan = plan(new Scenario("converged-" + v, "three-" + v));
            assertEquals(List.of(), plan.steps(), v);
            assertFalse(plan.hasChanges(), v);
        }
    }

    @Test
    void onThreeSixAndThreeSevenADriftedConfigIsRewrittenAndItsMemberRestarted() {
        for (String v : List.of("36", "37")) {
            Plan plan = plan(new Scenario("config-drift-" + v, "three-" + v));
            assertEquals(List.of("h1/config-file", "h1/restart <- h1/config-file"), shape(plan), v);
            assertTrue(step(plan, "h1/config-file").diff().orElseThrow().before().contains("max-txn-ops: 256"), v);
        }
    }

    @Test
    void onThreeSixAndThreeSevenAStoppedMemberIsStarted() {
        for (String v : List.of("36", "37")) {
            assertEquals(List.of("h2/start", "cluster/healthy <- h2/start"), shape(plan(new Scenario("h2-stopped-" + v, "three-" + v))), v);
        }
    }

    /**
     * 3.5's experimental names in a 3.6 spec: written as 3.6 spells them (one config change and one
     * restart a member, leader last), with a warning that says what to write instead.
     */
    @Test
    void aThreeSixSpecWithThreeFiveNamesIsWrittenAsThreeSixSpellsThem() throws Exception {
        String spec = specLike("three-36", "old-names-36", "    election-timeout: 1000\n", "    election-timeout: 1000\n"
                + "    experimental-compaction-batch-limit: 500\n    experimental-initial-corrupt-check: true\n");
        Plan plan = plan(new Scenario("converged-36", spec));
        String after = step(plan, "h1/config-file").diff().orElseThrow().after();
        // The spec's InitialCorruptCheck as the gate, beside etcdwright's default for the other check.
        assertTrue(after.contains("compaction-batch-limit: 500\n")
                && after.contains("feature-gates: CompactHashCheck=true,InitialCorruptCheck=true\n")
                && !after.contains("experimental-"), after);
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("etcd 3.6 renamed experimental-compaction-batch-limit to"
                + " compaction-batch-limit")), plan.warnings().toString());
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), PlannerScenarios.leaderOf("converged-36"));
        assertEquals(order.get(2) + "/restart", plan.steps().get(plan.steps().size() - 1).id(), shape(plan).toString());
    }

    /**
     * etcd refuses an add while a voter is down before 3.5.30 and 3.6.11, never after: the same
     * spec (h4 joins, h2 down and staying) is refused on 3.5.16 and planned on 3.7.
     */
    @Test
    void aDownVoterBlocksNoAddOnThreeSevenAsItDoesOnThreeFiveSixteen() throws Exception {
        Plan on35 = plan(new Scenario("h2-stopped", specLike("three", "h1-h4-35", "hosts: [h1, h2, h3]", "hosts: [h1, h2, h3, h4]")));
        assertEquals(List.of("refused add-blocked-by-down-member: cluster scn"), shape(on35));
        String spec = specLike("three-37", "h1-h4-37", "hosts: [h1, h2, h3]", "hosts: [h1, h2, h3, h4]");
        Plan on37 = plan(new Scenario("h2-stopped-37", spec));
        assertTrue(on37.refusals().isEmpty(), on37.refusals().toString());
        assertTrue(on37.steps().stream().anyMatch(st -> st.id().equals("cluster/1-add-h4")), shape(on37).toString());
    }

    /**
     * A 3.7 setting, with a newer 3.6 patch offered first: the hop installs 3.6, which has no such
     * gate (a 3.6 member would not start), so the plan is refused before any host is touched.
     */
    @Test
    void aHopToAThreeSixPatchIsRefusedWhenItCannotTakeTheSpecsThreeSevenSettings() throws Exception {
        String spec = specLike("three-37", "gate-37", "    election-timeout: 1000\n", "    election-timeout: 1000\n"
                + "    feature-gates: \"FastLeaseKeepAlive=false\"\n");
        Plan plan = scenarios.plan(new Scenario("converged-36", spec), "inventory-36-37", new ConvergePlanner.VersionOptions(false,
                v -> v.minor() == 6 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.6.99")) : Optional.empty()));
        assertEquals(List.of("refused setting-not-in-release: etcd.settings.feature-gates"), shape(plan));
        assertTrue(plan.refusals().get(0).what().contains("this apply installs etcd 3.6.99 first")
                && plan.refusals().get(0).what().contains("does not know the feature gate FastLeaseKeepAlive"),
                plan.refusals().get(0).what());
    }
}
