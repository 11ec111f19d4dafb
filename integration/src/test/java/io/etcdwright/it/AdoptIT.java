package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.KeyAlgorithm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code etcdwright import} of clusters set up by hand on the test hosts, in the layouts that
 * kubeadm's external etcd, etcdadm and a distribution package leave (the test makes each with shell
 * commands, src/test/resources/adopt/handmade-member.sh): import writes a spec that keeps the data
 * where it is; the plan right after it touches no data (no membership change, no data step, nothing
 * deleted) and restarts one member at a time, each after the previous one and ready only once a
 * write commits through it; apply converges onto etcdwright's layout with every member keeping its
 * id and data (under a write load for the 3-member plain systemd case: nothing acknowledged lost);
 * the next plan has no changes.
 */
class AdoptIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static final String CLEAN = "systemctl disable --now etcd.service 2>/dev/null; rm -rf /etc/etcd /opt/etcd /var/lib/etcd"
            + " /etc/systemd/system/etcd.service /usr/local/bin/etcd /usr/local/bin/etcdctl /usr/local/bin/etcdutl"
            + " /etc/kubernetes /opt/bin /etc/default/etcd /lib/systemd/system/etcd.service /usr/bin/etcd /usr/bin/etcdctl"
            + " /usr/lib/etcd-release /etc/ssl/etcd /tmp/handmade-member.sh; systemctl daemon-reload";
    static Path caDir;
    static String caPem;

    @BeforeAll
    static void hosts() throws IOException {
        // The cluster's own CA, made outside etcdwright (as kubeadm or etcdadm would have made it).
        caDir = Testbed.scratch("handmade-ca");
        CertificateAuthority.generate("handmade etcd CA", KeyAlgorithm.fromName("ecdsa-p256"), Duration.ofDays(3650),
                Clock.systemUTC()).writeTo(caDir);
        caPem = Files.readString(caDir.resolve("ca.crt")) + Files.readString(caDir.resolve("ca.key"));
    }

    @AfterEach
    void tearDown() {
        for (int h = 1; h <= 3; h++) {
            Testbed.sshStatus(h, CLEAN);
        }
    }

    /**
     * A hand-made etcd 3.6 cluster (the version Kubernetes 1.34+ runs) whose units still carry a 3.5
     * guide's experimental flags, which 3.6 reads with a deprecation warning and 3.7 no longer has:
     * import writes them as 3.6 spells them, so the spec is one a 3.7 upgrade can take.
     */
    @Test
    void aThreeMemberClusterOfPlainSystemdUnitsWithFlagsIsAdoptedUnderWrites() throws Exception {
        // kubeadm's external etcd layout (/etc/kubernetes/pki/etcd, CA key beside the CA), flags in the unit.
        String v36 = Testbed.newestRelease("3.6");
        Map<String, String> idsBefore = handmade("kubeadm", 3, v36, "adopted-kubeadm", "keep",
                "--experimental-initial-corrupt-check=true --experimental-compaction-batch-limit=500"
                        + " --experimental-watch-progress-notify-interval=10m");

        Path spec = HOSTS.home().resolve("kubeadm.yaml");
        Cli.Run imported = importCluster(spec);
        assertEquals(0, imported.exitCode(), imported.all());
        String written = Files.readString(spec);
        assertTrue(written.contains("name: adopted-kubeadm"), written);
        assertTrue(written.contains("dataDir: /var/lib/etcd\n"), written);
        assertTrue(written.contains("version: " + v36), written);
        assertTrue(written.contains("metrics: 2381"), written);
        assertTrue(written.contains("heartbeat-interval: 100") && written.contains("snapshot-count: 10000"), written);
        assertTrue(written.contains("compaction-batch-limit: 500") && written.contains("feature-gates: InitialCorruptCheck=true")
                && written.contains("watch-progress-notify-interval: 10m") && !written.contains("experimental-"), written);
        assertTrue(written.contains("hosts:\n  - h1\n  - h2\n  - h3\n"), written);
        assertTrue(imported.err().contains("note: the CA key is on host h1 (/etc/kubernetes/pki/etcd/ca.key)"), imported.all());
        caImported("adopted-kubeadm", imported);

        checkPlanTouchesNoDataAndRollsOneAtATime(spec, 3);

        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("adopt-kubeadm.acks"))) {
            load.awaitMore(200, Duration.ofSeconds(60));
            long started = System.nanoTime();
            applied(spec);
            System.out.println("[adopt kubeadm] apply took " + (System.nanoTime() - started) / 1_000_000 + " ms");
            load.awaitMore(100, Duration.ofSeconds(30));
            WriteLoad.Report report = WriteLoad.checkNothingLost(env, load.stop(), "adopt a plain systemd cluster", 3);
            System.out.println("[adopt kubeadm] " + report);
        }
        convergedKeepingData(spec, 3, idsBefore, "/var/lib/etcd");
    }

    @Test
    void anEtcdadmMemberWithItsEnvironmentFileIsAdopted() throws Exception {
        // etcdadm's layout: /etc/etcd/etcd.env, /opt/bin/etcd, /etc/etcd/pki (where etcdwright's certificates go too), 3.4.
        Map<String, String> idsBefore = handmade("etcdadm", 1, "3.4.23", "etcdadm-7d3f1a");
        Path spec = HOSTS.home().resolve("etcdadm.yaml");
        Cli.Run imported = importCluster(spec, "--limit", "h1", "-o", "json");
        assertEquals(0, imported.exitCode(), imported.all());
        JsonNode doc = new ObjectMapper().readTree(imported.out());
        assertTrue(doc.get("imported").asBoolean(), imported.out());
        assertEquals(List.of("h1"), List.of(doc.get("members").get(0).asText()));
        assertTrue(doc.get("notes").toString().contains("/etc/etcd/pki/ca.key"), imported.out());
        String written = Files.readString(spec);
        assertEquals(written, doc.get("spec").asText());
        assertTrue(written.contains("name: etcdadm-7d3f1a") && written.contains("version: 3.4.23"), written);
        caImported("etcdadm-7d3f1a", imported);
        checkPlanTouchesNoDataAndRollsOneAtATime(spec, 1);
        applied(spec);
        convergedKeepingData(spec, 1, idsBefore, "/var/lib/etcd");
    }

    @Test
    void aPackagedClusterWithItsCaKeyOffTheHostsIsAdopted() throws Exception {
        // A distribution package's layout: /lib/systemd/system/etcd.service (User=etcd, %H and %p specifiers,
        // $DAEMON_ARGS), /etc/default/etcd with quoted values, /usr/bin/etcd, data in /var/lib/etcd/default.
        Map<String, String> idsBefore = handmade("package", 3, "3.5.16", "Etcd Cluster");
        Path spec = HOSTS.home().resolve("package.yaml");

        // Refused, nothing written: the token is no cluster name.
        Cli.Run noName = importCluster(spec);
        assertEquals(1, noName.exitCode(), noName.all());
        assertTrue(noName.err().contains("give one with --name NAME"), noName.all());
        assertFalse(Files.exists(spec));
        // No CA key on any host and none given: imported trust-only (here only read; the keyed import below is applied).
        Cli.Run noKey = importCluster(HOSTS.home().resolve("package-trust-only.yaml"), "--name", "packaged-trust-only");
        assertEquals(0, noKey.exitCode(), noKey.all());
        assertTrue(noKey.err().contains("the cluster is operated trust-only"), noKey.all());

        Cli.Run imported = importCluster(spec, "--name", "packaged", "--ca-key", caDir.resolve("ca.key").toString());
        assertEquals(0, imported.exitCode(), imported.all());
        String written = Files.readString(spec);
        assertTrue(written.contains("dataDir: /var/lib/etcd/default"), written);
        assertTrue(written.contains("election-timeout: 1000"), written);
        caImported("packaged", imported);
        checkPlanTouchesNoDataAndRollsOneAtATime(spec, 3);
        applied(spec);
        convergedKeepingData(spec, 3, idsBefore, "/var/lib/etcd/default");
    }

    @Test
    void aClusterWhoseCaKeyIsKeptElsewhereIsAdoptedTrustOnly() throws Exception {
        // kubeadm's layout with the CA key removed from every host, and no --ca-key: etcdwright issues nothing.
        Map<String, String> idsBefore = handmade("kubeadm", 3, "3.5.16", "trust-only", "no-ca-key");
        Path spec = HOSTS.home().resolve("trust-only.yaml");
        Cli.Run imported = importCluster(spec, "-o", "json");
        assertEquals(0, imported.exitCode(), imported.all());
        JsonNode doc = new ObjectMapper().readTree(imported.out());
        assertTrue(doc.get("trust_only").asBoolean(), imported.out());
        assertTrue(doc.get("notes").toString().contains("operated trust-only (no CA key)"), imported.out());
        assertTrue(doc.get("notes").toString().contains("h1:/etc/kubernetes/pki/etcd/healthcheck-client.crt"), imported.out());
        Path pki = HOSTS.home().resolve("clusters/trust-only/pki");
        String written = Files.readString(spec);
        assertTrue(written.contains("    ca:\n      cert: " + pki.resolve("ca.crt") + "\n    fromHosts:\n      server:\n"
                + "        cert: /etc/kubernetes/pki/etcd/server.crt\n        key: /etc/kubernetes/pki/etcd/server.key\n"), written);
        assertTrue(written.contains("      healthcheck-client:\n        cert: /etc/kubernetes/pki/etcd/healthcheck-client.crt\n"),
                written);
        assertFalse(Files.exists(pki.resolve("ca.key")), "no CA key on the workstation");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.resolve("clients/admin.key"))));
        String hostKey = Testbed.ssh(1, "grep -v -- ----- /etc/kubernetes/pki/etcd/healthcheck-client.key | tr -d '\\n'");
        assertFalse(imported.all().replace("\\n", "").replace("\n", "").contains(hostKey.substring(0, 40)),
                "the client key was printed");

        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertTrue(plan.all().contains("trust-only (a CA certificate without its key)"), plan.all());
        checkPlanTouchesNoDataAndRollsOneAtATime(spec, 3);
        applied(spec);
        convergedKeepingData(spec, 3, idsBefore, "/var/lib/etcd");
        for (int h = 1; h <= 3; h++) {
            // The member's own pairs, copied on the host: same bytes, the key the etcd user's alone.
            assertEquals("600 etcd etcd", Testbed.ssh(h, "cmp /etc/kubernetes/pki/etcd/server.key /etc/etcd/pki/server.key"
                    + " && cmp /etc/kubernetes/pki/etcd/peer.crt /etc/etcd/pki/peer.crt && stat -c '%a %U %G'"
                    + " /etc/etcd/pki/server.key").strip(), "h" + h);
        }

        // Certificates due for renewal (renewBeforeDays as long as their 365 days of validity) need issuing: refused, saying which.
        Path due = HOSTS.home().resolve("trust-only-due.yaml");
        Files.writeString(due, written.replace("  pki:\n", "  pki:\n    validityDays: 400\n    renewBeforeDays: 365\n"));
        Cli.Run refused = Cli.run("plan", "-i", INV, "-f", due.toString(), "-o", "json");
        assertEquals(1, refused.exitCode(), refused.all());
        JsonNode refusals = new ObjectMapper().readTree(refused.out()).get("refusals");
        assertEquals(4, refusals.size(), refused.out());
        assertTrue(refusals.toString().contains("server (/etc/etcd/pki/server.crt): expires in 364 days (renews 365 days before"
                + " expiry)"), refused.out());
        assertTrue(refusals.toString().contains("give the CA key (tls.pki.ca.key)"), refused.out());
    }

    @Test
    void aPlainHttpClusterIsAdoptedAsPlaintextUnderWrites() throws Exception {
        // No TLS anywhere: http:// on clients and peers, no CA to import.
        Map<String, String> idsBefore = handmade("plain", 3, "3.5.16", "plain-http");
        Path spec = HOSTS.home().resolve("plain.yaml");
        Cli.Run imported = importCluster(spec);
        assertEquals(0, imported.exitCode(), imported.all());
        String written = Files.readString(spec);
        assertTrue(written.contains("tls:\n  transport:\n    clients: plaintext\n    peers: plaintext\n"), written);
        assertTrue(imported.err().contains("note: clients speak plain HTTP") && imported.err().contains("note: no CA to import"),
                imported.all());
        assertFalse(imported.err().contains("CA imported"), imported.all());

        checkPlanTouchesNoDataAndRollsOneAtATime(spec, 3);
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        assertTrue(env.get("ETCDCTL_ENDPOINTS").startsWith("http://"), env.toString());
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("adopt-plain.acks"))) {
            load.awaitMore(200, Duration.ofSeconds(60));
            applied(spec);
            load.awaitMore(100, Duration.ofSeconds(30));
            WriteLoad.Report report = WriteLoad.checkNothingLost(env, load.stop(), "adopt a plain-HTTP cluster", 3);
            System.out.println("[adopt plain] " + report);
        }
        convergedKeepingData(spec, 3, idsBefore, "/var/lib/etcd", null);

        // What the operator does next: mutual-tls in the spec plans the live move (its rounds), not a refusal.
        Path tls = HOSTS.home().resolve("plain-to-tls.yaml");
        Files.writeString(tls, written.replace("clients: plaintext", "clients: mutual-tls").replace("peers: plaintext",
                "peers: mutual-tls"));
        Cli.Run move = Cli.run("plan", "-i", INV, "-f", tls.toString(), "-o", "json");
        assertEquals(0, move.exitCode(), move.all());
        JsonNode moveDoc = new ObjectMapper().readTree(move.out());
        assertEquals(0, moveDoc.get("refusals").size(), move.out());
        assertTrue(move.out().contains("transport-round-3"), move.out());
    }

    private static void applied(Path spec) {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
    }

    private static Cli.Run importCluster(Path spec, String... more) {
        List<String> args = Cli.args("import", "-i", INV, "--out", spec.toString(),
                "--artifacts-url", Testbed.releaseServer() + "v{version}/etcd-v{version}-linux-{arch}.tar.gz",
                "--checksums-url", Testbed.releaseServer() + "v{version}/SHA256SUMS");
        args.addAll(List.of(more));
        return Cli.run(args);
    }

    /** The CA is in the workstation's PKI directory, its key 0600, and no output shows the key. */
    private static void caImported(String cluster, Cli.Run imported) throws IOException {
        Path pki = HOSTS.home().resolve("clusters").resolve(cluster).resolve("pki");
        assertEquals(Files.readString(caDir.resolve("ca.crt")).strip(), Files.readString(pki.resolve("ca.crt")).strip());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.resolve("ca.key"))));
        String keyBody = Files.readString(caDir.resolve("ca.key")).lines().filter(l -> !l.startsWith("-----"))
                .collect(Collectors.joining());
        assertFalse(imported.all().replace("\n", "").contains(keyBody.substring(0, 40)), "the CA key was printed");
    }

    /**
     * The plan right after import: no step on data or membership, nothing deleted, nothing stopped
     * or started; one restart per member, each after the one before it, each waiting for a write
     * through its member.
     */
    private static void checkPlanTouchesNoDataAndRollsOneAtATime(Path spec, int members) throws IOException {
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "-o", "json");
        assertEquals(0, plan.exitCode(), plan.all());
        JsonNode doc = new ObjectMapper().readTree(plan.out());
        assertEquals(0, doc.get("refusals").size(), plan.out());
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        List<String> restarts = new ArrayList<>();
        for (JsonNode step : doc.get("steps")) {
            String id = step.get("id").asText();
            byId.put(id, step);
            String module = step.get("module").asText();
            assertFalse(step.get("kind").asText().equals("DELETE"), "deletes: " + step);
            assertFalse(module.equals("data") || module.equals("membership") && !id.endsWith("healthy") || module.equals("restore")
                    || module.equals("backup"), "touches data or membership: " + step);
            if (module.equals("service") && step.get("kind").asText().equals("ACTION")) {
                assertTrue(id.endsWith("/restart"), "only restarts, never a stop or start: " + step);
                restarts.add(id);
            }
        }
        assertEquals(members, restarts.size(), plan.out());
        for (int i = 1; i < restarts.size(); i++) {
            assertTrue(reachable(byId, restarts.get(i)).contains(restarts.get(i - 1)),
                    restarts.get(i) + " does not wait for " + restarts.get(i - 1) + ": " + plan.out());
        }
        for (String r : restarts) {
            String ready = byId.get(r).get("ready_when").toString();
            assertTrue(ready.contains("a write commits through"), r + ": " + ready);
        }
    }

    private static Set<String> reachable(Map<String, JsonNode> byId, String from) {
        Set<String> seen = new HashSet<>();
        List<String> todo = new ArrayList<>(List.of(from));
        while (!todo.isEmpty()) {
            for (JsonNode after : byId.get(todo.remove(0)).get("after")) {
                if (seen.add(after.asText())) {
                    todo.add(after.asText());
                }
            }
        }
        return seen;
    }

    /** Healthy, etcdwright's unit and user on every member, same member ids, data where it was, the next plan empty. */
    private static void convergedKeepingData(Path spec, int members, Map<String, String> idsBefore, String dataDir) {
        convergedKeepingData(spec, members, idsBefore, dataDir, "/etc/etcd/pki");
    }

    /** As above, etcdctl on the hosts using etcdwright's layout's certificates in {@code pki} (null: plain HTTP). */
    private static void convergedKeepingData(Path spec, int members, Map<String, String> idsBefore, String dataDir, String pki) {
        Cli.Run status = Cli.run("status", "-i", INV, "-f", spec.toString());
        assertEquals(0, status.exitCode(), status.all());
        assertEquals(idsBefore, memberIds(1, pki, "/usr/local/bin/etcdctl"));
        for (int h = 1; h <= members; h++) {
            assertEquals("etcd /opt/etcd/", Testbed.ssh(h, "ps -o user=,cmd= -C etcd").strip().replaceAll("\\s+", " ")
                    .substring(0, 15), "h" + h);
            assertEquals(0, Testbed.sshStatus(h, "test -d " + dataDir + "/member/wal && grep -qx 'data-dir: " + dataDir
                    + "' /etc/etcd/etcd.conf.yml"), "h" + h);
        }
        assertEquals("by-hand", get(1, pki, "written-before-import"));
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
    }

    /**
     * The layout made by hand on hosts 1..n, started, awaited healthy, a key written through it;
     * its member ids by name.
     */
    private static Map<String, String> handmade(String layout, int members, String version, String token) throws IOException {
        return handmade(layout, members, version, token, "keep");
    }

    /** As above; {@code caKey} "no-ca-key" removes the CA key from the hosts once the leaves are signed. */
    private static Map<String, String> handmade(String layout, int members, String version, String token, String caKey)
            throws IOException {
        return handmade(layout, members, version, token, caKey, "");
    }

    /** As above, with more flags in a kubeadm layout's unit (test constants, no quotes). */
    private static Map<String, String> handmade(String layout, int members, String version, String token, String caKey,
                                                String extraFlags) throws IOException {
        String script;
        try (InputStream in = AdoptIT.class.getResourceAsStream("/adopt/handmade-member.sh")) {
            script = Base64.getEncoder().encodeToString(in.readAllBytes());
        }
        String pem = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.UTF_8));
        List<String> initial = new ArrayList<>();
        for (int h = 1; h <= members; h++) {
            initial.add("h" + h + "=" + (layout.equals("plain") ? "http" : "https") + "://" + Testbed.address(h) + ":2380");
        }
        String url = Testbed.releaseServer() + "v" + version + "/etcd-v" + version + "-linux-amd64.tar.gz";
        for (int h = 1; h <= members; h++) {
            Testbed.ssh(h, "echo " + script + " | base64 -d >/tmp/handmade-member.sh && echo " + pem + " | base64 -d"
                    + " | EXTRA_FLAGS='" + extraFlags + "' sh /tmp/handmade-member.sh " + layout + " h" + h + " " + Testbed.address(h) + " "
                    + String.join(",", initial) + " " + url + " " + version + " '" + token + "' " + caKey);
        }
        String pki = Map.of("kubeadm", "/etc/kubernetes/pki/etcd", "etcdadm", "/etc/etcd/pki", "package", "/etc/ssl/etcd").get(layout);
        String etcdctl = Map.of("kubeadm", "/usr/local/bin/etcdctl", "etcdadm", "/opt/bin/etcdctl", "package", "/usr/bin/etcdctl",
                "plain", "/usr/local/bin/etcdctl").get(layout);
        // Members of a new cluster answer once they all run: wait for a linearizable read (not a timing assumption).
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (Testbed.sshStatus(1, etcdctl(pki, etcdctl) + " endpoint health") != 0) {
            assertTrue(System.nanoTime() < deadline, "the hand-made " + layout + " cluster did not become healthy");
        }
        Testbed.ssh(1, etcdctl(pki, etcdctl) + " put written-before-import by-hand");
        return memberIds(1, pki, etcdctl);
    }

    /** etcdctl on a member host: over TLS with the certificates in {@code pki}, or plain HTTP when it is null. */
    private static String etcdctl(String pki, String etcdctl) {
        if (pki == null) {
            return "ETCDCTL_API=3 " + etcdctl + " --endpoints=http://127.0.0.1:2379 --command-timeout=5s";
        }
        return "ETCDCTL_API=3 " + etcdctl + " --endpoints=https://127.0.0.1:2379 --cacert=" + pki + "/ca.crt --cert=" + pki
                + "/healthcheck-client.crt --key=" + pki + "/healthcheck-client.key --command-timeout=5s";
    }

    private static String get(int host, String pki, String key) {
        return Testbed.ssh(host, etcdctl(pki, "/usr/local/bin/etcdctl") + " get --print-value-only " + key).strip();
    }

    /** member name -> id, as the cluster lists them. */
    private static Map<String, String> memberIds(int host, String pki, String etcdctl) {
        Map<String, String> ids = new java.util.TreeMap<>();
        for (String line : Testbed.ssh(host, etcdctl(pki, etcdctl) + " member list").split("\n")) {
            String[] f = line.split(",\\s*");
            if (f.length >= 3) {
                ids.put(f[2], f[0]);
            }
        }
        return ids;
    }
}
