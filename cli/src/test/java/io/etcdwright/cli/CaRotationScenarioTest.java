package io.etcdwright.cli;

import io.etcdwright.run.Pkis;
import io.etcdwright.cli.PlannerScenarios.Pki;
import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.pki.CaRotationFiles;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.Pem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CA rotation planner on the recorded converged cluster, its hosts edited into each state a
 * rotation passes through (and an interrupted apply leaves): which phases are planned, in which
 * order, from where a rotation resumes, and what it refuses. Each phase's checks against the
 * members (handshakes with the new and the old CA) run when the steps run, on real hosts (CaRotationIT).
 */
class CaRotationScenarioTest {
    private static final List<String> HOSTS = List.of("h1", "h2", "h3");
    private static final Scenario CONVERGED = new Scenario("converged", "three");

    @TempDir
    Path home;

    PlannerScenarios scenarios;
    Path spec;
    Path pkiDir;
    ClusterPki pki;
    X509Certificate oldCa;
    List<String> order;

    @BeforeEach
    void setUp() throws IOException {
        scenarios = new PlannerScenarios(home);
        String three = Files.readString(PlannerScenarios.DIR.resolve("three.yaml"));
        Path written = Files.writeString(home.resolve("rotated.yaml"), three + "    caGeneration: 2\n");
        spec = home.resolve("rotated");
        assertTrue(Files.exists(written));
        pkiDir = scenarios.pki(Pki.PKI_35);
        DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"), written);
        pki = Pkis.of(desired, pkiDir, PlannerScenarios.clockOf(CONVERGED));
        oldCa = pki.caCertificate().orElseThrow();
        order = PlannerScenarios.leaderLast(HOSTS, PlannerScenarios.leaderOf("converged"));
    }

    private Scenario rotated() {
        return new Scenario("converged", spec.toString());
    }

    private Plan plan(UnaryOperator<Map<String, EtcdHostFacts>> edit) {
        return scenarios.plan(rotated(), pkiDir, edit);
    }

    private static List<String> shape(Plan plan) {
        return PlannerScenarios.shape(plan);
    }

    private static Step step(Plan plan, String id) {
        return plan.steps().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow(() -> new AssertionError(id));
    }

    // ---- shapes of the phases ----

    /** Phase 1 or 3 on {@code hosts}: the CA file written on each (side by side), then restarts in {@link #order}. */
    private List<String> roll(List<String> hosts, String write, String restart, String after) {
        List<String> shape = new ArrayList<>();
        hosts.forEach(h -> shape.add(h + "/" + write + " <- " + after));
        String previous = after;
        for (String h : order) {
            if (hosts.contains(h)) {
                shape.add(h + "/" + restart + " <- " + previous + ", " + h + "/" + write);
                previous = h + "/" + restart;
            }
        }
        return shape;
    }

    private static String lastRestart(List<String> shape, String after) {
        String last = shape.isEmpty() ? after : shape.get(shape.size() - 1);
        return last.substring(0, last.indexOf(" <- ")).trim();
    }

    private List<String> reissue(List<String> hosts, String after) {
        List<String> shape = new ArrayList<>(List.of("cluster/ca-trusted <- " + after,
                "cluster/ca-reissue-clients <- cluster/ca-trusted"));
        String previous = "cluster/ca-reissue-clients";
        for (String h : hosts) {
            shape.add(h + "/ca-reissue <- " + previous);
            previous = h + "/ca-reissue";
        }
        shape.add("cluster/ca-reissued <- " + previous);
        return shape;
    }

    private List<String> dropOld(List<String> hosts, String after) {
        List<String> shape = new ArrayList<>(List.of("cluster/ca-reissued <- " + after));
        List<String> roll = roll(hosts, "ca-drop-old", "restart-new-ca-only", "cluster/ca-reissued");
        shape.addAll(roll);
        shape.add("cluster/ca-rotation-done <- " + (roll.isEmpty() ? "cluster/ca-reissued" : lastRestart(roll, "")));
        return shape;
    }

    // ---- starting ----

