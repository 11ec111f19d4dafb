package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright SIGKILLed anywhere: at every step boundary of a create, a shrink and a grow, and
 * inside the steps that take time (a release streaming to a host, etcd starting, a learner
 * catching up, a health wait). The kill points come from the plan itself (each step's start and
 * end lines as apply prints them), so a step added to a planner is covered by construction.
 *
 * <p>One chain per change: an apply (one step at a time, {@code --forks 1}) is killed at the first
 * kill point of its plan, the next apply (which plans again from what it finds) at the first point
 * of its own plan not killed at yet, and so on, until an apply is let finish. Each kill lands on the state the earlier kills left, the way a flaky CI runner
 * would leave it. At the end: the apply exits 0, a second plan is empty, the cluster is healthy
 * with exactly the spec's members and one cluster id on every member (no second cluster formed),
 * and every write acknowledged before and during the chain is present on every member.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KilledAnywhereIT {
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static final ObjectMapper JSON = new ObjectMapper();
    static Path home;
    static Path spec;
    static String base;

    @BeforeAll
    static void hosts() throws Exception {
        Testbed.up(3);
        home = Testbed.freshWorkstationHome();
        base = Testbed.example("three-node.yaml").replace("name: three", "name: chaos");
        spec = home.resolve("chaos.yaml");
    }

    @AfterAll
    static void cleanUp() {
        Testbed.forgetWorkstationHome();
        Testbed.down();
    }

    @Test
    @Order(1)
    void aCreateKilledAtEveryStepConverges() throws Exception {
        Files.writeString(spec, base);
        List<String> kills = killChain();
        assertTrue(kills.size() >= 10, "a create has many kill points: " + kills);
        converged(List.of("h1", "h2", "h3"));
    }

    @Test
    @Order(2)
    void aShrinkKilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        underWritesKilledEverywhere("shrink", List.of("h1"));
    }

    @Test
    @Order(3)
    void aGrowKilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        underWritesKilledEverywhere("grow", List.of("h1", "h2", "h3"));
    }

    private static void underWritesKilledEverywhere(String label, List<String> members) throws Exception {
        Map<String, String> before = clientEnv();
        Files.writeString(spec, base.replace("hosts: [h1, h2, h3]", "hosts: [" + String.join(", ", members) + "]"));
        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.start(before, 4, LOGS.resolve("killed-anywhere-" + label + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            List<String> kills = killChain();
            assertTrue(kills.size() >= 4, label + " has kill points: " + kills);
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        converged(members);
        WriteLoad.checkNothingLost(clientEnv(), acks, "killed-anywhere-" + label, members.size());
    }

    /**
     * Kills applies at every point of the plans they make: each apply at the first point of its own
     * plan (made from what the kills before left) not killed at yet, until no such point is left;
     * then lets one finish. Returns the points killed at. Points are taken from each new plan, not
     * the first one, because a plan made after a kill may name its steps anew (the second removal
     * of a shrink is the first of the plan after it).
     */
    private static List<String> killChain() throws Exception {
        Set<String> killed = new LinkedHashSet<>();
        Path saved = home.resolve("chain.plan");
        int stale = 0;
        for (int round = 0; round < MAX_KILLS; round++) {
            // The kill point is chosen from the very plan the apply will run (saved, and applied
            // only while the facts it was made from still hold), not from a plan made a moment
            // before: a member still starting after the last kill would make the two differ.
            Cli.Run planned = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--out", saved.toString(), "-o", "json");
            assertEquals(0, planned.exitCode(), planned.all());
            List<KillPoint> points = killPoints(JSON.readTree(planned.out()));
            if (round == 0) {
                assertFalse(points.isEmpty(), "the spec differs from the hosts: there is something to kill");
            }
            KillPoint point = points.stream().filter(p -> !killed.contains(p.toString())).findFirst().orElse(null);
            if (point == null) {
                break;
            }
            String seen;
            // One step at a time, so that each kill point is a state of its own: with steps side by
            // side, the others would run on while the one awaited finishes, and skip their boundaries.
            try (Cli.Launched apply = Cli.Launched.start(home, "apply", saved.toString(), "--forks", "1")) {
                seen = apply.killAfter(point.pattern(), Duration.ofMinutes(3));
            } catch (AssertionError e) {
                if (e.getMessage().contains("refusing stale plan") && ++stale <= MAX_STALE) {
                    continue;  // the hosts moved on since the plan (a member finished starting): plan again
                }
                // What the hosts looked like right after: the state a refusal or a stuck step came from.
                throw new AssertionError(e.getMessage() + "\nafter kills at " + killed + "\nfacts right after:\n"
                        + Cli.run("facts", "-i", INV, "-f", spec.toString(), "-o", "json").out(), e);
            }
            assertFalse(seen.contains("RECAP"), "killed before it finished (" + point + "): " + seen);
            killed.add(point.toString());
        }
        System.out.println("killed at " + killed.size() + " points (" + stale + " plans stale by apply time): " + killed);
        Cli.Run last = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, last.exitCode(), "the apply after " + killed.size() + " kills converges: " + last.all());
        return List.copyOf(killed);
    }

    /** Plans made stale by the time they were applied, allowed before the chain counts as stuck. */
    private static final int MAX_STALE = 10;

    /** A bound on the chain: a planner that kept planning new steps after each kill would never converge. */
    private static final int MAX_KILLS = 80;

    /** A step's start line, and its end line; a start only where the step can take a while. */
    record KillPoint(String stepId, String summary, String where, Pattern pattern) {
        @Override
        public String toString() {
            return where + " " + stepId + " (" + summary + ")";
        }
    }

    static List<KillPoint> killPoints(JsonNode plan) {
        List<KillPoint> points = new ArrayList<>();
        JsonNode steps = plan.path("steps");
        for (int i = 0; i < steps.size(); i++) {
            JsonNode step = steps.get(i);
            String id = step.path("id").asText();
            String target = step.path("host").isNull() || step.path("host").isMissingNode() ? "cluster" : step.path("host").asText();
            String summary = step.path("summary").asText();
            String kind = step.path("kind").asText();
            String prefix = "(?m)^" + Pattern.quote(target) + " +";
            if (kind.equals("ACTION") || id.endsWith("/install")) {
                // Inside the step: it prints its start line before its work (streaming, starting, waiting).
                points.add(new KillPoint(id, summary, "inside", Pattern.compile(prefix + "\\S+ " + Pattern.quote(summary) + ".* \\.\\.\\.$")));
            }
            if (i == steps.size() - 1) {
                // After the last step the apply has nothing left but its recap: a kill there lands on
                // a finished apply or races it, and is no interruption.
                continue;
            }
            points.add(new KillPoint(id, summary, "after", Pattern.compile(prefix + Pattern.quote(summary) + ": (changed|ok) \\(")));
        }
        return points;
    }

    private static JsonNode plan() throws Exception {
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "-o", "json");
        assertEquals(0, plan.exitCode(), plan.all());
        return JSON.readTree(plan.out());
    }

    private static Map<String, String> clientEnv() {
        return Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
    }

    /** Healthy, exactly these voting members, no change left, and one cluster id on every member's own disk. */
    private static void converged(List<String> members) throws Exception {
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode(),
                "nothing is left to do after the chain");
        JsonNode status = JSON.readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        Set<String> names = new TreeSet<>();
        for (JsonNode m : status.path("members")) {
            names.add(m.path("name").asText());
            assertFalse(m.path("learner").asBoolean(), m.toString());
        }
        assertEquals(new TreeSet<>(members), names, status.toString());
        // Each member asked on its own host, with its own healthcheck client: a member that had
        // bootstrapped a cluster of its own would answer another cluster id.
        Set<String> clusterIds = new TreeSet<>();
        for (String member : members) {
            int host = Integer.parseInt(member.substring(1));
            String answer = Testbed.ssh(host, "etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/etcd/pki/ca.crt"
                    + " --cert=/etc/etcd/pki/healthcheck-client.crt --key=/etc/etcd/pki/healthcheck-client.key"
                    + " endpoint status -w json");
            JsonNode header = JSON.readTree(answer).get(0).path("Status").path("header");
            clusterIds.add(header.path("cluster_id").asText());
        }
        assertEquals(1, clusterIds.size(), "one cluster, not two: " + clusterIds);
    }
}
