package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.Pkis;
import io.etcdwright.cli.PlannerScenarios.Pki;
import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Client keys on a host that runs no member (a control plane beside an external etcd), planned from
 * the recorded converged cluster (members h1..h3) with h4 of the same inventory named for
 * kube-apiserver: what h4 gets, when it gets nothing, what goes once it is no longer named, a
 * recorded host gone from the inventory, and one that does not answer.
 */
class ClientHostsScenarioTest {
    private static final String CA = HostCertificates.certPath(HostCertificates.CA);
    private static final String CERT = HostCertificates.certPath(HostCertificates.APISERVER);
    private static final String KEY = HostCertificates.keyPath(HostCertificates.APISERVER);

    @TempDir
    Path home;

    PlannerScenarios scenarios;
    Path pkiDir;
    ClusterPki pki;
    Scenario named;
    Scenario unnamed;

    @BeforeEach
    void setUp() throws IOException {
        scenarios = new PlannerScenarios(home);
        String three = Files.readString(PlannerScenarios.DIR.resolve("three.yaml"));
        Files.writeString(home.resolve("named.yaml"), three + "clients:\n  kube-apiserver: {hosts: [h4]}\n");
        named = new Scenario("converged", home.resolve("named").toString());
        unnamed = new Scenario("converged", "three");
        pkiDir = scenarios.pki(Pki.PKI_35);
        pki = Pkis.of(DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"), home.resolve("named.yaml")),
                pkiDir, PlannerScenarios.clockOf(named));
    }

    private Plan plan(Scenario s, ClientHostFacts clients) {
        return scenarios.plan(s, pkiDir, hosts -> hosts, clients);
    }

    private static ClientHostFacts h4(Map<String, FileState> files) {
        return new ClientHostFacts(Map.of("h4", files), Map.of());
    }

    /** h4 holding exactly the workstation's CA and kube-apiserver pair, as etcdwright lands them (root, key 0600). */
    private Map<String, FileState> landed() throws IOException {
        Map<String, FileState> files = new LinkedHashMap<>();
        files.put(CA, file(CA, pki.caCertFile(), "644", true));
        files.put(CERT, file(CERT, pki.clientPair(HostCertificates.APISERVER).cert(), "644", true));
        files.put(KEY, file(KEY, pki.clientPair(HostCertificates.APISERVER).key(), "600", false));
        return files;
    }

    static FileState file(String path, Path local, String mode, boolean readable) throws IOException {
        byte[] bytes = Files.readAllBytes(local);
        return new FileState(path, true, HostSession.sha256(bytes), mode, "root", "root", 1,
                readable ? Optional.of(new String(bytes, StandardCharsets.UTF_8)) : Optional.empty());
    }

    private static Step step(Plan plan, String id) {
        return plan.steps().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow(() -> new AssertionError(id));
    }

    @Test
    void aNamedHostThatRunsNoMemberGetsTheClientPairAndTheCaAndNothingElse() {
        Plan plan = plan(named, h4(Map.of()));
        assertEquals(List.of("h4/client-files"), PlannerScenarios.shape(plan), "h4's files only, nothing of etcd's, no restart");
        Step step = step(plan, "h4/client-files");
        assertEquals("client certificates for h4 (kube-apiserver-etcd-client; runs no member)", step.summary());
        assertTrue(step.reason().startsWith("ca.crt missing on host; kube-apiserver-etcd-client.crt missing on host;"
                + " kube-apiserver-etcd-client.key missing on host"), step.reason());
        assertTrue(step.reason().contains("reads its CA file only at start"), step.reason());
        assertTrue(plan.refusals().isEmpty() && plan.warnings().isEmpty(), plan.warnings().toString());
        assertEquals(List.of(), pki.clientHosts().hosts(), "planning records nothing");
    }

