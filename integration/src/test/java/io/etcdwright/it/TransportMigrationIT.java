package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster etcdwright created with plain HTTP for clients and peers moves to mutual TLS under
 * continuous writes: the writers start on http:// and go on over https:// once a write fails on
 * http:// (as a client that knows both would); the apply is killed in the middle of the round that
 * moves peer URLs and the next one resumes it. At the end every acknowledged write is on every
 * member, an independent etcdctl is served over https:// with the admin certificate and refused
 * over http:// and without a client certificate, and the next plan has nothing to do.
 */
class TransportMigrationIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static Etcdctl etcdctl;

    @BeforeAll
    static void hosts() {
        etcdctl = Etcdctl.unpack(Testbed.scratch("transport-etcdctl"), Testbed.newestRelease("3.7"));
    }

    @AfterAll
    static void cleanUp() {
        Testbed.removeEtcd(3);
    }

    @Test
    void aPlaintextClusterMovesToMutualTlsUnderWritesAndAnInterruptedMoveResumes() throws Exception {
        // On etcd 3.7: the move does not depend on the release, and this proves it on the newest.
        String tls = Testbed.example("three-node.yaml").replace("name: three", "name: plain")
                .replace("version: 3.5.16", "version: " + Testbed.newestRelease("3.7"));
        assertTrue(tls.contains("\ntls:\n"), tls);
        String plaintext = tls.replace("\ntls:\n", "\ntls:\n  transport:\n    clients: plaintext\n    peers: plaintext\n");
        Path spec = HOSTS.home().resolve("plain.yaml");
        Files.writeString(spec, plaintext);

        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        assertTrue(create.all().contains("tls.transport.clients: plaintext: anyone who reaches the client port"), create.all());
        Map<String, String> plainEnv = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        assertTrue(plainEnv.get("ETCDCTL_ENDPOINTS").startsWith("http://"), plainEnv.toString());
        assertFalse(plainEnv.containsKey("ETCDCTL_CERT"), plainEnv.toString());
        assertEquals(0, etcdctl.run(plainEnv, "endpoint", "health", "--cluster").exitCode());
        for (int h = 1; h <= 3; h++) {
            String config = Testbed.ssh(h, "cat /etc/etcd/etcd.conf.yml");
            assertFalse(config.contains("https://") || config.contains("transport-security"), config);
        }
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());

        Files.writeString(spec, tls);
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        for (String phase : List.of("round 1/3 (serve both): restart etcd serving clients http+https (both advertised), peers http"
                        + " (peer certificate in place)",
                "round 2/3 (advertise TLS): member update peer URL to https, restart etcd serving clients http+https (https"
                        + " advertised), peers https (mutual TLS)",
                "round 3/3 (drop plain HTTP): restart etcd serving clients https (mutual TLS), peers https (mutual TLS)")) {
            assertEquals(3, count(plan.out(), phase), phase + " once per member in:\n" + plan.out());
        }
        Map<String, String> tlsEnv = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        assertTrue(tlsEnv.get("ETCDCTL_ENDPOINTS").startsWith("https://"), tlsEnv.toString());

        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.start(List.of(plainEnv, tlsEnv), 4, LOGS.resolve("plaintext-to-tls.acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            String seen;
            // Killed once the first member of round 2 moved its peer URL and restarted: the others are still on http.
            try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
                seen = apply.killAfter(Pattern.compile("round 2/3 \\(advertise TLS\\)[^\\n]*: changed"), Duration.ofMinutes(6));
            }
            assertFalse(seen.contains("RECAP"), "the first apply must not have finished: " + seen);
            Cli.Run rest = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
            assertEquals(2, rest.exitCode(), rest.all());
            assertEquals(0, count(rest.out(), "round 1/3"), "round 1 is done on every member: " + rest.out());
            assertEquals(2, count(rest.out(), "round 2/3 (advertise TLS): member update peer URL to https"),
                    "round 2 is left on two members: " + rest.out());
            assertEquals(3, count(rest.out(), "round 3/3"), rest.out());

            Cli.Run resumed = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, resumed.exitCode(), resumed.all());
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        WriteLoad.checkNothingLost(tlsEnv, acks, "plaintext-to-tls", 3);

        // An independent etcdctl: served over https with the admin certificate, every peer URL https ...
        assertEquals(0, etcdctl.run(tlsEnv, "endpoint", "health", "--cluster").exitCode());
        Testbed.Result members = etcdctl.run(tlsEnv, "member", "list", "-w", "json");
        assertEquals(0, members.exitCode(), members.stderr());
        JsonNode list = new ObjectMapper().readTree(members.stdout()).path("members");
        assertEquals(3, list.size(), members.stdout());
        for (JsonNode m : list) {
            assertTrue(m.path("peerURLs").toString().contains("https://") && !m.path("peerURLs").toString().contains("http:"),
                    m.toString());
            assertFalse(m.path("clientURLs").toString().contains("http:"), m.toString());
        }
        // ... refused over plain http, and over https without a client certificate.
        assertNotEquals(0, etcdctl.run(plainEnv, "endpoint", "health").exitCode(), "plain http is no longer served");
        Map<String, String> noCertificate = new LinkedHashMap<>(tlsEnv);
        noCertificate.remove("ETCDCTL_CERT");
        noCertificate.remove("ETCDCTL_KEY");
        assertNotEquals(0, etcdctl.run(noCertificate, "put", "/no-client-certificate", "x").exitCode(),
                "a client without a certificate is refused");

        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());

        // Back to plain HTTP is refused, with the reason.
        Files.writeString(spec, plaintext);
        Cli.Run back = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(1, back.exitCode(), back.all());
        assertTrue(back.all().contains("etcdwright does not plan it"), back.all());
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            n++;
        }
        return n;
    }
}
