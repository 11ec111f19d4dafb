package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.CertificateRequest;
import io.etcdwright.modules.pki.IssuedCertificate;
import io.etcdwright.modules.pki.KeyAlgorithm;
import io.etcdwright.modules.pki.Purpose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The life of a three-member cluster on real hosts, driven through the real CLI: create,
 * converge, refuse bad clients, drift and repair, saved plans, safe restarts, destroy, re-create.
 * The steps build on each other, so they run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterLifecycleIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    /** examples/three-node.yaml, its artifact URLs this testbed's. */
    static String SPEC;
    static Path tools;
    static Etcdctl etcdctl;
    static String firstClusterId;

    @BeforeAll
    static void hosts() throws Exception {
        tools = Testbed.scratch("etcdctl");
        SPEC = spec("three-node.yaml", "").toString();
        etcdctl = Etcdctl.unpack(tools, "3.5.16");
    }

    /** The three-node example with {@code extra} appended, as a file of this class's scratch directory. */
    static Path spec(String name, String extra) throws java.io.IOException {
        return Files.writeString(Testbed.scratch("specs").resolve(name), Testbed.example("three-node.yaml") + extra);
    }

    static Map<String, String> clientEnv() {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", SPEC);
        assertEquals(0, env.exitCode());
        return Etcdctl.env(env.out());
    }

    static JsonNode statusJson() throws Exception {
        Cli.Run status = Cli.run("status", "-i", INV, "-f", SPEC, "-o", "json");
        return new ObjectMapper().readTree(status.out());
    }

    @Test
    @Order(1)
    void createsAHealthyMutualTlsClusterFromBareHosts() throws Exception {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertTrue(apply.out().contains("bootstrap cluster three"), apply.out());
        // Not a terminal: progress comes as plain lines, never with escape codes a log would garble.
        assertFalse(apply.all().contains("\u001b") || apply.all().contains("\r"), apply.all());

        JsonNode status = statusJson();
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        assertEquals(3, status.path("members").size());
        int leaders = 0;
        for (JsonNode m : status.path("members")) {
            assertTrue(m.path("healthy").asBoolean());
            assertEquals("3.5.16", m.path("version").asText());
            assertTrue(m.path("cert_days_left").asInt() >= 363, "certificates valid for a year: " + m);
            leaders += m.path("leader").asBoolean() ? 1 : 0;
        }
        assertEquals(1, leaders);
        firstClusterId = status.path("cluster_id").asText();

        Map<String, String> env = clientEnv();
        assertEquals(0, etcdctl.run(env, "endpoint", "health").exitCode(), "every endpoint healthy over TLS");
        assertEquals(0, etcdctl.run(env, "put", "/lifecycle", "created").exitCode());
        assertTrue(etcdctl.run(env, "get", "/lifecycle", "--print-value-only").stdout().contains("created"));
    }

    @Test
    @Order(2)
    void aSecondApplyChangesNothing() throws Exception {
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", SPEC, "--detailed-exitcode").exitCode());
        JsonNode plan = new ObjectMapper().readTree(Cli.run("plan", "-i", INV, "-f", SPEC, "-o", "json").out());
        assertFalse(plan.path("changes").asBoolean());
        assertEquals(0, plan.path("steps").size());
        Cli.Run flags = Cli.run("kube-apiserver-flags", "-i", INV, "-f", SPEC);
        assertTrue(flags.out().contains("--etcd-servers=https://" + Testbed.address(1) + ":2379,https://" + Testbed.address(2) + ":2379,https://" + Testbed.address(3) + ":2379"));
        assertTrue(flags.out().contains("--etcd-certfile=/etc/etcd/pki/kube-apiserver-etcd-client.crt"), flags.out());
        assertTrue(flags.err().contains("clients.kube-apiserver"), "no host holds what the flags name, and it says so: " + flags.err());
        assertEquals(1, Testbed.sshStatus(1, "test -e /etc/etcd/pki/kube-apiserver-etcd-client.crt"), "no client key unless asked");
        Cli.Run again = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes", "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.out().contains("No changes."));
    }

    @Test
    @Order(3)
    void secretsAreProtectedAndTheCaKeyStaysOnTheWorkstation() {
        for (int h = 1; h <= 3; h++) {
            assertEquals("600 etcd etcd\n600 etcd etcd\n600 etcd etcd\n",
                    Testbed.ssh(h, "stat -c '%a %U %G' /etc/etcd/pki/server.key /etc/etcd/pki/peer.key "
                            + "/etc/etcd/pki/healthcheck-client.key"));
            assertEquals(OWN_FILES, Testbed.ssh(h, "ls /etc/etcd/pki"), "a member holds its own keys only");
            assertEquals("", Testbed.ssh(h, "ls /etc/etcd/pki | grep -i 'ca.key' || true").strip());
            assertEquals("700 etcd etcd\n", Testbed.ssh(h, "stat -c '%a %U %G' /var/lib/etcd"));
        }
        Path caKey = HOSTS.home().resolve("clusters/three/pki/ca.key");
        assertTrue(Files.exists(caKey));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                assertDoesNotThrowPermissions(caKey)));
    }

    /** What a member host holds when the spec names it for no client: the CA and its own pairs. */
    static final String OWN_FILES = "ca.crt\nhealthcheck-client.crt\nhealthcheck-client.key\npeer.crt\npeer.key\nserver.crt\nserver.key\n";

    /**
     * Each member's own healthcheck client is what the host uses itself: etcd accepts it, the facts
     * probe asks the local member with it (no admin key there), and certs shows it per host as the
     * workstation's copy, its key belonging to it.
     */
    @Test
    @Order(3)
    void eachMemberAsksItsEtcdWithItsOwnHealthcheckClient() throws Exception {
        for (int h = 1; h <= 3; h++) {
            assertEquals(0, Testbed.sshStatus(h, "ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379"
                    + " --cacert=/etc/etcd/pki/ca.crt --cert=/etc/etcd/pki/healthcheck-client.crt"
                    + " --key=/etc/etcd/pki/healthcheck-client.key endpoint health"), "h" + h);
        }
        JsonNode facts = new ObjectMapper().readTree(Cli.run("facts", "-i", INV, "-f", SPEC, "-o", "json").out());
        for (JsonNode host : facts.path("hosts")) {
            assertTrue(host.path("member").path("member_id").asText().matches("[0-9a-f]+"), "the local member answered: " + host);
        }
        Cli.Run certs = Cli.run("certs", "-i", INV, "-f", SPEC, "-o", "json");
        assertEquals(0, certs.exitCode(), certs.all());
        java.util.Set<String> serials = new java.util.HashSet<>();
        int onHosts = 0;
        for (JsonNode c : new ObjectMapper().readTree(certs.out()).path("certificates")) {
            boolean onHost = !c.path("location").asText().equals("workstation");
            assertFalse(onHost && (c.path("kind").asText().equals("admin") || c.path("kind").asText().startsWith("kube-apiserver")), c.toString());
            if (onHost && c.path("kind").asText().equals("healthcheck-client")) {
                onHosts++;
                assertEquals("present", c.path("state").asText(), c.toString());
                assertTrue(c.path("matches_workstation").asBoolean(), c.toString());
                assertFalse(c.path("key").path("matches_certificate").isBoolean() && !c.path("key").path("matches_certificate").asBoolean(),
                        c.toString());
                assertEquals(c.path("location").asText(), c.path("member").asText(), "the member's own: " + c);
                serials.add(c.path("serial").asText());
            }
        }
        assertEquals(3, onHosts, certs.out());
        assertEquals(3, serials.size(), "each member its own certificate: " + serials);
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> assertDoesNotThrowPermissions(Path p) {
        try {
            return Files.getPosixFilePermissions(p);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @Order(4)
    void plaintextClientsAndClientsOfAnotherCaAreRefused() throws Exception {
        Map<String, String> env = clientEnv();
        Map<String, String> noCert = new HashMap<>(env);
        noCert.remove("ETCDCTL_CERT");
        noCert.remove("ETCDCTL_KEY");
        assertNotEquals(0, etcdctl.run(noCert, "get", "/lifecycle").exitCode(), "a client without a certificate");

        Map<String, String> plaintext = new HashMap<>();
        plaintext.put("ETCDCTL_ENDPOINTS", "http://" + Testbed.address(1) + ":2379");
        assertNotEquals(0, etcdctl.run(plaintext, "get", "/lifecycle").exitCode(), "a plaintext client");

        CertificateAuthority other = CertificateAuthority.generate("someone else's CA", KeyAlgorithm.ECDSA_P256,
                Duration.ofDays(30), Clock.systemUTC());
        IssuedCertificate stranger = other.issue(CertificateRequest.of(Purpose.CLIENT, "stranger", List.of(), List.of(),
                List.of(), KeyAlgorithm.ECDSA_P256, Duration.ofDays(30)), Clock.systemUTC());
        Path cert = tools.resolve("stranger.crt");
        Path key = tools.resolve("stranger.key");
        stranger.writeTo(cert, key);
        Map<String, String> foreign = new HashMap<>(env);
        foreign.put("ETCDCTL_CERT", cert.toString());
        foreign.put("ETCDCTL_KEY", key.toString());
        assertNotEquals(0, etcdctl.run(foreign, "get", "/lifecycle").exitCode(), "a client certificate of another CA");
    }

    @Test
    @Order(5)
    void driftIsPlannedWithExitTwoAndRepairedByApply() throws Exception {
        // Drift on one host: the recap says a change there, and says changed=0 for the others.
        Testbed.ssh(3, "systemctl stop etcd");
        Cli.Run one = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes", "--detailed-exitcode");
        assertEquals(2, one.exitCode(), one.all());
        String recap = one.out().substring(one.out().indexOf("RECAP"));
        assertTrue(recap.matches("(?s).*\\nh1 +ok=0 changed=0 failed=0 .*"), recap);
        assertTrue(recap.matches("(?s).*\\nh2 +ok=0 changed=0 failed=0 .*"), recap);
        assertTrue(recap.matches("(?s).*\\nh3 +ok=0 changed=1 failed=0 .*"), recap);
        assertTrue(recap.matches("(?s).*\\ncluster +ok=1 changed=0 failed=0 .*"), "waiting for health changes nothing: " + recap);

        Testbed.ssh(2, "sed -i 's/heartbeat-interval: 100/heartbeat-interval: 150/' /etc/etcd/etcd.conf.yml");
        Testbed.ssh(3, "systemctl stop etcd");
        Testbed.ssh(1, "rm /etc/etcd/pki/peer.crt");

        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", SPEC, "--detailed-exitcode", "--diff");
        assertEquals(2, plan.exitCode(), plan.all());
        JsonNode json = new ObjectMapper().readTree(Cli.run("plan", "-i", INV, "-f", SPEC, "-o", "json").out());
        assertTrue(json.path("changes").asBoolean());
        boolean sawConfigStep = false;
        for (JsonNode step : json.path("steps")) {
            assertTrue(step.has("id") && step.has("summary") && step.has("reason") && step.has("after"), step.toString());
            assertFalse(step.has("operation"));
            sawConfigStep |= step.path("id").asText().equals("h2/config-file");
        }
        assertTrue(sawConfigStep, json.toString());
        assertTrue(plan.out().contains("~ certificates for h1 (peer.crt missing on host; etcd reads its certificate at each new TLS handshake: no restart)"), plan.out());
        assertTrue(plan.out().contains("~ write /etc/etcd/etcd.conf.yml (content differs)"), plan.out());
        assertTrue(plan.out().contains("-heartbeat-interval: 150"), "--diff shows the drift: " + plan.out());
        assertTrue(plan.out().contains("> start etcd (not running)"), plan.out());
        assertFalse(plan.out().contains("BEGIN"), "no key material in plan output");

        assertEquals(0, Cli.run("apply", "-i", INV, "-f", SPEC, "--yes").exitCode());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", SPEC, "--detailed-exitcode").exitCode());
        assertTrue(Testbed.ssh(2, "cat /etc/etcd/etcd.conf.yml").contains("heartbeat-interval: 100"));
        assertEquals("active", Testbed.ssh(3, "systemctl is-active etcd").strip());
        assertEquals(0, Testbed.sshStatus(1, "test -s /etc/etcd/pki/peer.crt"));
        assertEquals(0, etcdctl.run(clientEnv(), "endpoint", "health").exitCode());
    }

    @Test
    @Order(6)
    void aSavedPlanAppliesOnlyWhileTheFactsItWasMadeFromHold() throws Exception {
        Path planFile = tools.resolve("stop.plan");
        Testbed.ssh(3, "systemctl stop etcd");
        assertEquals(2, Cli.run("plan", "-i", INV, "-f", SPEC, "--out", planFile.toString(), "--detailed-exitcode").exitCode());
        Testbed.ssh(1, "sed -i 's/election-timeout: 1000/election-timeout: 1200/' /etc/etcd/etcd.conf.yml");
        Cli.Run stale = Cli.run("apply", planFile.toString());
        assertEquals(1, stale.exitCode());
        assertTrue(stale.err().contains("refusing stale plan"), stale.err());
        assertTrue(stale.err().contains("h1: ~ write /etc/etcd/etcd.conf.yml"), "says what the plan would be now: " + stale.err());
        assertEquals("inactive", Testbed.ssh(3, "systemctl is-active etcd || true").strip(), "a stale plan changes nothing");

        assertEquals(2, Cli.run("plan", "-i", INV, "-f", SPEC, "--out", planFile.toString(), "--detailed-exitcode").exitCode());
        assertEquals(0, Cli.run("apply", planFile.toString()).exitCode());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", SPEC, "--detailed-exitcode").exitCode());
    }

    @Test
    @Order(7)
    void aRestartThatCouldLoseQuorumIsRefused() {
        // h3 stays up and reachable over SSH but can no longer talk to its peers: unhealthy.
        Testbed.run("cut", "3", "1");
        Testbed.run("cut", "3", "2");
        try {
            Testbed.ssh(1, "sed -i 's/election-timeout: 1000/election-timeout: 1100/' /etc/etcd/etcd.conf.yml");
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes");
            assertEquals(1, apply.exitCode(), apply.all());
            assertTrue(apply.out().contains("not restarting h1"), apply.out());
            assertTrue(apply.out().contains("could lose quorum"), apply.out());
            assertEquals("active", Testbed.ssh(1, "systemctl is-active etcd").strip(), "h1 was not restarted");
        } finally {
            Testbed.run("uncut", "3", "1");
            Testbed.run("uncut", "3", "2");
        }
        Cli.Run healed = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes");
        assertEquals(0, healed.exitCode(), healed.all());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", SPEC, "--detailed-exitcode").exitCode());
    }

    @Test
    @Order(8)
    void destroyKeepsDataUnlessAskedAndThenLeavesNothing() throws Exception {
        Cli.Run destroy = Cli.run("destroy", "-i", INV, "-f", SPEC, "--yes");
        assertEquals(0, destroy.exitCode(), destroy.all());
        assertEquals(0, Testbed.sshStatus(2, "test -d /var/lib/etcd/member"), "data is kept without --wipe-data");
        Cli.Run again = Cli.run("destroy", "-i", INV, "-f", SPEC, "--yes");
        assertEquals(0, again.exitCode());
        assertTrue(again.out().contains("Nothing to destroy"), again.out());
        assertTrue(again.out().contains("pass --wipe-data"), again.out());

        assertEquals(0, Cli.run("destroy", "-i", INV, "-f", SPEC, "--yes", "--wipe-data").exitCode());
        for (int h = 1; h <= 3; h++) {
            assertEquals("", Testbed.ssh(h, "ls -d /etc/etcd /opt/etcd /var/lib/etcd /usr/local/bin/etcd /usr/local/bin/etcdctl "
                    + "/usr/local/bin/etcdutl /etc/systemd/system/etcd.service 2>/dev/null || true").strip());
            assertEquals("inactive", Testbed.ssh(h, "systemctl is-active etcd || true").strip());
        }
        assertTrue(Cli.run("destroy", "-i", INV, "-f", SPEC, "--yes", "--wipe-data").out().contains("Nothing to destroy"));

        assertEquals(0, Cli.run("apply", "-i", INV, "-f", SPEC, "--yes").exitCode());
        JsonNode status = statusJson();
        assertTrue(status.path("healthy").asBoolean());
        assertNotEquals(firstClusterId, status.path("cluster_id").asText(), "a new cluster, with a fresh token");
        assertFalse(etcdctl.run(clientEnv(), "get", "/lifecycle", "--print-value-only").stdout().contains("created"),
                "wiped data is gone");
    }

    static String mainPids() {
        StringBuilder pids = new StringBuilder();
        for (int h = 1; h <= 3; h++) {
            pids.append(Testbed.ssh(h, "systemctl show -p MainPID -p ExecMainStartTimestampMonotonic etcd"));
        }
        return pids.toString();
    }

    /**
     * Client keys on hosts follow the spec's clients: the admin key goes to h1 only when named, and
     * leaves when no longer named. A cluster as the previous version left it (both client keys on
     * every member, no healthcheck client) converges: each member gets its own healthcheck client,
     * the shared keys are removed by name, a second apply changes nothing, and etcd never restarts.
     */
    @Test
    @Order(9)
    void clientKeysAreOnlyWhereTheSpecNamesThemAndAnUpgradeRemovesThemWithoutARestart() throws Exception {
        String before = mainPids();
        String admin = spec("admin-h1.yaml", "clients:\n  admin: {hosts: [h1]}\n").toString();
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", admin);
        assertTrue(plan.out().contains("certificates for h1 (admin.crt missing on host; admin.key missing on host;"), plan.out());
        assertTrue(plan.out().contains("Plan: 1 step (1 update; 1 change)."), "h1's files only, no restart: " + plan.out());
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", admin, "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertEquals("600 etcd etcd\n", Testbed.ssh(1, "stat -c '%a %U %G' /etc/etcd/pki/admin.key"));
        assertEquals(0, Testbed.sshStatus(1, "ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/etcd/pki/ca.crt"
                + " --cert=/etc/etcd/pki/admin.crt --key=/etc/etcd/pki/admin.key get /lifecycle"), "h1 uses the admin key it was given");
        for (int h = 2; h <= 3; h++) {
            assertEquals(OWN_FILES, Testbed.ssh(h, "ls /etc/etcd/pki"), "h" + h + " is not named");
        }
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", admin, "--yes", "--detailed-exitcode").exitCode());

        Cli.Run removal = Cli.run("plan", "-i", INV, "-f", SPEC);
        assertTrue(removal.out().contains("- remove /etc/etcd/pki/admin.key, /etc/etcd/pki/admin.crt (clients does not name h1 for admin"),
                removal.out());
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", SPEC, "--yes").exitCode());
        assertEquals(OWN_FILES, Testbed.ssh(1, "ls /etc/etcd/pki"));
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", SPEC, "--yes", "--detailed-exitcode").exitCode());

        // The previous version's layout: both client pairs on every member (delivered here by naming the
        // group, the same files, modes and owners), no healthcheck client.
        String everywhere = spec("clients-everywhere.yaml", "clients:\n  admin: {groups: [etcd]}\n  kube-apiserver: {groups: [etcd]}\n").toString();
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", everywhere, "--yes").exitCode());
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "rm /etc/etcd/pki/healthcheck-client.crt /etc/etcd/pki/healthcheck-client.key");
        }
        JsonNode facts = new ObjectMapper().readTree(Cli.run("facts", "-i", INV, "-f", SPEC, "-o", "json").out());
        for (JsonNode host : facts.path("hosts")) {
            assertTrue(host.path("member").path("member_id").asText().matches("[0-9a-f]+"),
                    "without a healthcheck client the facts probe asks with the admin key still there: " + host);
        }
        Cli.Run upgrade = Cli.run("plan", "-i", INV, "-f", SPEC, "-o", "json");
        JsonNode steps = new ObjectMapper().readTree(upgrade.out()).path("steps");
        java.util.List<String> ids = new java.util.ArrayList<>();
        steps.forEach(st -> ids.add(st.path("id").asText()));
        assertEquals(List.of("h1/certificates", "h1/client-keys", "h2/certificates", "h2/client-keys", "h3/certificates",
                "h3/client-keys"), ids, upgrade.out());
        Cli.Run converge = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes");
        assertEquals(0, converge.exitCode(), converge.all());
        for (int h = 1; h <= 3; h++) {
            assertEquals(OWN_FILES, Testbed.ssh(h, "ls /etc/etcd/pki"), "h" + h);
        }
        Cli.Run again = Cli.run("apply", "-i", INV, "-f", SPEC, "--yes", "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.out().contains("No changes."), again.out());
        assertEquals(before, mainPids(), "no member restarted for client keys");
        assertEquals(0, etcdctl.run(clientEnv(), "endpoint", "health").exitCode());
    }
}