    @Test
    void aHostHoldingExactlyItsFilesPlansNothingAndAWrongModeIsFixed() throws IOException {
        assertEquals(List.of(), PlannerScenarios.shape(plan(named, h4(landed()))));
        Map<String, FileState> open = new LinkedHashMap<>(landed());
        FileState key = open.get(KEY);
        open.put(KEY, new FileState(KEY, true, key.sha256(), "644", "root", "root", 1, Optional.empty()));
        Plan plan = plan(named, h4(open));
        assertEquals(List.of("h4/client-files"), PlannerScenarios.shape(plan));
        assertTrue(step(plan, "h4/client-files").reason().startsWith("kube-apiserver-etcd-client.key mode/owner 644 root:root"),
                step(plan, "h4/client-files").reason());
    }

    @Test
    void aHostNoLongerNamedHasItsFilesRemovedOnlyThose() throws IOException {
        pki.clientHosts().add("h4");
        Plan plan = plan(unnamed, h4(landed()));
        assertEquals(List.of("h4/client-keys"), PlannerScenarios.shape(plan));
        Step step = step(plan, "h4/client-keys");
        assertEquals("remove " + KEY + ", " + CERT + ", " + CA, step.summary());
        assertTrue(step.reason().startsWith("clients does not name h4 any more and it runs no member"), step.reason());
        assertEquals(List.of("h4"), pki.clientHosts().hosts(), "struck off only by the apply, once the files are gone");
        // Once gone (and struck off), nothing is left to do; a host never given files is not asked at all.
        assertEquals(List.of("h4/client-keys"), PlannerScenarios.shape(plan(unnamed, h4(Map.of()))),
                "a host recorded but holding nothing is struck off by a step of its own");
        pki.clientHosts().remove("h4");
        assertEquals(List.of(), PlannerScenarios.shape(plan(unnamed, ClientHostFacts.NONE)));
    }

    @Test
    void aRecordedHostGoneFromTheInventoryIsNamedInANote() {
        pki.clientHosts().add("cp9");
        Plan plan = plan(unnamed, ClientHostFacts.NONE);
        assertEquals(List.of("cluster/client-hosts-gone"), PlannerScenarios.shape(plan));
        Step step = step(plan, "cluster/client-hosts-gone");
        assertEquals("forget client host cp9 (no longer in the inventory)", step.summary());
        assertTrue(step.reason().contains("rm -f -- " + CA), step.reason());
    }

