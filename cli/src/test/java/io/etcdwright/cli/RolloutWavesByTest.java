package io.etcdwright.cli;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --waves-by LABEL} (docs/rollouts.md): {@code rollout plan} offline from recorded facts shows
 * a wave a value of the label, in the order the values first appear among the specs given; a spec
 * without the label, and {@code --waves} beside it, are refused before any host is contacted. Four
 * single-member clusters on the recorded fresh hosts (scenarios/fresh.json, each cluster's facts
 * file that recording under its name), their specs a directory read by file name.
 */
class RolloutWavesByTest {
    @TempDir
    Path dir;
    Path inventory;
    Path specs;
    Path facts;

    @BeforeEach
    void fleet() throws Exception {
        System.setProperty("etcdwright.home", Files.createDirectories(dir.resolve("home")).toString());
        inventory = Files.copy(PlannerScenarios.DIR.resolve("inventory.yaml"), dir.resolve("hosts.yaml"));
        specs = Files.createDirectories(dir.resolve("specs"));
        facts = Files.createDirectories(dir.resolve("facts"));
        cluster("alpha", "h1", "    site: dc2\n");
        cluster("bravo", "h2", "    site: dc1\n    tier: canary\n");
        cluster("charlie", "h3", "    site: dc2\n");
        cluster("delta", "h4", "    site: dc3\n");
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    /** specs/NAME.yaml, one member on {@code host}, with {@code labels} (YAML lines under cluster.labels); facts/NAME.json. */
    void cluster(String name, String host, String labels) throws Exception {
        Files.writeString(specs.resolve(name + ".yaml"), "cluster:\n  name: " + name + "\n"
                + (labels.isEmpty() ? "" : "  labels:\n" + labels) + "members:\n  hosts: [" + host + "]\netcd:\n  version: 3.5.16\n");
        String fresh = Files.readString(PlannerScenarios.DIR.resolve("fresh.json"));
        assertTrue(fresh.contains("\"cluster\" : \"scn\""), "the recording names its cluster");
        Files.writeString(facts.resolve(name + ".json"), fresh.replace("\"cluster\" : \"scn\"", "\"cluster\" : \"" + name + "\""));
    }

    record Ran(int code, String out, String err) {
    }

    static Ran run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Ran(code, out.toString(), err.toString());
    }

    @Test
    void rolloutPlanOfflineMakesAWaveASiteInTheOrderTheSitesFirstAppear() {
        Ran r = run("rollout", "plan", "-i", inventory.toString(), "-f", specs.toString(), "--facts", facts.toString(),
                "--waves-by", "site", "--rollout", "r1");
        assertEquals(0, r.code(), r.out() + r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("Rollout r1: 4 clusters in 3 waves (waves by label site, up to 8 at once,"), lines.get(0));
        List<String> waves = lines.stream().filter(l -> l.startsWith("Wave ") || l.matches("  [a-z]+: .*"))
                .map(l -> l.replaceFirst(": \\d+ steps$", "")).toList();
        assertEquals(List.of("Wave 1: site=dc2 (2 clusters)", "  alpha", "  charlie",
                "Wave 2: site=dc1 (1 cluster)", "  bravo",
                "Wave 3: site=dc3 (1 cluster)", "  delta"), waves, r.out());
        assertTrue(r.out().contains("4 of 4 clusters have changes."), r.out());
    }

    /**
     * The inventory's hosts do not exist (10.77.0.x, the recording's addresses): a rollout that got as
     * far as contacting one would print it unreachable, after its timeout, not these lines.
     */
    @Test
    void aSpecWithoutTheLabelIsRefusedNamingItBeforeAnyHostIsContacted() throws Exception {
        cluster("delta", "h4", "    tier: canary\n");
        cluster("echo", "h5", "");
        String refused = specs.resolve("delta.yaml") + ":1:1: error: cluster.labels: no label 'site' (--waves-by site)\n"
                + specs.resolve("echo.yaml") + ":1:1: error: cluster.labels: no label 'site' (--waves-by site)\n"
                + "No host was contacted: fix the input above and run again.\n";
        Ran plan = run("rollout", "plan", "-i", inventory.toString(), "-f", specs.toString(), "--waves-by", "site");
        assertEquals(1, plan.code(), plan.out() + plan.err());
        assertEquals(refused, plan.err());
        assertEquals("", plan.out());
        Ran offline = run("rollout", "plan", "-i", inventory.toString(), "-f", specs.toString(), "--facts", facts.toString(),
                "--waves-by", "site");
        assertEquals(1, offline.code());
        assertEquals(refused, offline.err());
        Ran apply = run("apply", "-i", inventory.toString(), "-f", specs.toString(), "--waves-by", "site", "--yes");
        assertEquals(1, apply.code(), apply.out() + apply.err());
        assertEquals(refused, apply.err());
        assertEquals("", apply.out());
    }

    @Test
    void wavesBySizesAndByALabelTogetherAreRefused() {
        for (String command : List.of("plan", "apply")) {
            Ran r = command.equals("plan")
                    ? run("rollout", "plan", "-i", inventory.toString(), "-f", specs.toString(), "--waves", "1,100%", "--waves-by", "site")
                    : run("apply", "-i", inventory.toString(), "-f", specs.toString(), "--waves", "1,100%", "--waves-by", "site", "--yes");
            assertEquals(1, r.code(), command + ": " + r.out() + r.err());
            assertEquals("error: --waves 1,100% and --waves-by site: give one, the sizes of the waves or the label whose values are"
                    + " the waves\n", r.err(), command);
        }
    }

    /**
     * A label is data only: the recorded cluster with a drifted config (scenarios/config-drift) plans
     * the same steps, to the fingerprint (ids, dependencies, observed digests, the files written), with
     * labels in its spec as without.
     */
    @Test
    void labelsChangeNoPlan() throws Exception {
        String three = Files.readString(PlannerScenarios.DIR.resolve("three.yaml"));
        assertTrue(three.contains("cluster:\n  name: scn\n"), "the scenario spec's cluster section");
        Path labelled = Files.writeString(dir.resolve("three-labelled.yaml"),
                three.replace("cluster:\n  name: scn\n", "cluster:\n  name: scn\n  labels:\n    site: dc1\n    tier: canary\n"));
        PlannerScenarios scenarios = new PlannerScenarios(Files.createDirectories(dir.resolve("scenario-home")));
        Plan without = scenarios.plan(new PlannerScenarios.Scenario("config-drift", "three"));
        Plan with = scenarios.plan(new PlannerScenarios.Scenario("config-drift", labelled.toString().replaceFirst("\\.yaml$", "")));
        assertEquals(java.util.Map.of("site", "dc1", "tier", "canary"), io.etcdwright.engine.spec.ClusterSpecLoader.load(labelled).labels());
        assertTrue(with.hasChanges(), "the drifted config is rewritten");
        assertEquals(without.steps().stream().map(Step::line).toList(), with.steps().stream().map(Step::line).toList());
        assertEquals(without.fingerprint(), with.fingerprint());
        // The comparison can fail: planned again the spec gives the same fingerprint, a setting changed another.
        assertEquals(without.fingerprint(), scenarios.plan(new PlannerScenarios.Scenario("config-drift", "three")).fingerprint());
        Path changed = Files.writeString(dir.resolve("three-changed.yaml"), three.replace("heartbeat-interval: 100", "heartbeat-interval: 150"));
        assertNotEquals(without.fingerprint(), scenarios.plan(new PlannerScenarios.Scenario("config-drift",
                changed.toString().replaceFirst("\\.yaml$", ""))).fingerprint());
    }
}
