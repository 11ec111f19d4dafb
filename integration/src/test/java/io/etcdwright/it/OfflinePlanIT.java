package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recorded facts plan like live hosts: {@code plan --facts F} gives the same steps and fingerprint
 * as a live {@code plan}, on a converged cluster and after drift (one member's etcd stopped), and
 * still does with every host switched off.
 */
class OfflinePlanIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final ObjectMapper JSON = new ObjectMapper();
    /** A copy of the testbed's inventory: 'testbed down' deletes the original, and the offline plans need one. */
    static String INV;
    static Path spec;

    @BeforeAll
    static void hosts() throws Exception {
        // The release server of this testbed (TESTBED_NET / TESTBED_HTTP_PORT), not the example's default.
        String net = Testbed.NET;
        String port = Testbed.HTTP_PORT;
        String example = Files.readString(Testbed.ROOT.resolve("examples/three-node.yaml"))
                .replace("http://10.77.0.1:8799/", "http://" + net + ".1:" + port + "/");
        spec = HOSTS.home().resolve("three.yaml");
        Files.writeString(spec, example);
        Path inventory = Files.createDirectories(HOSTS.home().resolve("inventory"));
        Files.copy(Testbed.INVENTORY, inventory.resolve("hosts.yaml"));
        Files.copy(Testbed.KNOWN_HOSTS, inventory.resolve("known_hosts"));
        INV = inventory.resolve("hosts.yaml").toString();
    }

    @Test
    void recordedFactsPlanLikeTheLiveHostsEvenWhenTheyAreOff() throws Exception {
        String f = spec.toString();
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", f, "--yes");
        assertEquals(0, create.exitCode(), create.all());

        // Converged: nothing to do, live and offline alike.
        Path converged = record("converged");
        JsonNode facts = JSON.readTree(converged.toFile());
        assertEquals("etcdwright-facts/1", facts.path("format").asText());
        assertEquals("three", facts.path("cluster").asText());
        JsonNode cluster = facts.path("cluster_facts");
        assertTrue(cluster.path("quorum").asBoolean(), cluster.toString());
        assertEquals(3, cluster.path("members").size(), cluster.toString());
        assertFalse(cluster.path("leader").isNull(), cluster.toString());
        assertTrue(cluster.path("cluster_version").asText().startsWith("3.5"), cluster.toString());
        JsonNode convergedLive = plan("plan", "-i", INV, "-f", f, "-o", "json");
        assertFalse(convergedLive.path("changes").asBoolean(), convergedLive.toString());
        assertEquals(convergedLive, plan("plan", "-i", INV, "-f", f, "--facts", converged.toString(), "-o", "json"));

        // The leader on no host of the inventory: only the leader's host asks for the whole
        // cluster, so the hosts asked answer again on a second round, and the plan still sees the
        // cluster and removes the member it no longer lists.
        String leader = cluster.path("leader").asText();
        Path withoutLeader = HOSTS.home().resolve("inventory/without-" + leader + ".yaml");
        Files.writeString(withoutLeader, Files.readString(Path.of(INV))
                .replaceAll("(?m)^ +" + leader + ":\\n +ansible_host: [0-9.]+\\n", ""));
        assertFalse(Files.readString(withoutLeader).contains(leader + ":"), Files.readString(withoutLeader));
        Path twoMembers = HOSTS.home().resolve("two.yaml");
        Files.writeString(twoMembers, Files.readString(spec).replace("hosts: [h1, h2, h3]", "hosts: ["
                + String.join(", ", java.util.stream.Stream.of("h1", "h2", "h3").filter(h -> !h.equals(leader)).toList()) + "]"));
        JsonNode removal = plan("plan", "-i", withoutLeader.toString(), "-f", twoMembers.toString(), "-o", "json");
        assertTrue(removal.path("steps").toString().contains("-remove-" + leader), removal.toString());

        // Drift: h2's etcd stopped. The facts say why h2 does not answer; both plans start it.
        Testbed.ssh(2, "systemctl stop etcd.service");
        Path drifted = record("drifted");
        JsonNode h2 = member(JSON.readTree(drifted.toFile()).path("cluster_facts"), "h2");
        assertFalse(h2.path("healthy").asBoolean(), h2.toString());
        assertTrue(h2.path("error").asText().contains("etcd is not running on h2"), h2.toString());
        JsonNode driftedLive = plan("plan", "-i", INV, "-f", f, "-o", "json");
        assertTrue(driftedLive.path("changes").asBoolean(), driftedLive.toString());
        assertTrue(driftedLive.path("steps").toString().contains("h2"), driftedLive.toString());
        assertEquals(driftedLive, plan("plan", "-i", INV, "-f", f, "--facts", drifted.toString(), "-o", "json"));
        assertNotEquals(convergedLive.path("fingerprint"), driftedLive.path("fingerprint"));

        // A plan saved from recorded facts carries the live plan's fingerprint.
        Path livePlan = HOSTS.home().resolve("live.plan");
        Path offlinePlan = HOSTS.home().resolve("offline.plan");
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", f, "--out", livePlan.toString()).exitCode());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", f, "--facts", drifted.toString(), "--out", offlinePlan.toString()).exitCode());
        assertEquals(JSON.readTree(livePlan.toFile()).path("fingerprint"), JSON.readTree(offlinePlan.toFile()).path("fingerprint"));

        // apply never takes recorded facts.
        Cli.Run refused = Cli.run("apply", "-i", INV, "-f", f, "--facts", drifted.toString(), "--yes");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("apply does not take --facts"), refused.all());

        // Every host switched off: the recorded facts still give the same plans.
        Testbed.down();
        assertEquals(driftedLive, plan("plan", "-i", INV, "-f", f, "--facts", drifted.toString(), "-o", "json"));
        assertEquals(convergedLive, plan("plan", "-i", INV, "-f", f, "--facts", converged.toString(), "-o", "json"));
        // ... and the live plan, for contrast, cannot reach them.
        assertEquals(1, Cli.run("plan", "-i", INV, "-f", f, "--connect-timeout", "2").exitCode());

        // The launcher as an operator runs it, the spec through a pipe (-f <(sops -d spec.yaml)) and the
        // inventory's known_hosts file gone: a plan that contacts no host needs neither to be a file.
        for (String command : new String[] {"validate", "plan"}) {
            if (command.equals("plan")) {
                Files.delete(Path.of(INV).resolveSibling("known_hosts")); // validate checks it; an offline plan needs none
            }
            ProcessBuilder launcher = new ProcessBuilder("bash", "-c", "exec \"$0\" " + command + " -i \"$1\" -f <(cat \"$2\")"
                    + (command.equals("plan") ? " --facts \"$3\" -o json" : ""),
                    Testbed.ROOT.resolve("bin/etcdwright").toString(), INV, f, drifted.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            launcher.environment().put("ETCDWRIGHT_HOME", HOSTS.home().toString()); // the PKI the live plans used
            Process piped = launcher.start();
            String out = new String(piped.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, piped.waitFor(), command + " -f <(cat spec): " + out);
            if (command.equals("plan")) {
                assertEquals(driftedLive, withoutMeasurements(JSON.readTree(out)), out);
            }
        }
    }

    private static Path record(String name) throws Exception {
        Cli.Run run = Cli.run("facts", "-i", INV, "-f", spec.toString(), "-o", "json");
        assertEquals(0, run.exitCode(), run.all());
        Path file = HOSTS.home().resolve(name + ".facts.json");
        Files.writeString(file, run.out());
        return file;
    }

    /**
     * The plan as JSON, without the warnings that quote a measurement (a synchronous write's time, a
     * clock's offset): two gatherings measure twice, and on a busy machine one may cross the threshold
     * the other did not. Everything else of the plan is the same from recorded facts as live.
     */
    private static JsonNode plan(String... args) throws Exception {
        Cli.Run run = Cli.run(args);
        assertTrue(run.exitCode() == 0, run.all());
        return withoutMeasurements(JSON.readTree(run.out()));
    }

    private static JsonNode withoutMeasurements(JsonNode plan) {
        if (plan.path("warnings").isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode kept = JSON.createArrayNode();
            for (JsonNode w : plan.path("warnings")) {
                String text = w.asText();
                if (!text.contains(": a synchronous 8 KiB write takes ") && !text.contains(": its clock is ")) {
                    kept.add(w);
                }
            }
            ((com.fasterxml.jackson.databind.node.ObjectNode) plan).set("warnings", kept);
        }
        return plan;
    }

    private static JsonNode member(JsonNode cluster, String name) {
        for (JsonNode m : cluster.path("members")) {
            if (m.path("name").asText().equals(name)) {
                return m;
            }
        }
        throw new AssertionError("no member " + name + " in " + cluster);
    }
}