    @Test
    void aNamedHostThatDoesNotAnswerIsWarnedAboutAndTheRestIsPlanned() {
        Plan plan = plan(named, new ClientHostFacts(Map.of(), Map.of("h4", "connection timed out")));
        assertEquals(List.of(), PlannerScenarios.shape(plan));
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("client host h4 could not be reached (connection timed out)")),
                plan.warnings().toString());
    }

    @Test
    void aRenewedClientCertificateGoesToTheHostInTheSameApply() throws IOException {
        // The recording's clock moved to near the client certificate's expiry: issued again, then sent to h4.
        Map<String, FileState> files = landed();
        Plan plan = scenarios.plan(named.after(java.time.Duration.ofDays(340)), pkiDir, hosts -> hosts, h4(files));
        Step step = step(plan, "h4/client-files");
        assertTrue(step.after().contains("cluster/clients"), step.after().toString());
        assertTrue(step.reason().contains("kube-apiserver-etcd-client: "), step.reason());
    }

    private Plan destroy(ClientHostFacts clients) {
        ClusterRun.Facts facts = scenarios.facts(named);
        return io.etcdwright.modules.teardown.TeardownPlanner.plan("c", facts.byHost(), facts.unreachable(),
                io.etcdwright.modules.EtcdLayout.DEFAULT, false, clients, pki.clientHosts());
    }

    @Test
    void destroyRemovesTheClientFilesOfAHostThatRunsNoMemberAndOnlyThose() throws IOException {
        pki.clientHosts().add("h4");
        Plan plan = destroy(h4(landed()));
        assertTrue(PlannerScenarios.shape(plan).containsAll(List.of("h1/service", "h2/service", "h3/service", "h4/client-files")),
                PlannerScenarios.shape(plan).toString());
        assertTrue(plan.steps().stream().filter(s -> s.id().startsWith("h4/")).count() == 1, "nothing of etcd's on h4");
        Step step = step(plan, "h4/client-files");
        assertEquals("remove " + KEY + ", " + CERT + ", " + CA + " (client files; runs no member)", step.summary());
        assertEquals(List.of("h4"), pki.clientHosts().hosts(), "struck off only by the destroy, once the files are gone");
        // Recorded but holding nothing: struck off; neither recorded nor holding anything: no step.
        assertEquals("forget h4 as a client host (it holds no client files)", step(destroy(h4(Map.of())), "h4/client-files").summary());
        pki.clientHosts().remove("h4");
        assertTrue(destroy(h4(Map.of())).steps().stream().noneMatch(s -> s.id().startsWith("h4/")));
    }

    @Test
    void destroyWarnsOfClientHostsItCannotReachAndOfRecordedHostsGoneFromTheInventory() {
        pki.clientHosts().add("h4");
        pki.clientHosts().add("cp9");
        Plan plan = destroy(new ClientHostFacts(Map.of(), Map.of("h4", "connection timed out")));
        assertTrue(plan.refusals().isEmpty(), "a control plane host that does not answer does not hold up the members' teardown");
        assertTrue(plan.steps().stream().noneMatch(s -> s.id().startsWith("h4/")));
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("client host h4 could not be reached (connection timed out):"
                + " its client files stay there")), plan.warnings().toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("client host cp9 was given client files but is not in the"
                + " inventory: run 'rm -f -- " + CA)), plan.warnings().toString());
        assertEquals(List.of("h4", "cp9"), pki.clientHosts().hosts(), "both stay recorded");
    }

    // ---- clients.kube-apiserver.layout: kubeadm (kubeadm's external etcd paths) ----

    private static final String KUBEADM_CA = io.etcdwright.modules.pki.KubeadmPaths.CA_FILE;
    private static final String KUBEADM_CERT = io.etcdwright.modules.pki.KubeadmPaths.CERT_FILE;
    private static final String KUBEADM_KEY = io.etcdwright.modules.pki.KubeadmPaths.KEY_FILE;

    private Scenario kubeadm() throws IOException {
        String three = Files.readString(PlannerScenarios.DIR.resolve("three.yaml"));
        Files.writeString(home.resolve("kubeadm.yaml"), three + "clients:\n  kube-apiserver: {hosts: [h4], layout: kubeadm}\n");
        return new Scenario("converged", home.resolve("kubeadm").toString());
    }

    /** h4 holding the workstation's CA and kube-apiserver pair at kubeadm's paths, as kubeadm's pkiutil writes them. */
    private Map<String, FileState> landedForKubeadm() throws IOException {
        Map<String, FileState> files = new LinkedHashMap<>();
        files.put(KUBEADM_CA, file(KUBEADM_CA, pki.caCertFile(), "644", true));
        files.put(KUBEADM_CERT, file(KUBEADM_CERT, pki.clientPair(HostCertificates.APISERVER).cert(), "644", true));
        files.put(KUBEADM_KEY, file(KUBEADM_KEY, pki.clientPair(HostCertificates.APISERVER).key(), "600", false));
        return files;
    }

    @Test
    void theKubeadmLayoutPutsTheCaAndThePairWhereKubeadmsExternalEtcdReadsThem() throws IOException {
        Plan plan = plan(kubeadm(), h4(Map.of()));
        assertEquals(List.of("h4/client-files"), PlannerScenarios.shape(plan));
        Step step = step(plan, "h4/client-files");
        assertEquals("client certificates for h4 (kube-apiserver-etcd-client at kubeadm's paths; runs no member)", step.summary());
        assertTrue(step.reason().startsWith(KUBEADM_CA + " missing on host; " + KUBEADM_CERT + " missing on host; "
                + KUBEADM_KEY + " missing on host"), step.reason());
        assertTrue(!step.reason().contains("/etc/etcd/pki") && !step.reason().contains("ca.crt missing on host; kube-apiserver"),
                "nothing in etcdwright's directory: " + step.reason());
        assertEquals(io.etcdwright.engine.plan.SafetyClass.CHANGE, step.safety());
        // Landed as kubeadm makes them: nothing more to do; a key kubeadm would have written 0600 left open is fixed.
        assertEquals(List.of(), PlannerScenarios.shape(plan(kubeadm(), h4(landedForKubeadm()))));
        Map<String, FileState> open = new LinkedHashMap<>(landedForKubeadm());
        open.put(KUBEADM_KEY, new FileState(KUBEADM_KEY, true, open.get(KUBEADM_KEY).sha256(), "644", "root", "root", 1, Optional.empty()));
        Step fix = step(plan(kubeadm(), h4(open)), "h4/client-files");
        assertTrue(fix.reason().startsWith(KUBEADM_KEY + " mode/owner 644 root:root"), fix.reason());
        assertEquals(io.etcdwright.engine.plan.SafetyClass.ROUTINE, fix.safety());
    }

    @Test
    void movingToTheKubeadmLayoutMovesTheFilesAndKubeApiserversFlags() throws IOException {
        pki.clientHosts().add("h4");
        Plan plan = plan(kubeadm(), h4(landed()));
        Step step = step(plan, "h4/client-files");
        assertTrue(step.reason().startsWith(KUBEADM_CA + " missing on host;"), step.reason());
        for (String gone : List.of("kube-apiserver-etcd-client.key no longer named for h4", "kube-apiserver-etcd-client.crt no longer"
                + " named for h4", "ca.crt no longer named for h4")) {
            assertTrue(step.reason().contains(gone), step.reason());
        }
        List<String> lines = plan.clients().stream().map(io.etcdwright.engine.plan.ClientChange::line).toList();
        assertTrue(lines.contains("~ kube-apiserver on h4 --etcd-cafile: -" + CA + " +" + KUBEADM_CA), lines.toString());
        assertTrue(lines.contains("~ kube-apiserver on h4 --etcd-keyfile: -" + KEY + " +" + KUBEADM_KEY), lines.toString());
        // Back to etcdwright's layout: what etcdwright put at kubeadm's paths goes, and only that.
        Map<String, FileState> both = new LinkedHashMap<>(landed());
        both.putAll(landedForKubeadm());
        Step back = step(plan(named, h4(both)), "h4/client-files");
        for (String gone : List.of(KUBEADM_KEY, KUBEADM_CERT, KUBEADM_CA)) {
            assertTrue(back.reason().contains(gone + " no longer named for h4"), back.reason());
        }
        Map<String, FileState> kubeadmsOwn = new LinkedHashMap<>(landed());
        kubeadmsOwn.put(KUBEADM_CA, new FileState(KUBEADM_CA, true, "0".repeat(64), "644", "root", "root", 1, Optional.of("kubeadm's own CA")));
        assertEquals(List.of(), PlannerScenarios.shape(plan(named, h4(kubeadmsOwn))),
                "a CA file at kubeadm's path that etcdwright did not put there is kubeadm's: left alone");
    }

    @Test
    void aRenewedClientCertificateGoesToKubeadmsPathInTheSameApply() throws IOException {
        Plan plan = scenarios.plan(kubeadm().after(java.time.Duration.ofDays(340)), pkiDir, hosts -> hosts, h4(landedForKubeadm()));
        Step step = step(plan, "h4/client-files");
        assertTrue(step.after().contains("cluster/clients"), step.after().toString());
        assertTrue(step.reason().contains("kube-apiserver-etcd-client: "), step.reason());
        assertTrue(step.summary().contains("at kubeadm's paths"), step.summary());
    }

    @Test
    void destroyRemovesWhatItPutAtKubeadmsPathsAndNothingElseThere() throws IOException {
        pki.clientHosts().add("h4");
        ClusterRun.Facts facts = scenarios.facts(named);
        Map<String, FileState> files = new LinkedHashMap<>(landedForKubeadm());
        files.put(KUBEADM_CA, new FileState(KUBEADM_CA, true, "0".repeat(64), "644", "root", "root", 1, Optional.of("kubeadm's own CA")));
        Plan plan = io.etcdwright.modules.teardown.TeardownPlanner.plan("c", facts.byHost(), facts.unreachable(),
                io.etcdwright.modules.EtcdLayout.DEFAULT, false, h4(files), pki.clientHosts(), Optional.of(pki));
        assertEquals("remove " + KUBEADM_KEY + ", " + KUBEADM_CERT + " (client files; runs no member)",
                step(plan, "h4/client-files").summary());
    }
}
