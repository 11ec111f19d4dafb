package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CA of a running 3-member cluster replaced under continuous writes (issue 12): the spec raises
 * tls.pki.caGeneration and three applies do the three phases (trust both, reissue, drop the old
 * CA), the first killed (SIGKILL) right after a member restarted and resumed by the next. Writers
 * run throughout, each phase's writers started with what client-env prints at that point (the
 * bundle, then the new admin certificate) before the previous ones stop, so some writer always
 * writes; a client of the old admin certificate connects anew again and again during phase 2 and is
 * never refused. At the end an independent etcdctl with the new CA's admin certificate is served,
 * the old admin certificate is refused by every member, every acknowledged write is present and
 * the members' stores hash the same; the next apply changes nothing.
 */
class CaRotationIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static Etcdctl etcdctl;

    @BeforeAll
    static void hosts() {
        etcdctl = Etcdctl.unpack(Testbed.scratch("rotation-etcdctl"), Testbed.newestRelease("3.6"));
    }

    @AfterAll
    static void cleanUp() {
        Testbed.removeEtcd(3);
    }

    @Test
    void theCaIsReplacedUnderWritesPhaseByPhaseAndAKilledApplyResumes() throws Exception {
        // On etcd 3.6 as the example for it writes it (feature gates; the 3.5 path is rotated by KilledAnywhereCaRotationIT).
        String base = Testbed.example("three-node-36.yaml").replace("name: three36", "name: rotation")
                .replace("version: 3.6.16", "version: " + Testbed.newestRelease("3.6"));
        Path spec = HOSTS.home().resolve("rotation.yaml");
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        Map<String, String> before = clientEnv(spec);
        Path pki = HOSTS.home().resolve("clusters/rotation/pki");
        assertEquals(pki.resolve("ca.crt").toString(), before.get("ETCDCTL_CACERT"));
        // The old CA's admin, as a client that was given it keeps it.
        Path old = Testbed.scratch("old-admin");
        Files.copy(pki.resolve("clients/admin.crt"), old.resolve("admin.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(pki.resolve("clients/admin.key"), old.resolve("admin.key"), StandardCopyOption.REPLACE_EXISTING);
        String oldCa = Files.readString(pki.resolve("ca.crt"));

        Files.writeString(spec, base + "    caGeneration: 2\n");
        assertEquals("pending", status(spec).path("ca_rotation").path("phase").asText());

        // Phase 1, killed right after the first member restarted with the bundle, then resumed.
        WriteLoad phase1 = WriteLoad.startRecorded(before, 4, LOGS.resolve("ca-rotation-phase1.acks"));
        phase1.awaitMore(100, Duration.ofSeconds(30));
        String killed;
        try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
            killed = apply.killAfter(Pattern.compile(Pattern.quote("restart etcd: changed")), Duration.ofMinutes(5));
        }
        assertTrue(killed.contains("trust the old and the new CA"), killed);
        assertFalse(killed.contains("RECAP"), "the first apply must not have finished: " + killed);
        assertEquals(2, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode(),
                "phase 1 is left to finish");
        Cli.Run resumed = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, resumed.exitCode(), resumed.all());
        int restartedOnResume = count(resumed.out(), "restart etcd: changed");
        assertTrue(restartedOnResume >= 1 && restartedOnResume <= 2,
                "the member restarted before the kill is not restarted again: " + resumed.out());
        assertFalse(resumed.out().contains("generate CA generation"), "the new CA is made once: " + resumed.out());
        assertTrue(resumed.out().contains("CA rotation 1/3 done: every member trusts the new CA: ok"), resumed.out());
        assertTrue(resumed.all().contains("CA rotation phase 1/3"), "the plan says what to do before phase 2: " + resumed.all());
        assertEquals("reissue", status(spec).path("ca_rotation").path("phase").asText());

        // Clients move onto the bundle: client-env and kube-apiserver-flags point at it.
        Map<String, String> bundle = clientEnv(spec);
        assertEquals(pki.resolve("rotation/ca-bundle.crt").toString(), bundle.get("ETCDCTL_CACERT"));
        Cli.Run flags = Cli.run("kube-apiserver-flags", "-i", INV, "-f", spec.toString(), "--workstation-paths");
        assertTrue(flags.out().contains(pki.resolve("rotation/ca-bundle.crt").toString()), flags.all());
        WriteLoad phase2 = WriteLoad.startRecorded(bundle, 4, LOGS.resolve("ca-rotation-phase2.acks"));
        phase2.awaitMore(100, Duration.ofSeconds(30));
        WriteLoad.checkNothingLost(bundle, phase1.stop(), "ca-rotation-phase1", 3);
        phase1.close();   // its clients too: left open, they kept reconnecting to the hosts of later classes

        // Phase 2: every certificate reissued, no restart; a client of the old admin keeps connecting anew.
        Map<String, String> oldAdmin = new LinkedHashMap<>(bundle);
        oldAdmin.put("ETCDCTL_CERT", old.resolve("admin.crt").toString());
        oldAdmin.put("ETCDCTL_KEY", old.resolve("admin.key").toString());
        Reconnecting oldClient = Reconnecting.start(oldAdmin, "old-admin");
        Cli.Run reissue = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        oldClient.stop();
        assertEquals(0, reissue.exitCode(), reissue.all());
        assertEquals(0, count(reissue.out(), "restart etcd"), "phase 2 restarts nothing: " + reissue.out());
        assertTrue(reissue.out().contains("CA rotation 2/3 done: every member serves certificates of the new CA: ok"),
                reissue.out());
        assertTrue(oldClient.connections() >= 3, "the old admin's client connected during phase 2: " + oldClient);
        assertEquals(0, oldClient.failures(), "the old admin's client was never refused while members trust both: " + oldClient);
        assertEquals("drop-old", status(spec).path("ca_rotation").path("phase").asText());
        Map<String, String> fresh = clientEnv(spec);
        assertNotEquals(Files.readString(old.resolve("admin.crt")), Files.readString(Path.of(fresh.get("ETCDCTL_CERT"))),
                "the admin certificate was issued again");
        assertEquals(0, etcdctl.run(oldAdmin, "put", "/rotation/old-admin-after-phase-2", "ok").exitCode());
        assertEquals(0, etcdctl.run(fresh, "put", "/rotation/new-admin-after-phase-2", "ok").exitCode());
        WriteLoad phase3 = WriteLoad.startRecorded(fresh, 4, LOGS.resolve("ca-rotation-phase3.acks"));
        phase3.awaitMore(100, Duration.ofSeconds(30));
        WriteLoad.checkNothingLost(fresh, phase2.stop(), "ca-rotation-phase2", 3);
        phase2.close();   // its clients too: left open, they kept reconnecting to the hosts of later classes

        // Phase 3: the old CA dropped with a rolling restart; the rotation's record goes.
        Cli.Run drop = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, drop.exitCode(), drop.all());
        assertEquals(3, count(drop.out(), "restart etcd: changed"), drop.out());
        assertTrue(drop.out().contains("CA rotation done"), drop.out());
        phase3.awaitMore(100, Duration.ofSeconds(30));
        Map<String, String> after = clientEnv(spec);
        assertEquals(pki.resolve("ca.crt").toString(), after.get("ETCDCTL_CACERT"), "clients trust the new CA alone again");
        assertNotEquals(oldCa, Files.readString(pki.resolve("ca.crt")));
        assertTrue(status(spec).path("ca_rotation").isNull(), "no rotation left");
        WriteLoad.checkNothingLost(after, phase3.stop(), "ca-rotation-phase3", 3);
        phase3.close();   // its clients too: left open, they kept reconnecting to the hosts of later classes

        // An independent etcdctl: the new CA's admin is served; the old one is refused by every member.
        assertEquals(0, etcdctl.run(after, "put", "/rotation/done", "yes").exitCode());
        assertEquals(0, etcdctl.run(after, "endpoint", "health", "--cluster").exitCode());
        for (int h = 1; h <= 3; h++) {
            Map<String, String> refused = new LinkedHashMap<>(after);
            refused.put("ETCDCTL_ENDPOINTS", "https://" + Testbed.address(h) + ":2379");
            refused.put("ETCDCTL_CERT", old.resolve("admin.crt").toString());
            refused.put("ETCDCTL_KEY", old.resolve("admin.key").toString());
            Testbed.Result r = etcdctl.run(refused, "put", "/rotation/old-admin-after-phase-3", "no");
            assertNotEquals(0, r.exitCode(), "h" + h + " refuses the old CA's admin certificate: " + r.stdout() + r.stderr());
            // Refused by the member, not distrusted by the client (which trusts the member's certificate): with TLS 1.3 the
            // member rejects the client certificate after the client's side of the handshake, so etcdctl sees its alert or,
            // when it was writing at that moment, the connection the member closed (reset, or etcdctl 3.6's
            // 'write: broken pipe'); never an x509 error of its own.
            assertFalse(r.stderr().contains("x509:"), "the client trusted the member: " + r.stderr());
            assertTrue(r.stderr().contains("remote error: tls") || r.stderr().contains("connection reset by peer")
                            || r.stderr().contains("write: broken pipe"),
                    "the member refused it: " + r.stderr());
            // The same member serves the new admin: the refusal is the old certificate's.
            Map<String, String> served = new LinkedHashMap<>(after);
            served.put("ETCDCTL_ENDPOINTS", refused.get("ETCDCTL_ENDPOINTS"));
            assertEquals(0, etcdctl.run(served, "get", "/rotation/done").exitCode());
            assertEquals(0, Testbed.sshStatus(h, "grep -c BEGIN /etc/etcd/pki/ca.crt | grep -qx 1"), "h" + h + " trusts one CA");
            assertEquals(Files.readString(pki.resolve("ca.crt")), Testbed.ssh(h, "cat /etc/etcd/pki/ca.crt"));
        }
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());
        Cli.Run again = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, again.exitCode(), again.all());
        assertFalse(again.out().matches("(?s).*changed=[1-9].*"), "the next apply changes nothing: " + again.out());
    }

    private static Map<String, String> clientEnv(Path spec) {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec.toString());
        assertEquals(0, env.exitCode(), env.all());
        return Etcdctl.env(env.out());
    }

    private static JsonNode status(Path spec) throws Exception {
        Cli.Run status = Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json");
        assertEquals(0, status.exitCode(), status.all());
        return new ObjectMapper().readTree(status.out());
    }

    private static int count(String text, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** A client that connects anew for every write (etcdctl, one process each), as a short-lived client would. */
    static final class Reconnecting {
        private final AtomicBoolean stopping = new AtomicBoolean();
        private final AtomicInteger connections = new AtomicInteger();
        private final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        private final Thread thread;

        private Reconnecting(Map<String, String> env, String name) {
            thread = new Thread(() -> {
                for (int i = 0; !stopping.get(); i++) {
                    Testbed.Result r = etcdctl.run(env, "put", "/rotation/" + name + "/" + i, "x");
                    connections.incrementAndGet();
                    if (r.exitCode() != 0) {
                        failures.add(i + ": " + r.stderr().strip());
                    }
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "reconnecting-" + name);
            thread.setDaemon(true);
        }

        static Reconnecting start(Map<String, String> env, String name) {
            Reconnecting c = new Reconnecting(env, name);
            c.thread.start();
            return c;
        }

        void stop() throws InterruptedException {
            stopping.set(true);
            thread.join(Duration.ofSeconds(30).toMillis());
        }

        int connections() {
            return connections.get();
        }

        int failures() {
            return failures.size();
        }

        @Override
        public String toString() {
            return connections.get() + " connections, failures " + failures;
        }
    }
}