    @Test
    void aRaisedCaGenerationStartsWithPhaseOneProvedOnEveryMemberAtItsEnd() {
        Plan plan = plan(hosts -> hosts);
        List<String> want = new ArrayList<>(List.of("cluster/ca-generation", "cluster/ca-rotation <- cluster/ca-generation"));
        List<String> trust = roll(HOSTS, "ca-trust-both", "restart-trust-both", "cluster/ca-generation, cluster/ca-rotation");
        want.addAll(trust);
        want.add("cluster/ca-trusted <- " + lastRestart(trust, ""));
        assertEquals(want, shape(plan));
        // One phase per apply: before the next, clients move onto the bundle, and the plan says so.
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("CA rotation phase 1/3") && w.contains("ca-bundle.crt")),
                plan.warnings().toString());

        // Each phase's restart is a rolling one: the others healthy first, then health and a write through it.
        Step first = step(plan, order.get(0) + "/restart-trust-both");
        assertTrue(first.reason().startsWith("CA rotation 1/3: trusts the old and the new CA"), first.reason());
        assertEquals(List.of("every member other than " + order.get(0) + " healthy"), first.requires());
        assertTrue(first.readyWhen().get(1).startsWith("a write commits through"), first.readyWhen().toString());
        // Each phase starts only once the one before is proved on every member, by handshakes.
        assertEquals(List.of("every member accepts a client certificate of the new CA"), step(plan, "cluster/ca-trusted").requires());
        // Nothing was written by planning: the new CA is made by the apply.
        assertEquals(1, pki.caGeneration());
        assertFalse(pki.rotation().active());
    }

    @Test
    void namingAnotherOwnCaStartsTheSameRotationWithoutGeneratingOne() throws IOException {
        // The operator's new CA; the old one is read off the members' ca.crt (public), its key is not needed.
        io.etcdwright.modules.pki.CertificateAuthority mine = io.etcdwright.modules.pki.CertificateAuthority.generate(
                "operator CA 2027", io.etcdwright.modules.pki.KeyAlgorithm.fromName("ecdsa-p256"), java.time.Duration.ofDays(3650),
                PlannerScenarios.clockOf(CONVERGED));
        Path own = Files.createDirectories(home.resolve("own-ca"));
        mine.writeTo(own);
        String three = Files.readString(PlannerScenarios.DIR.resolve("three.yaml"));
        Files.writeString(home.resolve("own.yaml"), three + "    ca: {cert: " + own.resolve("ca.crt") + ", key: "
                + own.resolve("ca.key") + "}\n");
        Plan plan = scenarios.plan(new Scenario("converged", home.resolve("own").toString()), pkiDir, hosts -> hosts);
        List<String> want = new ArrayList<>(List.of("cluster/ca-rotation"));
        List<String> trust = roll(HOSTS, "ca-trust-both", "restart-trust-both", "cluster/ca-rotation");
        want.addAll(trust);
        want.add("cluster/ca-trusted <- " + lastRestart(trust, ""));
        assertEquals(want, shape(plan));
    }

    @Test
    void aCaChangedUnderTheClusterNoLongerJustSwapsTheCaFile() {
        // The old path (a new CA, then one rolling restart) would break peer TLS half way: it is a rotation now,
        // and without the PKI that issued the members' certificates there is no client they accept.
        Plan plan = scenarios.plan(new Scenario("converged", "three").withPki(Pki.NONE));
        assertEquals(List.of("refused ca-rotation-no-client: h1"), shape(plan));
        assertTrue(plan.refusals().get(0).whatToDo().contains("restore the PKI directory"), plan.refusals().get(0).whatToDo());
    }

    // ---- resuming ----

    @Test
    void resumesPhaseOneWithTheMembersThatHaveNotLoadedTheBundle() {
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        // h1 restarted with the bundle; h2 has it written but the apply stopped before its restart; h3 untouched.
        Plan plan = plan(hosts -> edit(hosts, Map.of("h1", f -> ca(f, bundle, true), "h2", f -> ca(f, bundle, false))));
        List<String> want = new ArrayList<>(List.of("cluster/ca-rotation"));
        List<String> trust = roll(List.of("h2", "h3"), "ca-trust-both", "restart-trust-both", "cluster/ca-rotation");
        want.addAll(trust);
        want.add("cluster/ca-trusted <- " + lastRestart(trust, ""));
        assertEquals(want, shape(plan));
    }

    @Test
    void resumesPhaseTwoOnceEveryMemberRunsWithTheBundle() {
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        // Every member trusts both; h1's certificates were reissued before the apply stopped.
        reissueOnWorkstation();
        Plan plan = plan(hosts -> edit(hosts, Map.of("h1", f -> leaves(ca(f, bundle, true), "h1"),
                "h2", f -> ca(f, bundle, true), "h3", f -> ca(f, bundle, true))));
        List<String> want = new ArrayList<>(List.of("cluster/ca-rotation"));
        want.addAll(reissue(List.of("h2", "h3"), "cluster/ca-rotation"));
        assertEquals(want, shape(plan));
        // Phase 1 is proved again first; certificates are swapped without a restart, each member then seen serving its new one.
        assertEquals(List.of("every member accepts a client certificate of the new CA"), step(plan, "cluster/ca-trusted").requires());
        Step reissued = step(plan, "h2/ca-reissue");
        assertTrue(reissued.reason().endsWith("no restart"), reissued.reason());
        assertEquals(List.of("h2 serves a certificate of the new CA"), reissued.readyWhen());
        assertEquals(List.of("every member serves a certificate of the new CA on its client and peer URLs"),
                step(plan, "cluster/ca-reissued").requires());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("CA rotation phase 2/3")), plan.warnings().toString());
        assertTrue(shape(plan).stream().noneMatch(l -> l.contains("restart")), "phase 2 restarts nothing: " + shape(plan));
    }

    @Test
    void resumesPhaseThreeWithTheMembersStillTrustingTheOldCa() {
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        reissueOnWorkstation();
        pki.rotation().begin(List.of(oldCa), fresh);
        pki.rotation().recordPhase(CaRotationFiles.Phase.DROP_OLD);
        // h1 restarted with the new CA alone; h2 has it written, not loaded; h3 still runs with the bundle.
        Plan plan = plan(hosts -> edit(hosts, Map.of("h1", f -> leaves(ca(f, List.of(fresh), true), "h1"),
                "h2", f -> leaves(ca(f, List.of(fresh), false), "h2"), "h3", f -> leaves(ca(f, bundle, true), "h3"))));
        List<String> want = new ArrayList<>(List.of("cluster/ca-rotation"));
        want.addAll(dropOld(List.of("h2", "h3"), "cluster/ca-rotation"));
        assertEquals(want, shape(plan));
        assertEquals(List.of("every member refuses a client certificate of the old CA"),
                step(plan, "cluster/ca-rotation-done").requires());
        // A phase-3 resume never gives a member the old CA back.
        assertTrue(shape(plan).stream().noneMatch(s -> s.contains("trust-both") || s.contains("/ca-reissue ") || s.contains("ca-reissue-clients")),
                shape(plan).toString());
    }

    @Test
    void aRotationDoneOnEveryMemberOnlyEndsItsRecordThenNothingIsLeft() {
        X509Certificate fresh = newGeneration();
        reissueOnWorkstation();
        pki.rotation().begin(List.of(oldCa), fresh);
        UnaryOperator<Map<String, EtcdHostFacts>> done = hosts -> edit(hosts, Map.of(
                "h1", f -> leaves(ca(f, List.of(fresh), true), "h1"), "h2", f -> leaves(ca(f, List.of(fresh), true), "h2"),
                "h3", f -> leaves(ca(f, List.of(fresh), true), "h3")));
        assertEquals(List.of("cluster/ca-rotation", "cluster/ca-reissued <- cluster/ca-rotation",
                "cluster/ca-rotation-done <- cluster/ca-reissued"), shape(plan(done)));
        pki.rotation().finish();
        Plan after = plan(done);
        assertEquals(List.of(), shape(after), "a finished rotation leaves a converged cluster");
        assertFalse(after.hasChanges());
    }

    @Test
    void aRecordThatSaysPhaseThreeDoesNotSkipCertificatesStillOfTheOldCa() {
        // The workstation's record is not trusted alone: h3 still serves the old CA's certificates.
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        reissueOnWorkstation();
        pki.rotation().begin(List.of(oldCa), fresh);
        pki.rotation().recordPhase(CaRotationFiles.Phase.DROP_OLD);
        Plan plan = plan(hosts -> edit(hosts, Map.of("h1", f -> leaves(ca(f, bundle, true), "h1"),
                "h2", f -> leaves(ca(f, bundle, true), "h2"), "h3", f -> ca(f, bundle, true))));
        List<String> want = new ArrayList<>(List.of("cluster/ca-rotation"));
        want.addAll(reissue(List.of("h3"), "cluster/ca-rotation"));
        assertEquals(want, shape(plan));
    }

    // ---- refusals ----

    @Test
    void aMemberDownRefusesTheRotationAndSaysWhatToDo() {
        Plan plan = scenarios.plan(new Scenario("h2-stopped", spec.toString()), pkiDir, hosts -> hosts);
        assertEquals(List.of("refused ca-rotation-member-down: h2"), shape(plan));
        assertTrue(plan.refusals().get(0).what().contains("not running"), plan.refusals().get(0).what());
        assertTrue(plan.refusals().get(0).whatToDo().contains("the rotation resumes where it stands"),
                plan.refusals().get(0).whatToDo());
    }

    @Test
    void aMembershipChangeDuringARotationIsRefused() throws IOException {
        String five = Files.readString(PlannerScenarios.DIR.resolve("five.yaml"));
        Files.writeString(home.resolve("five-rotated.yaml"), five + (five.contains("  pki:\n") ? "    caGeneration: 2\n"
                : "tls:\n  pki:\n    caGeneration: 2\n"));
        Plan plan = scenarios.plan(new Scenario("converged", home.resolve("five-rotated").toString()), pkiDir, hosts -> hosts);
        assertEquals(List.of("refused ca-rotation-with-other-change: scn"), shape(plan));
    }

    @Test
    void loweringTheCaGenerationIsRefusedWithWhatIsInEffectAndHowToGoBack() {
        // The workstation is at generation 2 (a rotation done); the spec says generation 1 again (three.yaml has no caGeneration).
        newGeneration();
        Plan plan = scenarios.plan(new Scenario("converged", "three"), pkiDir, hosts -> hosts);
        assertEquals(List.of("refused ca-generation-lowered: cluster scn"), shape(plan));
        var refusal = plan.refusals().get(0);
        assertTrue(refusal.what().contains("tls.pki.caGeneration is 1") && refusal.what().contains("is generation 2, which stays in effect")
                && refusal.what().contains("cannot go back"), refusal.what());
        assertTrue(refusal.whatToDo().contains("set tls.pki.caGeneration: 2")
                && refusal.whatToDo().contains("name that CA in tls.pki.ca")
                && refusal.whatToDo().contains(pkiDir.resolve("previous-ca/generation-1/ca.crt").toString()), refusal.whatToDo());
        // Nothing moved on the workstation: generation 2 is still the CA.
        assertEquals(2, pki.caGeneration());
        // The spec at the workstation's generation plans nothing of the kind.
        assertTrue(plan(hosts -> hosts).refusals().stream().noneMatch(r -> r.kind().equals("ca-generation-lowered")));
    }

    // ---- a host that holds a client pair without running a member (h4, kube-apiserver) ----

    private Plan planWithClientHost(UnaryOperator<Map<String, EtcdHostFacts>> edit, Map<String, FileState> h4) throws IOException {
        Path written = home.resolve("rotated-clients.yaml");
        Files.writeString(written, Files.readString(home.resolve("rotated.yaml")) + "clients:\n  kube-apiserver: {hosts: [h4]}\n");
        return scenarios.plan(new Scenario("converged", home.resolve("rotated-clients").toString()), pkiDir, edit,
                new io.etcdwright.modules.pki.ClientHostFacts(Map.of("h4", h4), Map.of()));
    }

    private Map<String, FileState> h4Holding(Path ca, Path cert) throws IOException {
        ClusterPki.LocalPair pair = pki.clientPair(HostCertificates.APISERVER);
        return Map.of(HostCertificates.certPath(HostCertificates.CA), ClientHostsScenarioTest.file(HostCertificates.certPath(HostCertificates.CA), ca, "644", true),
                HostCertificates.certPath(HostCertificates.APISERVER), ClientHostsScenarioTest.file(HostCertificates.certPath(HostCertificates.APISERVER), cert, "644", true),
                HostCertificates.keyPath(HostCertificates.APISERVER), ClientHostsScenarioTest.file(HostCertificates.keyPath(HostCertificates.APISERVER), pair.key(), "600", false));
    }

    @Test
    void aClientHostGetsTheBundleInPhaseOneItsNewCertificateInPhaseTwoAndTheNewCaInPhaseThree() throws IOException {
        Path oldCaFile = Files.copy(pki.caCertFile(), home.resolve("old-ca.crt"));
        Path oldCert = Files.copy(pki.clientPair(HostCertificates.APISERVER).cert(), home.resolve("old-apiserver.crt"));
        Map<String, FileState> before = h4Holding(oldCaFile, oldCert);

        // Phase 1: the bundle, beside the members' (no restart there: the client reads it when it restarts).
        Plan one = planWithClientHost(hosts -> hosts, before);
        Step trust = step(one, "h4/client-files");
        assertEquals(List.of("cluster/ca-generation", "cluster/ca-rotation"), trust.after());
        assertTrue(trust.reason().startsWith("ca.crt differs from ca-bundle.crt"), trust.reason());
        assertTrue(trust.reason().contains("reads its CA file only at start"), trust.reason());
        assertTrue(one.warnings().stream().anyMatch(w -> w.contains("h4 runs no member") && w.contains("the bundle as ca.crt")
                && w.contains("reads its CA file only at start")), one.warnings().toString());
        assertTrue(shape(one).stream().noneMatch(l -> l.startsWith("h4/restart")), "nothing restarts on h4");

        // Phase 2: every member trusts both; h4 holds the bundle and the old CA's certificate: it gets the new one
        // once the workstation issued it.
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        pki.rotation().begin(List.of(oldCa), fresh);
        UnaryOperator<Map<String, EtcdHostFacts>> trusting = hosts -> edit(hosts, Map.of("h1", f -> ca(f, bundle, true),
                "h2", f -> ca(f, bundle, true), "h3", f -> ca(f, bundle, true)));
        Plan two = planWithClientHost(trusting, h4Holding(pki.rotation().bundle(), oldCert));
        Step reissue = step(two, "h4/client-files");
        assertEquals(List.of("cluster/ca-reissue-clients"), reissue.after());
        assertTrue(reissue.reason().contains("kube-apiserver-etcd-client.crt issued by the old CA"), reissue.reason());

        // Phase 3: every member serves the new CA's certificates; h4 (new certificate, bundle) gets the new CA alone.
        reissueOnWorkstation();
        pki.rotation().recordPhase(CaRotationFiles.Phase.DROP_OLD);
        Plan three = planWithClientHost(hosts -> edit(hosts, Map.of("h1", f -> leaves(ca(f, bundle, true), "h1"),
                        "h2", f -> leaves(ca(f, bundle, true), "h2"), "h3", f -> leaves(ca(f, bundle, true), "h3"))),
                h4Holding(pki.rotation().bundle(), pki.clientPair(HostCertificates.APISERVER).cert()));
        Step drop = step(three, "h4/client-files");
        assertEquals(List.of("cluster/ca-reissued"), drop.after());
        assertTrue(drop.reason().startsWith("ca.crt differs from ca.crt"), drop.reason());
    }

    private Plan planWithKubeadmClientHost(UnaryOperator<Map<String, EtcdHostFacts>> edit, Map<String, FileState> h4) throws IOException {
        Path written = home.resolve("rotated-kubeadm.yaml");
        Files.writeString(written, Files.readString(home.resolve("rotated.yaml"))
                + "clients:\n  kube-apiserver: {hosts: [h4], layout: kubeadm}\n");
        return scenarios.plan(new Scenario("converged", home.resolve("rotated-kubeadm").toString()), pkiDir, edit,
                new io.etcdwright.modules.pki.ClientHostFacts(Map.of("h4", h4), Map.of()));
    }

    private Map<String, FileState> h4HoldingForKubeadm(Path ca, Path cert) throws IOException {
        ClusterPki.LocalPair pair = pki.clientPair(HostCertificates.APISERVER);
        String caPath = io.etcdwright.modules.pki.KubeadmPaths.CA_FILE;
        String certPath = io.etcdwright.modules.pki.KubeadmPaths.CERT_FILE;
        String keyPath = io.etcdwright.modules.pki.KubeadmPaths.KEY_FILE;
        return Map.of(caPath, ClientHostsScenarioTest.file(caPath, ca, "644", true),
                certPath, ClientHostsScenarioTest.file(certPath, cert, "644", true),
                keyPath, ClientHostsScenarioTest.file(keyPath, pair.key(), "600", false));
    }

    @Test
    void inKubeadmsLayoutTheBundleAndTheNewPairGoToKubeadmsPaths() throws Exception {
        Path oldCaFile = Files.copy(pki.caCertFile(), home.resolve("old-ca.crt"));
        Path oldCert = Files.copy(pki.clientPair(HostCertificates.APISERVER).cert(), home.resolve("old-apiserver.crt"));
        String kubeadmCa = io.etcdwright.modules.pki.KubeadmPaths.CA_FILE;

        Plan one = planWithKubeadmClientHost(hosts -> hosts, h4HoldingForKubeadm(oldCaFile, oldCert));
        Step trust = step(one, "h4/client-files");
        assertTrue(trust.reason().startsWith(kubeadmCa + " differs from ca-bundle.crt"), trust.reason());
        assertTrue(clientLines(one).stream().allMatch(l -> l.startsWith("~ kube-apiserver on h4 --etcd-cafile: " + kubeadmCa + ":")),
                clientLines(one).toString());

        // Phase 2: h4 holds the bundle at kubeadm's path and the old CA's certificate: it gets the new one there.
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        pki.rotation().begin(List.of(oldCa), fresh);
        UnaryOperator<Map<String, EtcdHostFacts>> trusting = hosts -> edit(hosts, Map.of("h1", f -> ca(f, bundle, true),
                "h2", f -> ca(f, bundle, true), "h3", f -> ca(f, bundle, true)));
        Plan two = planWithKubeadmClientHost(trusting, h4HoldingForKubeadm(pki.rotation().bundle(), oldCert));
        Step reissue = step(two, "h4/client-files");
        assertEquals(List.of("cluster/ca-reissue-clients"), reissue.after());
        assertTrue(reissue.reason().contains("kube-apiserver-etcd-client.crt issued by the old CA"), reissue.reason());
        assertTrue(clientLines(two).get(0).startsWith("~ kube-apiserver on h4 --etcd-certfile: "
                + io.etcdwright.modules.pki.KubeadmPaths.CERT_FILE + ": -issued by " + OLD), clientLines(two).toString());

        // Its new certificate there (issued by the new CA): nothing more for h4 in phase 2.
        reissueOnWorkstation();
        Plan done = planWithKubeadmClientHost(trusting, h4HoldingForKubeadm(pki.rotation().bundle(),
                pki.clientPair(HostCertificates.APISERVER).cert()));
        assertTrue(shape(done).stream().noneMatch(l -> l.startsWith("h4/")), shape(done).toString());
    }

    // ---- kube-apiserver's etcd flags through the phases ----

    private static final String OLD = "\"etcd CA for cluster scn\" (sha256 9f33051e)";
    private static final String CA_FILE = "/etc/etcd/pki/ca.crt";

    /** A CA as the plan names it: its common name and the start of its sha256 fingerprint. */
    private static String named(X509Certificate ca) throws Exception {
        String cn = ca.getSubjectX500Principal().getName().substring("CN=".length());
        return "\"" + cn + "\" (sha256 " + java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(ca.getEncoded())).substring(0, 8) + ")";
    }

    private static List<String> clientLines(Plan plan) {
        return plan.clients().stream().map(io.etcdwright.engine.plan.ClientChange::line).toList();
    }

    @Test
    void eachPhaseNamesWhatTheApiServersCaFileAndCertificateHoldAndWhenToRestartIt() throws Exception {
        // Phase 1, with no control-plane host named: one diff, the new CA still to be made by the apply.
        Plan one = plan(hosts -> hosts);
        assertEquals(List.of("~ kube-apiserver --etcd-cafile: " + CA_FILE + ": -trusts " + OLD + " +trusts " + OLD
                + " + the new CA (tls.pki.caGeneration 2, made by this apply)"), clientLines(one));
        String when = one.clients().get(0).when();
        assertTrue(when.startsWith("after this apply and before the next (CA rotation phase 2, members then serve certificates"
                + " of the new CA): restart kube-apiserver"), when);
        assertTrue(when.endsWith("copy the files 'etcdwright kube-apiserver-flags --workstation-paths' names to each"
                + " control-plane host first)"), when);

        // Phase 2: the same CA file (the bundle), a certificate and key of the new CA.
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        pki.rotation().begin(List.of(oldCa), fresh);
        Path oldCert = Files.copy(pki.clientPair(HostCertificates.APISERVER).cert(), home.resolve("old-apiserver.crt"));
        UnaryOperator<Map<String, EtcdHostFacts>> trusting = hosts -> edit(hosts, Map.of("h1", f -> ca(f, bundle, true),
                "h2", f -> ca(f, bundle, true), "h3", f -> ca(f, bundle, true)));
        Plan two = planWithClientHost(trusting, h4Holding(pki.rotation().bundle(), oldCert));
        String fromNew = named(fresh);
        assertEquals(List.of("~ kube-apiserver on h4 --etcd-certfile: /etc/etcd/pki/kube-apiserver-etcd-client.crt: -issued by "
                        + OLD + " +issued by " + fromNew,
                "~ kube-apiserver on h4 --etcd-keyfile: /etc/etcd/pki/kube-apiserver-etcd-client.key: -the key of the certificate"
                        + " issued by " + OLD + " +the key of the certificate issued by " + fromNew), clientLines(two));
        assertTrue(two.clients().get(0).when().startsWith("after this apply and before the next (CA rotation phase 3, members"
                + " then refuse the old CA)"), two.clients().get(0).when());

        // Phase 3: the new CA alone, on the host named.
        reissueOnWorkstation();
        pki.rotation().recordPhase(CaRotationFiles.Phase.DROP_OLD);
        Plan three = planWithClientHost(hosts -> edit(hosts, Map.of("h1", f -> leaves(ca(f, bundle, true), "h1"),
                        "h2", f -> leaves(ca(f, bundle, true), "h2"), "h3", f -> leaves(ca(f, bundle, true), "h3"))),
                h4Holding(pki.rotation().bundle(), pki.clientPair(HostCertificates.APISERVER).cert()));
        assertEquals(List.of("~ kube-apiserver on h4 --etcd-cafile: " + CA_FILE + ": -trusts " + OLD + " + " + fromNew
                + " +trusts " + fromNew), clientLines(three));

        // Done: the record ended, nothing is left for kube-apiserver either.
        pki.rotation().finish();
        Plan after = plan(hosts -> edit(hosts, Map.of("h1", f -> leaves(ca(f, List.of(fresh), true), "h1"),
                "h2", f -> leaves(ca(f, List.of(fresh), true), "h2"), "h3", f -> leaves(ca(f, List.of(fresh), true), "h3"))));
        assertEquals(List.of(), after.clients());
    }

    // ---- a restore while a rotation is under way ----

    @Test
    void aRestoreInPhaseOneGivesEveryMemberTheBundleAndItsCertificatesAsTheyAreAndTheNextApplyCarriesOn() {
        X509Certificate fresh = newGeneration();
        List<X509Certificate> bundle = List.of(oldCa, fresh);
        // Phase 1 half done (h1 restarted with the bundle, h2 and h3 not), then the cluster is lost: a restore.
        UnaryOperator<Map<String, EtcdHostFacts>> halfway = hosts -> edit(hosts, Map.of("h1", f -> ca(f, bundle, true)));
        Plan restore = scenarios.restore(rotated(), RestorePlannerScenarioTest.snapshot(true, Optional.empty()), pkiDir, halfway);
        assertFalse(restore.isRefused(), restore.refusals().toString());
        // The workstation's record and bundle first; no client certificate issued (phase 2 does, keeping the old admin aside).
        assertEquals("cluster/ca-rotation", restore.steps().get(0).id());
        assertTrue(shape(restore).stream().noneMatch(l -> l.startsWith("cluster/clients") || l.startsWith("cluster/ca-generation")),
                shape(restore).toString());
        for (String h : HOSTS) {
            Step certs = step(restore, h + "/certificates");
            assertTrue(certs.summary().endsWith("/etc/etcd/pki/ca.crt from ca-bundle.crt"), certs.summary());
            assertTrue(certs.after().contains("cluster/ca-rotation"), certs.after().toString());
            // Before the members are stopped: the restored etcd starts with the bundle.
            assertTrue(step(restore, h + "/restore/stage").after().contains(h + "/certificates")
                    || step(restore, h + "/restore/stage").after().stream().anyMatch(a -> a.startsWith(h + "/")),
                    step(restore, h + "/restore/stage").after().toString());
        }
        assertTrue(restore.warnings().stream().anyMatch(w -> w.startsWith("CA rotation under way (phase 1/3")
                && w.contains("clients of either CA keep working") && w.contains("the next apply carries the rotation on")),
                restore.warnings().toString());
        // Nothing was written by planning.
        assertFalse(pki.rotation().active());

        // After it, every member runs with the bundle and its old certificates: the next apply is phase 2.
        pki.rotation().begin(List.of(oldCa), fresh);
        Plan next = plan(hosts -> edit(hosts, Map.of("h1", f -> ca(f, bundle, true), "h2", f -> ca(f, bundle, true),
                "h3", f -> ca(f, bundle, true))));
        List<String> want = new ArrayList<>(List.of("cluster/ca-rotation"));
        want.addAll(reissue(HOSTS, "cluster/ca-rotation"));
        assertEquals(want, shape(next));
    }

    @Test
    void aRestoreWithoutARotationKeepsTheCaAsItIs() {
        Plan restore = scenarios.restore(new Scenario("converged", "three"), RestorePlannerScenarioTest.snapshot(true, Optional.empty()),
                pkiDir, hosts -> hosts);
        assertFalse(restore.isRefused(), restore.refusals().toString());
        assertTrue(shape(restore).stream().noneMatch(l -> l.contains("ca-rotation")), shape(restore).toString());
        assertTrue(restore.warnings().stream().noneMatch(w -> w.startsWith("CA rotation")), restore.warnings().toString());
    }

    // ---- status ----

    @Test
    void statusShowsThePhaseAndTheBundleClientsTrust() {
        assertEquals("pending", StatusCommand.caRotation(pki).orElseThrow().get("phase"));
        X509Certificate fresh = newGeneration();
        assertTrue(StatusCommand.caRotation(pki).isEmpty(), "a generated CA with no rotation recorded yet is shown by plan");
        pki.rotation().begin(List.of(oldCa), fresh);
        Map<String, Object> r = StatusCommand.caRotation(pki).orElseThrow();
        assertEquals("trust-both", r.get("phase"));
        assertEquals(pki.rotation().bundle().toAbsolutePath().toString(), r.get("trusted_ca_file"));
        assertEquals(pki.rotation().bundle(), pki.trustedCaFile());
        assertEquals(List.of(oldCa.getSubjectX500Principal(), fresh.getSubjectX500Principal()),
                Pem.readCertificates(read(pki.trustedCaFile()), "bundle").stream().map(X509Certificate::getSubjectX500Principal).toList());
        pki.rotation().finish();
        assertEquals(pki.caCertFile(), pki.trustedCaFile());
    }

    // ---- helpers: the workstation and the hosts in a given state ----

    private X509Certificate newGeneration() {
        assertTrue(pki.generateNextCa());
        assertEquals(2, pki.caGeneration());
        assertTrue(Files.exists(pkiDir.resolve("previous-ca/generation-1/ca.key")), "the old CA is kept on the workstation");
        return pki.caCertificate().orElseThrow();
    }

    private void reissueOnWorkstation() {
        for (String host : HOSTS) {
            for (String role : HostCertificates.MEMBER_KEYED) {
                pki.ensure(pki.memberPair(identity(host), role), pki.memberRequest(identity(host), role));
            }
        }
        for (String role : HostCertificates.CLIENTS) {
            pki.ensure(pki.clientPair(role), pki.clientRequest(role));
        }
    }

    private static ClusterPki.MemberIdentity identity(String host) {
        return new ClusterPki.MemberIdentity(host, host, "10.77.0." + (10 + Integer.parseInt(host.substring(1))));
    }

    private static Map<String, EtcdHostFacts> edit(Map<String, EtcdHostFacts> hosts, Map<String, UnaryOperator<EtcdHostFacts>> edits) {
        Map<String, EtcdHostFacts> out = new LinkedHashMap<>(hosts);
        edits.forEach((host, e) -> out.put(host, e.apply(out.get(host))));
        return out;
    }

    /** The host's ca.crt holding {@code cas}, written before etcd started ({@code loaded}) or after it. */
    private static EtcdHostFacts ca(EtcdHostFacts f, List<X509Certificate> cas, boolean loaded) {
        String path = HostCertificates.certPath(HostCertificates.CA);
        FileState was = f.file(path);
        long started = f.service().startedMicros();
        assertTrue(started > 0, "the recording has etcd's start time");
        String pem = CaRotationFiles.pem(cas);
        return with(f, new FileState(path, true, HostSession.sha256(pem.getBytes(StandardCharsets.UTF_8)), was.mode(),
                was.owner(), was.group(), loaded ? started - 1 : started + 1, Optional.of(pem)));
    }

    /** The host's server, peer and healthcheck pairs as the workstation issued them now. */
    private EtcdHostFacts leaves(EtcdHostFacts f, String host) {
        EtcdHostFacts out = f;
        for (String role : HostCertificates.MEMBER_KEYED) {
            ClusterPki.LocalPair pair = pki.memberPair(identity(host), role);
            FileState cert = f.file(HostCertificates.certPath(role));
            FileState key = f.file(HostCertificates.keyPath(role));
            String pem = read(pair.cert());
            out = with(out, new FileState(cert.path(), true, pair.certSha256(), cert.mode(), cert.owner(), cert.group(),
                    cert.modifiedMicros(), Optional.of(pem)));
            out = with(out, new FileState(key.path(), true, pair.keySha256(), key.mode(), key.owner(), key.group(),
                    key.modifiedMicros(), Optional.empty()));
        }
        return out;
    }

    private static EtcdHostFacts with(EtcdHostFacts f, FileState file) {
        Map<String, FileState> files = new LinkedHashMap<>(f.files());
        files.put(file.path(), file);
        return PlannerScenarios.withFiles(f, files);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
