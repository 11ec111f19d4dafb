package io.etcdwright.modules.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;

/**
 * {@link EtcdHttp} (what {@code status} and apply's health checks ask) against real etcd: three etcd processes with mutual TLS on clients and
 * peers ({@code --client-cert-auth --peer-client-cert-auth}), bound to 127.0.0.1 only, with
 * certificates this test makes with BouncyCastle. No mocks.
 *
 * <p><b>The etcd binary</b> (3.5.x, as the project pins 3.5.16; 3.4.x runs too) is found as {@link EtcdBinary}
 * says: system property {@code etcdwright.etcd.bin} (binary or directory), else environment
 * variable {@code ETCD_BIN}, else {@code /var/tmp/etcdwright-testbed/releases/v3.5.16} (unpacked,
 * or the release tarball, unpacked here into a temporary directory). Without one this test
 * FAILS, saying how to provide it; it never skips. For example:
 * {@code mvn -B -pl modules -am test -Detcdwright.etcd.bin=/path/to/etcd}.
 *
 * <p>The tests share one cluster and run in order, from healthy to damaged: frozen member, then a
 * learner joins, then a member is killed, then all voters but one. Every etcd started is killed in {@link #stopCluster()}
 * (and by a shutdown hook), whatever happened.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EtcdHttpTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** 'etcdwright status --timeout' by default. */
    private static final Duration STATUS_DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** What a test allows beyond the timeout for scheduling noise on a loaded 2-core machine. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    @TempDir
    static Path dir;

    private static LocalEtcdCluster cluster;
    private static String etcdVersion;
    private static Path ca;
    private static Path adminCert;
    private static Path adminKey;
    private static Path rsaCert;
    private static Path rsaKey;
    private static Path foreignCert;
    private static Path foreignKey;

    @BeforeAll
    static void startCluster() throws Exception {
        Path etcd = EtcdBinary.locate(dir);
        etcdVersion = version(etcd);

        TestPki.Issued clusterCa = TestPki.ca("etcdwright test CA");
        ca = dir.resolve("ca.crt");
        TestPki.writePem(ca, clusterCa.certificate());
        Path serverCert = dir.resolve("server.crt");
        Path serverKey = dir.resolve("server.key");
        TestPki.server(clusterCa, "etcd-member").write(serverCert, serverKey);
        adminCert = dir.resolve("admin.crt");
        adminKey = dir.resolve("admin.key");
        TestPki.client(clusterCa, "etcdwright-admin", TestPki.ecKey()).write(adminCert, adminKey);
        rsaCert = dir.resolve("admin-rsa.crt");
        rsaKey = dir.resolve("admin-rsa.key");
        TestPki.client(clusterCa, "etcdwright-admin-rsa", TestPki.rsaKey()).write(rsaCert, rsaKey);
        TestPki.Issued otherCa = TestPki.ca("some other CA");
        foreignCert = dir.resolve("foreign.crt");
        foreignKey = dir.resolve("foreign.key");
        TestPki.client(otherCa, "etcdwright-admin", TestPki.ecKey()).write(foreignCert, foreignKey);

        cluster = LocalEtcdCluster.start(etcd, etcdVersion, dir, ca, serverCert, serverKey, 3, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void threeHealthyMembersWithExactlyOneLeader() {
        ClusterStatus status = status(cluster.clientUrls(), adminCert, adminKey);

        assertEquals(3, status.members().size(), status::toString);
        assertTrue(status.quorum(), status::toString);
        assertTrue(status.clusterId().isPresent(), status::toString);
        assertTrue(status.clusterId().get().matches("[0-9a-f]+"), status::toString);
        assertEquals(1, status.members().stream().filter(MemberStatus::leader).count(), status::toString);
        List<String> names = status.members().stream().map(MemberStatus::name).sorted().collect(Collectors.toList());
        assertEquals(List.of("m1", "m2", "m3"), names);
        for (MemberStatus m : status.members()) {
            String what = m.toString();
            LocalEtcdCluster.Node node = cluster.node(m.name());
            assertTrue(m.healthy(), what);
            assertTrue(m.error().isEmpty(), what);
            assertFalse(m.learner(), what);
            assertTrue(m.id().matches("[0-9a-f]+"), what);
            assertEquals(List.of(node.clientUrl()), m.clientUrls(), what);
            assertEquals(List.of(node.peerUrl()), m.peerUrls(), what);
            assertEquals(etcdVersion, m.version().orElseThrow(), what);
            assertTrue(m.dbSizeBytes().orElseThrow() > 0, what);
            assertTrue(m.raftIndex().orElseThrow() > 0, what);
            assertTrue(m.raftTerm().orElseThrow() > 0, what);
        }
        assertTrue(status.allHealthy());
    }

    @Test
    @Order(2)
    void theHealthWaitOfApplyReturnsAtOnceOnAHealthyCluster() throws Exception {
        Health.Access access = new Health.Access(ca, adminCert, adminKey);
        assertEquals(java.util.Optional.empty(), Health.problem(access, cluster.clientUrls(), TIMEOUT));
        long t0 = System.nanoTime();
        Health.await(new Notes(), access, cluster.clientUrls(), Duration.ofSeconds(30));
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(TIMEOUT.plus(SLACK)) < 0);
        new io.etcdwright.modules.cluster.ClusterConditions.OthersHealthy(access, "m1", cluster.clientUrls().subList(1, 3), 3)
                .verify(new Notes());
    }

    /** Collects the progress notes of a step. */
    static final class Notes implements io.etcdwright.engine.plan.StepContext {
        final List<String> notes = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> waits = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> waitingOn = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public io.etcdwright.engine.plan.Progress waiting(String what) {
            waits.add(what);
            return new io.etcdwright.engine.plan.Progress() {
                @Override
                public void advanced(long bytesSoFar) {
                }

                @Override
                public void waitingOn(String reason) {
                    waitingOn.add(reason);
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public io.etcdwright.engine.ssh.HostSession session() {
            throw new UnsupportedOperationException("health needs no SSH session");
        }

        @Override
        public io.etcdwright.engine.ssh.HostSession session(String host) {
            throw new UnsupportedOperationException("health needs no SSH session");
        }

        @Override
        public void note(String message) {
            notes.add(message);
        }

        @Override
        public void output(String key, String value) {
            throw new UnsupportedOperationException("health produces no output");
        }

        @Override
        public java.util.Optional<String> outputOf(String stepId, String key) {
            return java.util.Optional.empty();
        }
    }

    @Test
    @Order(2)
    void anyOneEndpointIsEnoughToSeeAllMembers() {
        ClusterStatus status = status(List.of(cluster.node("m2").clientUrl()), adminCert, adminKey);
        assertEquals(3, status.members().size(), status::toString);
        assertEquals(3, status.healthyCount(), status::toString);
    }

    @Test
    @Order(3)
    void rsaClientKeyWorksToo() {
        ClusterStatus status = status(cluster.clientUrls(), rsaCert, rsaKey);
        assertEquals(3, status.healthyCount(), status::toString);
    }

    @Test
    @Order(4)
    void firstStatusInAFreshJvm() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        // The deadline 'etcdwright status' has by default (--timeout 5), not this class's 2 s: a cold
        // JVM's first call also loads the TLS stack, which can take seconds when other work holds
        // both cores. Proving the cold path works is this test's job;
        // how fast it is, is measured and printed below, not asserted.
        List<String> command = List.of(java.toString(), "-cp", classpath, StatusMain.class.getName(),
                String.join(",", cluster.clientUrls()), ca.toString(), adminCert.toString(), adminKey.toString(),
                Long.toString(STATUS_DEFAULT_TIMEOUT.toMillis()));
        List<Long> wall = new ArrayList<>();
        String last = "";
        for (int run = 0; run < 3; run++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), output);
            wall.add((System.nanoTime() - t0) / 1_000_000);
            assertEquals(0, p.exitValue(), output);
            assertTrue(output.contains("quorum=true healthy=3/3"), output);
            last = output;
        }
        Matcher timing = Pattern.compile("timing .*").matcher(last);
        assertTrue(timing.find(), last);
        // A figure to read, not a timed assertion: see the report in the test output.
        System.out.println("[fresh JVM] process wall times " + wall + " ms; last run: " + timing.group());
    }

    @Test
    @Order(5)
    void clientCertificateFromAnotherCaFailsClearly() {
        long t0 = System.nanoTime();
        EtcdUnreachableException e = assertThrows(EtcdUnreachableException.class,
                () -> status(cluster.clientUrls(), foreignCert, foreignKey));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        String message = e.getMessage();
        System.out.println("[foreign CA] " + message + " (after " + took.toMillis() + " ms)");
        for (String url : cluster.clientUrls()) {
            assertTrue(message.contains(url), message);
        }
        assertTrue(message.contains("TLS handshake"), message);
        assertEquals(cluster.clientUrls(), e.endpoints());
        assertTrue(took.compareTo(TIMEOUT.plus(SLACK)) < 0, "took " + took);
    }

    @Test
    @Order(6)
    void keyOfAnotherCertificateIsNamedAsSuch() throws Exception {
        Path wrongKey = dir.resolve("wrong.key");
        TestPki.writeKey(wrongKey, TestPki.ecKey().getPrivate());
        EtcdAdminException e = assertThrows(EtcdAdminException.class,
                () -> status(cluster.clientUrls(), adminCert, wrongKey));
        System.out.println("[wrong key] " + e.getMessage());
        assertEquals("client key " + wrongKey + " does not belong to the certificate " + adminCert
                + " (CN=etcdwright-admin); the servers refused the TLS handshake", e.getMessage());
    }

    @Test
    @Order(7)
    void nothingListeningFailsFastNamingTheEndpoints() throws IOException {
        List<String> endpoints = List.of("https://127.0.0.1:" + cluster.freePort(),
                "https://127.0.0.1:" + cluster.freePort());
        long t0 = System.nanoTime();
        EtcdUnreachableException e = assertThrows(EtcdUnreachableException.class,
                () -> status(endpoints, adminCert, adminKey));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        System.out.println("[refused] " + e.getMessage() + " (after " + took.toMillis() + " ms)");
        assertEquals(endpoints, e.endpoints());
        assertEquals("cannot reach etcd at any of " + String.join(", ", endpoints) + ": connection refused",
                e.getMessage());
        assertEquals("connection refused", e.failures().get(endpoints.get(1)));
        assertTrue(took.compareTo(TIMEOUT) < 0, "a refused connection should not wait for the timeout: " + took);
    }

    @Test
    @Order(8)
    void silentEndpointCostsTheTimeoutNotMore() throws IOException {
        // Accepts TCP connections and never says a word, like a hung host.
        try (ServerSocket silent = new ServerSocket()) {
            silent.bind(new InetSocketAddress(InetAddress.getByName(LocalEtcdCluster.LOOPBACK), cluster.freePort()));
            String url = "https://127.0.0.1:" + silent.getLocalPort();
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // test over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();

            Duration timeout = Duration.ofSeconds(1);
            long t0 = System.nanoTime();
            EtcdUnreachableException e = assertThrows(EtcdUnreachableException.class, () -> {
                try (EtcdHttp client = EtcdHttp.connect(List.of(url), ca, adminCert, adminKey, timeout)) {
                    client.status();
                }
            });
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            System.out.println("[silent] " + e.getMessage() + " (after " + took.toMillis() + " ms)");
            assertEquals(url + " (no answer within 1 s)", e.getMessage().replaceFirst("^[^:]*: ", ""));
            assertTrue(took.compareTo(timeout.plus(SLACK)) < 0, "took " + took);
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    @Test
    @Order(9)
    void frozenMemberIsUnhealthyAndStatusStillReturnsWithinTheTimeout() throws Exception {
        String victim = follower(status(cluster.clientUrls(), adminCert, adminKey));
        cluster.freeze(victim);
        try {
            long t0 = System.nanoTime();
            ClusterStatus status = status(cluster.clientUrls(), adminCert, adminKey);
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            System.out.println("[frozen " + victim + "] status after " + took.toMillis() + " ms: " + status);
            assertTrue(took.compareTo(TIMEOUT.plus(SLACK)) < 0, "took " + took);
            assertEquals(3, status.members().size());
            MemberStatus frozen = member(status, victim);
            assertFalse(frozen.healthy(), frozen.toString());
            assertEquals("no answer within 2 s", frozen.error().orElseThrow());
            assertTrue(frozen.version().isEmpty());
            assertEquals(2, status.healthyCount(), status::toString);
            assertTrue(status.quorum(), status::toString);
            assertEquals(1, status.members().stream().filter(MemberStatus::leader).count(), status::toString);
        } finally {
            cluster.thaw(victim);
        }
    }

    @Test
    @Order(10)
    void learnersAreListedAsSuch() throws Exception {
        // etcd 3.4 and 3.5 both serve Status on a learner (and refuse it MemberList); run this
        // class with -Detcdwright.etcd.bin=<3.4 etcd> to see 3.4 do so.
        LocalEtcdCluster.Node learner = cluster.newNode("m4");
        try (Client jetcd = Client.builder()
                .endpoints(cluster.clientUrls().stream().map(URI::create).toArray(URI[]::new))
                .sslContext(ssl -> ssl.trustManager(ca.toFile()).keyManager(adminCert.toFile(), adminKey.toFile()))
                .build()) {
            Member added = jetcd.getClusterClient().addMember(List.of(URI.create(learner.peerUrl())), true)
                    .get(10, TimeUnit.SECONDS).getMember();
            assertTrue(added.isLearner());
        }

        ClusterStatus before = status(cluster.clientUrls(), adminCert, adminKey);
        MemberStatus unstarted = before.members().stream().filter(m -> m.name().isEmpty()).findFirst().orElseThrow();
        assertTrue(unstarted.learner(), unstarted.toString());
        assertFalse(unstarted.healthy(), unstarted.toString());
        assertTrue(unstarted.error().orElseThrow().startsWith("not started yet"), unstarted.toString());

        cluster.join(learner, Duration.ofSeconds(60));
        List<String> endpoints = new ArrayList<>(cluster.clientUrls());
        ClusterStatus status = status(endpoints, adminCert, adminKey);
        System.out.println("[learner] " + status);
        assertEquals(4, status.members().size(), status::toString);
        MemberStatus m4 = member(status, "m4");
        assertTrue(m4.learner(), m4.toString());
        assertFalse(m4.leader(), m4.toString());
        assertTrue(m4.healthy(), m4.toString());
        assertEquals(etcdVersion, m4.version().orElseThrow(), m4.toString());
        // What status shows and promotion waits for: the learner's applied index against the leader's.
        assertTrue(m4.raftAppliedIndex().isPresent(), m4.toString());
        LearnerProgress progress = status.learnerProgress(m4).orElseThrow(() -> new AssertionError("no progress: " + status));
        assertEquals(m4.raftAppliedIndex().getAsLong(), progress.appliedIndex());
        assertTrue(progress.leaderRaftIndex() > 0, progress.toString());
        assertEquals(3, status.members().stream().filter(m -> !m.learner()).count());
        assertTrue(status.quorum(), status::toString);

        // Only the learner as endpoint: it serves Status, but MemberList is refused on learners.
        EtcdAdminException e = assertThrows(EtcdAdminException.class,
                () -> status(List.of(learner.clientUrl()), adminCert, adminKey));
        System.out.println("[learner only] " + e.getMessage());
        // Known as a learner by its own Status answer, not by etcd's wording of the refusal.
        assertTrue(e.getMessage().contains("answers, but only as a learner"), e.getMessage());

        // A restart's write check: a write commits through a voter; a learner forwards no client
        // writes, so none is tried through it (waiting on it would only run out the timeout).
        Health.Access access = new Health.Access(ca, adminCert, adminKey);
        Notes voter = new Notes();
        new io.etcdwright.modules.cluster.ClusterConditions.WritesCommitThrough(access, "m1", cluster.node("m1").clientUrl(),
                Duration.ofSeconds(10)).verify(voter);
        assertTrue(voter.notes.get(0).startsWith("a write committed through m1 in "), voter.notes.toString());
        Notes asLearner = new Notes();
        long t0 = System.nanoTime();
        new io.etcdwright.modules.cluster.ClusterConditions.WritesCommitThrough(access, "m4", learner.clientUrl(),
                Duration.ofSeconds(10)).verify(asLearner);
        assertEquals(List.of("m4 is a learner: it forwards no writes, so none is tried through it"), asLearner.notes);
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).compareTo(Duration.ofSeconds(5)) < 0, "not waited out");
    }

    @Test
    @Order(11)
    void killedMemberIsUnhealthyAndStatusStillReturnsWithinTheTimeout() throws Exception {
        List<String> endpoints = cluster.clientUrls();
        String victim = follower(status(endpoints, adminCert, adminKey));
        cluster.kill(victim);

        long t0 = System.nanoTime();
        ClusterStatus status = status(endpoints, adminCert, adminKey);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        System.out.println("[killed " + victim + "] status after " + took.toMillis() + " ms: " + status);
        assertTrue(took.compareTo(TIMEOUT) < 0, "took " + took);
        MemberStatus dead = member(status, victim);
        assertFalse(dead.healthy(), dead.toString());
        assertEquals("connection refused", dead.error().orElseThrow());
        assertTrue(dead.version().isEmpty() && dead.dbSizeBytes().isEmpty() && dead.raftIndex().isEmpty());
        assertEquals(status.members().size() - 1, status.healthyCount(), status::toString);
        assertTrue(status.quorum(), status::toString);
        assertEquals(1, status.members().stream().filter(MemberStatus::leader).count(), status::toString);
        assertFalse(status.allHealthy());

        // apply's health wait: it names the member that is down, notes progress, and gives up at its deadline.
        Health.Access access = new Health.Access(ca, adminCert, adminKey);
        Notes notes = new Notes();
        long t0h = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Health.await(notes, access, endpoints, Duration.ofSeconds(3)));
        Duration waited = Duration.ofNanos(System.nanoTime() - t0h);
        assertTrue(waited.compareTo(Duration.ofSeconds(3)) >= 0 && waited.compareTo(Duration.ofSeconds(3).plus(Health.ATTEMPT_TIMEOUT)
                .plus(SLACK)) < 0, "waited " + waited);
        assertTrue(e.getMessage().contains("did not become healthy within 3 s")
                && e.getMessage().contains(cluster.node(victim).clientUrl())
                && e.getMessage().contains("connection refused")
                && e.getMessage().contains("journalctl -u etcd.service"), e.getMessage());
        assertEquals(List.of(endpoints.size() + " member(s) to report healthy"), notes.waits, "the wait is shown while it runs");
        assertFalse(notes.waitingOn.isEmpty(), "what it waits on is shown");
        assertTrue(notes.waitingOn.get(0).contains(cluster.node(victim).clientUrl()), notes.waitingOn.toString());
        // A restart of another member is refused while this one is down.
        String leaderUrl = status.leader().orElseThrow().clientUrls().get(0);
        List<String> others = endpoints.stream().filter(u -> !u.equals(leaderUrl)).toList();
        io.etcdwright.engine.plan.ConditionNotMetException refused = assertThrows(io.etcdwright.engine.plan.ConditionNotMetException.class,
                () -> new io.etcdwright.modules.cluster.ClusterConditions.OthersHealthy(access, "x", others, endpoints.size())
                        .verify(notes));
        assertTrue(refused.getMessage().startsWith("not restarting x")
                && refused.getMessage().contains(cluster.node(victim).clientUrl()),
                refused.getMessage());
    }

    @Test
    @Order(12)
    void withoutQuorumStatusSaysSoWithinTheTimeout() throws Exception {
        List<String> endpoints = cluster.clientUrls();
        ClusterStatus before = status(endpoints, adminCert, adminKey);
        // Kill voters until one is left: no quorum, yet the survivors still answer Status.
        List<String> voters = before.members().stream()
                .filter(m -> m.healthy() && !m.learner()).map(MemberStatus::name).collect(Collectors.toList());
        for (String name : voters.subList(1, voters.size())) {
            cluster.kill(name);
        }

        long t0 = System.nanoTime();
        ClusterStatus status = status(endpoints, adminCert, adminKey);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        System.out.println("[no quorum] status after " + took.toMillis() + " ms: " + status);
        assertFalse(status.quorum(), status::toString);
        assertTrue(member(status, voters.get(0)).healthy(), status::toString);
        assertTrue(took.compareTo(TIMEOUT.plus(SLACK)) < 0, "took " + took);
    }

    // ---- helpers ----

    private static ClusterStatus status(List<String> endpoints, Path cert, Path key) {
        try (EtcdHttp client = EtcdHttp.connect(endpoints, ca, cert, key, TIMEOUT)) {
            return client.status();
        }
    }

    private static MemberStatus member(ClusterStatus status, String name) {
        return status.members().stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no member " + name + " in " + status));
    }

    /** A healthy voting member that is not the leader. */
    private static String follower(ClusterStatus status) {
        return status.members().stream()
                .filter(m -> m.healthy() && !m.leader() && !m.learner())
                .map(MemberStatus::name)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no healthy follower in " + status));
    }

    static String version(Path etcd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(etcd.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "etcd --version hangs");
        Matcher m = Pattern.compile("etcd Version: (\\S+)").matcher(out);
        assertTrue(m.find(), "cannot read the version from " + etcd + " --version: " + out);
        assertTrue(m.group(1).startsWith("3.5.") || m.group(1).startsWith("3.4."),
                "these tests expect etcd 3.5.x (or 3.4.x), " + etcd + " is " + m.group(1));
        return m.group(1);
    }
}
