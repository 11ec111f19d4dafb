package io.etcdwright.it;

import io.etcd.jetcd.Client;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.run.Pkis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kube-apiserver harness proved without test hosts: one etcd 3.6 member on loopback with
 * mutual TLS (certificates issued by etcdwright's own PKI code, as apply issues them), a real
 * kube-apiserver started with exactly the flags {@code etcdwright kube-apiserver-flags
 * --workstation-paths} prints, and a {@link ConfigMapLoad} through it for about ten seconds while
 * etcd is restarted once. Nothing acknowledged may be lost (by a LIST and key by key in etcd), the
 * watch must see every acknowledged create, and the numbers must say what happened: creates
 * stalled and /readyz failed for about as long as etcd was down. Then one ConfigMap is deleted in
 * etcd behind the API server's back, and both checks must report exactly it, also after
 * kube-apiserver restarted (so its check is against etcd, not only its watch cache).
 */
class KubeApiServerHarnessIT {
    private static final Duration ETCD_DOWN = Duration.ofSeconds(3);
    /** How soon after etcd serves again kube-apiserver must acknowledge creates and be ready: its etcd client's reconnect backoff grows with the outage. */
    private static final Duration RECOVERY = Duration.ofSeconds(20);
    private static final String NAMESPACE = "etcdwright-load";
    private static Path work;

    @BeforeAll
    static void workstation() throws IOException {
        work = Files.createTempDirectory("kube-apiserver-harness");
        System.setProperty("etcdwright.home", work.resolve("home").toString());
    }

    @AfterAll
    static void forget() throws IOException {
        System.clearProperty("etcdwright.home");
        // Not Testbed.deleteTree: this class needs no testbed, so it leaves testbed/testbed alone.
        try (var all = Files.walk(work)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void kubeApiServerOnEtcdwrightsFlagsLosesNoAcknowledgedCreateAcrossAnEtcdRestart() throws Exception {
        Path tarball = LocalEtcd.newestTarball("3.6");
        int[] ports = freePorts(2);
        int clientPort = ports[0];
        int peerPort = ports[1];
        Path inventory = Files.writeString(work.resolve("hosts.yaml"), "all:\n  hosts:\n    h1: {ansible_host: 127.0.0.1}\n");
        Path spec = Files.writeString(work.resolve("spec.yaml"), "cluster: {name: kube-apiserver-harness}\n"
                + "etcd: {version: " + LocalEtcd.version(tarball) + ", ports: {client: " + clientPort + ", peer: " + peerPort + "}}\n"
                + "members: {hosts: [h1]}\n"
                + "tls: {transport: {clients: mutual-tls, peers: plaintext}}\n");

        // The certificates apply would issue: the member's server pair, kube-apiserver's client pair, the admin's.
        DesiredState desired = DesiredStateLoader.load(inventory, spec);
        ClusterPki pki = Pkis.of(desired);
        Member member = desired.members().get(0);
        ClusterPki.MemberIdentity identity = new ClusterPki.MemberIdentity(member.name(), member.host().name(), member.address());
        ClusterPki.LocalPair server = pki.memberPair(identity, HostCertificates.SERVER);
        pki.ensure(server, pki.memberRequest(identity, HostCertificates.SERVER));
        pki.ensure(pki.clientPair(HostCertificates.APISERVER), pki.clientRequest(HostCertificates.APISERVER));
        pki.ensure(pki.accessPair(), pki.clientRequest(HostCertificates.ADMIN));

        Cli.Run printed = Cli.run("kube-apiserver-flags", "-i", inventory.toString(), "-f", spec.toString(), "--workstation-paths");
        assertEquals(0, printed.exitCode(), printed.all());
        List<String> etcdFlags = KubeApiServer.etcdFlags(printed.out());
        assertEquals(List.of("--etcd-servers=https://127.0.0.1:" + clientPort,
                "--etcd-cafile=" + pki.trustedCaFile().toAbsolutePath(),
                "--etcd-certfile=" + pki.clientPair(HostCertificates.APISERVER).cert().toAbsolutePath(),
                "--etcd-keyfile=" + pki.clientPair(HostCertificates.APISERVER).key().toAbsolutePath()), etcdFlags);

        Map<String, String> admin = Map.of("ETCDCTL_CACERT", pki.trustedCaFile().toString(),
                "ETCDCTL_CERT", pki.accessPair().cert().toString(), "ETCDCTL_KEY", pki.accessPair().key().toString());
        try (LocalEtcd etcd = LocalEtcd.start(tarball, work.resolve("etcd"), KubeApiServer.LOGS.resolve("harness-etcd.log"),
                clientPort, peerPort, new LocalEtcd.Tls(server.cert(), server.key(), pki.trustedCaFile()));
             Client etcdClient = WriteLoad.client(admin, List.of(URI.create(etcd.clientUrl())));
             KubeApiServer apiServer = KubeApiServer.start("harness", etcdFlags, work)) {
            Duration startup = apiServer.awaitReady(Duration.ofMinutes(3));
            System.out.println("kube-apiserver ready in " + startup.toMillis() + " ms: " + String.join(" ", apiServer.commandLine()));
            EtcdConfigMaps inEtcd = new EtcdConfigMaps(etcdClient, apiServer.etcdPrefix());

            ConfigMapLoad.Report report;
            long outageMillis;
            try (ConfigMapLoad load = ConfigMapLoad.start(apiServer.api(), NAMESPACE, 4,
                    KubeApiServer.LOGS.resolve("harness-load.log"))) {
                load.awaitMore(50, Duration.ofSeconds(60));
                Thread.sleep(2_000);
                long cut = System.nanoTime();
                etcd.restart(ETCD_DOWN);
                awaitServing(etcdClient, Duration.ofSeconds(60));
                outageMillis = (System.nanoTime() - cut) / 1_000_000;
                load.awaitMore(50, Duration.ofSeconds(90));
                Thread.sleep(2_000);
                report = load.stop(inEtcd);
            }
            System.out.println("[kube-apiserver harness] etcd stopped (SIGTERM) and served again " + outageMillis + " ms later; " + report);
            assertTrue(apiServer.alive(), "kube-apiserver died:\n" + apiServer.logTail());
            assertTrue(report.lostNothing(), report.toString());
            assertTrue(report.checkedInEtcd(), report.toString());
            assertTrue(report.watchSawEveryAck(), report.toString());
            assertTrue(report.resourceVersionsIncreasePerWriter(), report.toString());
            // Nothing can be acknowledged while etcd is down, so no create for at least that long;
            // and kube-apiserver comes back within seconds of etcd (its gRPC reconnect backoff), not
            // after its request timeouts. /readyz likewise, and its poller ran all along.
            assertTrue(report.longestStallMillis() >= ETCD_DOWN.toMillis() - 200, report.toString());
            assertTrue(report.longestStallMillis() < outageMillis + RECOVERY.toMillis(), report.toString());
            assertTrue(report.readiness().unreadyMillis() > 0 && report.readiness().episodes() >= 1, report.toString());
            assertTrue(report.readiness().unreadyMillis() < outageMillis + RECOVERY.toMillis(), report.toString());
            assertTrue(report.readiness().polls() >= report.ranMillis() / 1_500, report.toString());

            // The checks can fail: one acknowledged create deleted in etcd behind kube-apiserver's back.
            ConfigMapLoad.Ack lost = report.acks().get(report.acks().size() / 2);
            inEtcd.deleteBehindTheApiServer(NAMESPACE, lost.name());
            assertEquals(Map.of("etcd " + lost.name(), "missing, acknowledged at resourceVersion " + lost.resourceVersion()),
                    ConfigMapLoad.problems("etcd", report.acks(), inEtcd.resourceVersions(NAMESPACE)));
            // kube-apiserver restarted on the same flags: its LIST, from a watch cache built anew from etcd,
            // finds all but that one; and a watch that follows across the restart must relist (its
            // resourceVersion is older than the new watch cache: 410 Gone) and see a create made after it.
            ConfigMapWatch across = ConfigMapWatch.start(apiServer.api(), NAMESPACE);
            assertTrue(across.awaitAll(List.of(report.acks().get(0).name()), Duration.ofSeconds(30)), "the watch did not list");
            apiServer.restart();
            apiServer.awaitReady(Duration.ofMinutes(3));
            Map<String, String> listed = apiServer.api().listConfigMaps(NAMESPACE).resourceVersions();
            assertEquals(Map.of("list " + lost.name(), "missing, acknowledged at resourceVersion " + lost.resourceVersion()),
                    ConfigMapLoad.problems("list", report.acks(), listed));
            KubeApi.Answer after = apiServer.api().createConfigMap(NAMESPACE, "after-restart", Map.of());
            assertEquals(201, after.status(), after.body());
            assertTrue(across.awaitAll(List.of("after-restart"), Duration.ofSeconds(30)), "the watch did not follow the restart");
            ConfigMapWatch.Seen seen = across.stop();
            System.out.println("[kube-apiserver harness] a watch across kube-apiserver's restart: " + seen);
            assertTrue(seen.problems().isEmpty() && seen.relists() >= 1 && seen.gone() >= 1, seen.toString());
        }
    }

    /** Waits until etcd answers a linearizable read (so it is serving and has a leader again). */
    private static void awaitServing(Client etcd, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            try {
                etcd.getKVClient().get(io.etcd.jetcd.ByteSequence.from("/", java.nio.charset.StandardCharsets.UTF_8))
                        .get(2, java.util.concurrent.TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("etcd did not serve again within " + within + ": " + e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** N ports free on loopback, all held open at once while chosen, so that they differ. */
    private static int[] freePorts(int n) throws IOException {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }
}
