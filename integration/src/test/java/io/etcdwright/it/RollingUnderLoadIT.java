package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rolling operations under continuous writes: a patch upgrade and the patch downgrade back restart
 * every member one at a time while writers keep writing, and a certificate renewal is picked up with
 * no restart at all (each member then serves its new certificate); afterwards every acknowledged write is on
 * every member, and the members' stores hash the same. The longest stall is printed (measured,
 * not asserted: speed belongs to bench/). The checker is shown to catch a lost write.
 */
class RollingUnderLoadIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static Etcdctl etcdctl;

    @BeforeAll
    static void hosts() {
        etcdctl = Etcdctl.unpack(Testbed.scratch("rolling-etcdctl"), "3.5.16");
    }

    @AfterEach
    void wipe() {
        Testbed.removeEtcd(3);
    }

    @AfterAll
    static void cleanUp() {
        Testbed.removeEtcd(3);
    }

    @Test
    void patchUpgradeDowngradeAndRenewalRollUnderWritesWithoutLosingAnAcknowledgedWrite() throws Exception {
        String newest = Testbed.newestRelease("3.5");
        String base = Testbed.example("three-node.yaml").replace("name: three", "name: load");
        Path spec = HOSTS.home().resolve("load.yaml");
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());

        WriteLoad.Report up = rollUnderLoad(spec, base.replace("version: 3.5.16", "version: " + newest), env, "upgrade", newest);
        WriteLoad.Report down = rollUnderLoad(spec, base, env, "downgrade", "3.5.16");
        // Certificates inside their renewal window (364 days left, renewed 400 before): `certs` sees
        // them coming; apply reissues them under writes and etcd serves them from the next
        // handshake on, with no member restarted (etcd loads its certificate at each handshake).
        String renewed = base.replace("validityDays: 365", "validityDays: 730").replace("renewBeforeDays: 30", "renewBeforeDays: 400");
        JsonNode due = certs(spec, 2);
        Map<Integer, String> processes = new java.util.TreeMap<>();
        for (int h = 1; h <= 3; h++) {
            processes.put(h, Testbed.ssh(h, "systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic etcd").strip());
        }
        Map<String, java.util.Optional<java.security.cert.X509Certificate>> before = served(spec);
        rollUnderLoad(spec, renewed, env, "certificate-renewal", "3.5.16", false);
        for (int h = 1; h <= 3; h++) {
            assertEquals(processes.get(h), Testbed.ssh(h, "systemctl show -p ExecMainPID -p ExecMainStartTimestampMonotonic etcd")
                    .strip(), "h" + h + "'s etcd was not restarted");
        }
        JsonNode renewedCerts = certs(spec, 0);
        Map<String, java.util.Optional<java.security.cert.X509Certificate>> after = served(spec);
        for (int h = 1; h <= 3; h++) {
            for (String kind : List.of("server", "peer")) {
                String endpoint = "https://" + Testbed.address(h) + (kind.equals("server") ? ":2379" : ":2380");
                var old = before.get(endpoint).orElseThrow(() -> new AssertionError("no handshake with " + endpoint + " before"));
                var now = after.get(endpoint).orElseThrow(() -> new AssertionError("no handshake with " + endpoint + " after"));
                assertTrue(now.getNotAfter().after(old.getNotAfter()), endpoint + " serves the renewed certificate: " + now);
                String serial = now.getSerialNumber().toString(16).toUpperCase(java.util.Locale.ROOT);
                assertEquals(serial.length() % 2 == 0 ? serial : "0" + serial, entry(renewedCerts, "h" + h, kind).path("serial").asText(),
                        endpoint + " serves exactly h" + h + "'s new " + kind + " certificate");
                assertTrue(entry(due, "h" + h, kind).path("expiring").asBoolean(), "certs saw it coming: " + due);
            }
        }

        // Releases left behind are removed once the cluster has settled: the active one and the
        // newest other of each minor stay (3.5.16 runs, so of 3.5.1, 3.5.2 and NEWEST only NEWEST).
        Testbed.ssh(1, "for v in 3.5.1 3.5.2; do mkdir -p /opt/etcd/v$v && cp /opt/etcd/v3.5.16/etcd /opt/etcd/v$v/; done");
        Cli.Run cleanup = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, cleanup.exitCode(), cleanup.all());
        assertTrue(cleanup.out().contains("remove older etcd 3.5.1, 3.5.2 from /opt/etcd: changed"), cleanup.out());
        assertEquals("v3.5.16 v" + newest, Testbed.ssh(1, "cd /opt/etcd && echo v*").strip());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());

        // The checker is not blind: a write lost behind its back is reported.
        WriteLoad.Ack victim = down.load().acks().get(down.load().acks().size() / 2);
        WriteLoad.loseOneWrite(env, victim);
        WriteLoad.Report lost = WriteLoad.check(env, down.load());
        // Missing on each of the three members and from the linearizable read: one key lost.
        assertEquals(4, lost.missingOrChanged().size(), lost.toString());
        assertEquals(1, lost.lostKeys(), lost.toString());
        assertTrue(lost.missingOrChanged().keySet().stream().allMatch(k -> k.endsWith(" " + victim.key())), lost.toString());
        assertTrue(lost.watchProblems().stream().anyMatch(p -> p.contains(victim.key()) && p.contains("DELETE")), lost.toString());
    }

    /**
     * 3.4 -> 3.5, etcd's one-minor rolling upgrade: binaries swapped member by member, leader
     * last, then the plan waits until the leader raises the cluster version to 3.5.
     */
    @Test
    void aMinorUpgradeRollsUnderWritesAndWaitsForTheClusterVersion() throws Exception {
        String base = Testbed.example("three-node.yaml").replace("name: three", "name: minor")
                .replace("version: 3.5.16", "version: 3.4.23");
        Path spec = HOSTS.home().resolve("minor.yaml");
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());

        Files.writeString(spec, base.replace("version: 3.4.23", "version: 3.5.16"));
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("wait for cluster version 3.5"), plan.out());
        assertTrue(plan.all().contains("etcd advises the newest 3.4 patch before a minor upgrade"), plan.all());

        WriteLoad.Report report = rollUnderLoad(spec, base.replace("version: 3.4.23", "version: 3.5.16"), env, "minor-upgrade",
                "3.5.16");
        assertTrue(report.load().acks().size() > 200, report.toString());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());

        // Back to 3.4 now that the cluster version is 3.5: not rolling; refused unless the downtime of a restore is allowed.
        Files.writeString(spec, base);
        Cli.Run back = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(1, back.exitCode(), back.all());
        assertTrue(back.out().contains("a verified snapshot restored with etcd 3.4.23"), back.out());
        assertTrue(back.out().contains("--allow-downtime"), back.out());
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertEquals("3.5.0", status.path("cluster_version").asText(), status.toString());
    }

    /** {@code certs -o json --expiring-within 400}: its exit code, its schema, every host copy the workstation's and its key its own. */
    private static JsonNode certs(Path spec, int exitCode) throws Exception {
        Cli.Run run = Cli.run("certs", "-i", INV, "-f", spec.toString(), "-o", "json", "--expiring-within", "400");
        assertEquals(exitCode, run.exitCode(), run.all());
        assertEquals(List.of(), io.etcdwright.engine.source.SchemaCheck.check(io.etcdwright.engine.source.YamlDocument.parse(
                Path.of("certs.json"), run.out()), "/schemas/certs.schema.json"), run.out());
        JsonNode doc = new ObjectMapper().readTree(run.out());
        for (JsonNode c : doc.path("certificates")) {
            assertEquals("present", c.path("state").asText(), c.toString());
            if (!c.path("location").asText().equals("workstation")) {
                assertTrue(c.path("matches_workstation").asBoolean(), c.toString());
                assertTrue(c.path("key").isNull() || c.path("key").path("matches_certificate").asBoolean(),
                        "openssl on the host found the key belongs to the certificate: " + c);
            }
        }
        assertTrue(!run.out().contains("PRIVATE KEY"), run.out());
        return doc;
    }

    private static JsonNode entry(JsonNode certs, String location, String kind) {
        for (JsonNode c : certs.path("certificates")) {
            if (c.path("location").asText().equals(location) && c.path("kind").asText().equals(kind)) {
                return c;
            }
        }
        throw new AssertionError("certs lists no " + kind + " certificate on " + location + ": " + certs);
    }

    /** What each member's client and peer URL presents in a fresh TLS handshake. */
    private static Map<String, java.util.Optional<java.security.cert.X509Certificate>> served(Path spec) {
        Path pki = HOSTS.home().resolve("clusters/load/pki");
        List<String> endpoints = new java.util.ArrayList<>();
        for (int h = 1; h <= 3; h++) {
            endpoints.add("https://" + Testbed.address(h) + ":2379");
            endpoints.add("https://" + Testbed.address(h) + ":2380");
        }
        return io.etcdwright.modules.membership.ServedCertificates.served(endpoints, pki.resolve("ca.crt"),
                pki.resolve("clients/admin.crt"), pki.resolve("clients/admin.key"), Duration.ofSeconds(5));
    }

    /** Applies {@code text} (a version change) while the load writes, then checks the writes and the version. */
    private static WriteLoad.Report rollUnderLoad(Path spec, String text, Map<String, String> env, String name,
                                                  String version) throws Exception {
        return rollUnderLoad(spec, text, env, name, version, true);
    }

    /** As above; {@code restarts}: whether the apply restarts members (a certificate renewal does not). */
    private static WriteLoad.Report rollUnderLoad(Path spec, String text, Map<String, String> env, String name,
                                                  String version, boolean restarts) throws Exception {
        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve(name + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            Files.writeString(spec, text);
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, apply.exitCode(), apply.all());
            assertEquals(restarts, apply.out().contains("restart etcd"), apply.out());
            assertEquals(!restarts, apply.out().contains("etcd reads its certificate at each new TLS handshake: no restart"),
                    apply.out());
            System.out.println("[" + name + "] apply:\n" + apply.out());
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        WriteLoad.Report report = WriteLoad.checkNothingLost(env, acks, name + " to " + version, 3);
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        for (JsonNode m : status.path("members")) {
            assertEquals(version, m.path("version").asText(), m.toString());
        }
        // The same from an independent client: upstream's etcdctl asks every member itself.
        assertEquals(List.of(version, version, version), etcdctl.serverVersions(env));
        return report;
    }
}
