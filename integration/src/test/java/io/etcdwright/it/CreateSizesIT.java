package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clusters of 5 (etcd 3.7) and 1 (etcd 3.6) members, the fetch path, and etcd 3.4, on real hosts; on
 * 3.5, 3.6 and 3.7 each member runs with etcd's data-corruption checks on.
 */
class CreateSizesIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(5);
    static final String INV = Testbed.INVENTORY.toString();

    static JsonNode status(String spec) throws Exception {
        return new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec, "-o", "json").out());
    }

    static void createHealthyAndIdempotent(String spec, int members, String version) throws Exception {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec, "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        JsonNode status = status(spec);
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        assertEquals(members, status.path("members").size());
        for (JsonNode m : status.path("members")) {
            assertEquals(version, m.path("version").asText());
            // etcd's data-corruption checks, on by default from 3.5 (issue 39), as each running process read them.
            if (!version.startsWith("3.4.")) {
                CorruptionChecks.assertOn(Integer.parseInt(m.path("name").asText().replaceFirst("^h", "")), version);
            }
        }
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec, "--detailed-exitcode").exitCode(), "converged");
        assertEquals(0, Cli.run("destroy", "-i", INV, "-f", spec, "--yes", "--wipe-data").exitCode());
    }

    /** Five members of etcd 3.7 (three of 3.5 are made everywhere else; three of 3.7 by BackupRestoreIT). */
    @Test
    void fiveMembers() throws Exception {
        String v37 = Testbed.newestRelease("3.7");
        createHealthyAndIdempotent(example("five-node.yaml", v37), 5, v37);
    }

    /** One member of etcd 3.6. */
    @Test
    void oneMember() throws Exception {
        String v36 = Testbed.newestRelease("3.6");
        createHealthyAndIdempotent(example("single-node.yaml", v36), 1, v36);
    }

    /** An example with its release server this testbed's and etcd.version {@code version}, written to the home. */
    private static String example(String file, String version) throws Exception {
        String text = Testbed.example(file);
        assertTrue(text.contains("version: 3.5.16"), text);
        Path spec = HOSTS.home().resolve(version + "-" + file);
        Files.writeString(spec, text.replace("version: 3.5.16", "version: " + version));
        return spec.toString();
    }

    /**
     * A create whose third member's etcd cannot start (a drop-in of the host's own makes systemd
     * fail it) leaves a cluster of the two others that lists h3, which never ran. Once the host is
     * fixed, the next apply only starts h3, as etcd allows a first member that never published its
     * client URLs: no member is removed and none added.
     */
    @Test
    void aFirstMemberThatCouldNotStartIsStartedLaterWithoutAMembershipChange() throws Exception {
        Path spec = HOSTS.home().resolve("late.yaml");
        Files.writeString(spec, Testbed.example("three-node.yaml").replace("name: three", "name: late"));
        Testbed.ssh(3, "mkdir -p /etc/systemd/system/etcd.service.d && printf '[Service]\\nExecStartPre=/bin/false\\n'"
                + " > /etc/systemd/system/etcd.service.d/zz-broken.conf");
        try {
            // The bootstrap wait cannot succeed: a short one.
            Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes", "--ready-timeout", "15");
            assertEquals(1, create.exitCode(), create.all());
            JsonNode before = status(spec.toString());
            assertEquals(3, before.path("members").size(), before.toString());
            assertTrue(before.toString().contains("has never joined"), before.toString());
            // Stopped first, so that systemd does not retry it once fixed: the apply is what starts it.
            Testbed.ssh(3, "systemctl stop etcd && rm /etc/systemd/system/etcd.service.d/zz-broken.conf && systemctl daemon-reload");

            Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
            assertEquals(0, plan.exitCode(), plan.all());
            assertTrue(plan.out().contains("start etcd"), plan.out());
            assertTrue(!plan.out().contains("remove member") && !plan.out().contains("learner"), plan.out());
            createHealthyAndIdempotent(spec.toString(), 3, "3.5.16");
        } finally {
            Testbed.sshStatus(3, "rm -f /etc/systemd/system/etcd.service.d/zz-broken.conf; systemctl daemon-reload");
        }
    }

    @Test
    void hostsFetchTheReleaseThemselvesAndVerifyIt() throws Exception {
        Path spec = HOSTS.home().resolve("fetch-34.yaml");
        Files.writeString(spec, Files.readString(Testbed.ROOT.resolve("examples/three-node.yaml"))
                .replace("name: three", "name: fetched")
                .replace("hosts: [h1, h2, h3]", "hosts: [h3, h4, h5]")
                .replace("version: 3.5.16", "version: 3.4.23")
                .replace("  url: http", "  source: fetch\n  url: http")
                // The hosts fetch from this testbed's release server, whatever its net.
                .replace("http://10.77.0.1:8799/", "http://" + Testbed.bridgeAddress() + ":"
                        + Testbed.HTTP_PORT + "/"));
        assertTrue(Files.readString(spec).contains("source: fetch"));
        createHealthyAndIdempotent(spec.toString(), 3, "3.4.23");
        Path cache = HOSTS.home().resolve("cache/releases");
        assertTrue(!Files.exists(cache) || Files.list(cache).noneMatch(p -> p.toString().contains("3.4.23")),
                "in fetch mode the workstation downloads nothing");
    }

    @Test
    void aTamperedReleaseIsRefused() throws Exception {
        Path spec = HOSTS.home().resolve("tampered.yaml");
        Files.writeString(spec, Testbed.example("single-node.yaml")
                .replace("name: single", "name: tampered")
                .replace("  url: http", "  sha256:\n    3.5.16: " + "deadbeef".repeat(8) + "\n  url: http")
                .replace("hosts: [h1]", "hosts: [h2]"));
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(1, apply.exitCode());
        assertTrue(apply.out().contains("refusing to install it"), apply.out());
        assertEquals(1, Testbed.sshStatus(2, "test -e /opt/etcd/v3.5.16"), "nothing was installed");
    }

    @AfterEach
    void noEtcdLeftRunning() {
        Testbed.removeEtcd(5);
    }
}
