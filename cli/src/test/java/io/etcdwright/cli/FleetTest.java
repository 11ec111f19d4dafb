package io.etcdwright.cli;

import io.etcdwright.run.FleetRun;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.spec.DesiredState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet in one run, offline: its input (directories, one inventory or one per spec), the
 * refusals that come before any host (one cluster in two specs, one host in two clusters), bad
 * input in one spec beside the others' results, the exit code across the fleet, the JSON document
 * against its schema, and the JUnit report as a standard XML parser reads it. The clusters' work is
 * a stand-in here; FleetAndMonitoringIT runs the real plan over real clusters.
 */
class FleetTest {
    @TempDir
    Path dir;
    Path inventory;

    @BeforeEach
    void files() throws Exception {
        System.setProperty("etcdwright.home", Files.createDirectories(dir.resolve("home")).toString());
        // TEST-NET addresses: nothing here is ever contacted.
        inventory = Files.writeString(dir.resolve("hosts.yaml"), """
                all:
                  children:
                    etcd:
                      hosts:
                        a1: {ansible_host: 192.0.2.11}
                        b1: {ansible_host: 192.0.2.12}
                        c1: {ansible_host: 192.0.2.13}
                """);
        Files.createDirectories(dir.resolve("specs"));
        spec("specs/a.yaml", "alpha", "a1");
        spec("specs/b.yaml", "bravo", "b1");
        spec("specs/c.yaml", "charlie", "c1");
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    Path spec(String name, String cluster, String host) throws Exception {
        return Files.writeString(dir.resolve(name), """
                cluster:
                  name: %s
                members:
                  hosts: [%s]
                etcd:
                  version: 3.5.16
                """.formatted(cluster, host));
    }

    FleetOptions options(List<Path> specs, List<Path> inventories) {
        FleetOptions o = new FleetOptions();
        o.specs = specs;
        o.inventories = inventories;
        o.parallel = 2;
        return o;
    }

    record Ran(int exitCode, String out, String err) {
    }

    Ran run(FleetOptions options, Fleet.Work work, boolean json) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Fleet.run("plan", options, PlanCommand.FLEET_COLUMNS, work, json, new PrintWriter(out, true),
                new PrintWriter(err, true));
        return new Ran(exit, out.toString(), err.toString());
    }

    /** Stand-in work: bravo drifted (a step and a drift line, as plan prints them), the others converged. */
    static Fleet.Outcome planned(DesiredState d) throws Exception {
        boolean drifted = d.spec().name().equals("bravo");
        String text = drifted ? "b1:\n  ~ update etcd config (heartbeat-interval differs)\nPlan: 1 step (0 to add, 1 to change, 0 to"
                + " destroy, 0 other).\n" : "No changes. Cluster " + d.spec().name() + " matches the desired state.\n";
        JsonNode doc = new ObjectMapper().readTree("{\"version\":1}");
        return new Fleet.Outcome(drifted ? Fleet.Verdict.CHANGES : Fleet.Verdict.OK, drifted ? Main.CHANGES : Main.OK, text, doc,
                Map.of("changes", drifted ? 1 : 0, "refusals", 0, "drift", 0));
    }

    static Document parse(Path xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
    }

    @Test
    void aDirectoryIsItsSpecsByNameAndInventoriesPairWithTheirSpecs() throws Exception {
        Files.writeString(dir.resolve("specs/notes.txt"), "not a spec");
        List<FleetRun.Input> all = options(List.of(dir.resolve("specs")), List.of(inventory)).inputs();
        assertEquals(List.of("a.yaml", "b.yaml", "c.yaml"), all.stream().map(i -> i.spec().getFileName().toString()).toList());
        assertTrue(all.stream().allMatch(i -> i.inventory().equals(inventory)));
        Path other = dir.resolve("other.yaml");
        List<FleetRun.Input> paired = options(List.of(dir.resolve("specs/a.yaml"), dir.resolve("specs/b.yaml")),
                List.of(inventory, other)).inputs();
        assertEquals(List.of(inventory, other), paired.stream().map(FleetRun.Input::inventory).toList());
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class, () -> options(List.of(dir.resolve("specs/a.yaml"),
                dir.resolve("specs/b.yaml"), dir.resolve("specs/c.yaml")), List.of(inventory, other)).inputs());
        assertTrue(wrong.getMessage().contains("-i is given 2 times for 3 -f"), wrong.getMessage());
        assertTrue(options(List.of(dir.resolve("specs/a.yaml")), List.of(inventory)).fleet() == false, "one spec: as today");
    }

    @Test
    void aFleetWithOneDriftedClusterExitsTwoAndItsJunitReportHasExactlyThatFailure() throws Exception {
        FleetOptions o = options(List.of(dir.resolve("specs")), List.of(inventory));
        o.junit = dir.resolve("reports/fleet.xml");
        Ran r = run(o, FleetTest::planned, false);
        assertEquals(Main.CHANGES, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("=== cluster bravo ("), r.out());
        List<String> table = r.out().lines().dropWhile(l -> !l.startsWith("CLUSTER")).toList();
        assertEquals("CLUSTER  RESULT   CHANGES  REFUSALS  DRIFT  TIME", table.get(0).substring(0, 48).stripTrailing(), table.toString());
        assertTrue(table.get(2).startsWith("bravo    changes  1        0         0"), table.toString());
        assertTrue(r.out().contains("3 clusters: 2 ok, 1 changes (exit 2)"), r.out());

        Document xml = parse(o.junit);
        Element suites = xml.getDocumentElement();
        assertEquals("testsuites", suites.getTagName());
        NodeList cases = xml.getElementsByTagName("testcase");
        assertEquals(3, cases.getLength());
        NodeList failures = xml.getElementsByTagName("failure");
        assertEquals(1, failures.getLength());
        assertEquals(0, xml.getElementsByTagName("error").getLength());
        Element failure = (Element) failures.item(0);
        assertEquals("bravo", ((Element) failure.getParentNode()).getAttribute("name"));
        assertTrue(failure.getAttribute("message").contains("~ update etcd config (heartbeat-interval differs)"),
                "the failure's message is its plan: " + failure.getAttribute("message"));
        assertTrue(failure.getTextContent().contains("Plan: 1 step"), failure.getTextContent());
        assertEquals("1", ((Element) xml.getElementsByTagName("testsuite").item(0)).getAttribute("failures"));

        Ran json = run(options(List.of(dir.resolve("specs")), List.of(inventory)), FleetTest::planned, true);
        JsonNode doc = JsonOutputSchemaTest.conforms("fleet", json.out());
        assertEquals(2, doc.path("exit_code").asInt());
        assertEquals("changes", doc.path("clusters").get(1).path("result").asText());
        assertEquals(1, doc.path("summary").path("failures").asInt());
    }

    @Test
    void badInputInOneSpecIsReportedWhereItIsAndTheOthersStillRun() throws Exception {
        Files.writeString(dir.resolve("specs/b.yaml"), """
                cluster:
                  name: bravo
                members:
                  hosts: [b1]
                etcd:
                  version: 3.5.16
                  dataDir: relative/path
                """);
        List<String> worked = Collections.synchronizedList(new ArrayList<>());
        FleetOptions o = options(List.of(dir.resolve("specs")), List.of(inventory));
        o.junit = dir.resolve("fleet.xml");
        Ran r = run(o, d -> {
            worked.add(d.spec().name());
            return planned(d);
        }, false);
        assertEquals(Main.ERROR, r.exitCode());
        assertEquals(List.of("alpha", "charlie"), worked.stream().sorted().toList(), "the others still ran");
        assertTrue(r.err().contains(dir.resolve("specs/b.yaml") + ":7:12: error: etcd.dataDir: must be an absolute"), r.err());
        assertTrue(r.out().contains("invalid"), r.out());
        Document xml = parse(o.junit);
        assertEquals(3, xml.getElementsByTagName("testcase").getLength());
        assertEquals(1, xml.getElementsByTagName("error").getLength());
        assertEquals(0, xml.getElementsByTagName("failure").getLength());

        Ran json = run(options(List.of(dir.resolve("specs")), List.of(inventory)), FleetTest::planned, true);
        JsonNode doc = JsonOutputSchemaTest.conforms("fleet", json.out());
        JsonNode bad = doc.path("clusters").get(1);
        assertEquals("invalid", bad.path("result").asText());
        assertTrue(bad.path("cluster").isNull());
        assertEquals(7, bad.path("problems").get(0).path("line").asInt(), bad.toString());
    }

    @Test
    void oneClusterInTwoSpecsIsRefusedBeforeAnyHostIsContacted() throws Exception {
        spec("specs/d.yaml", "alpha", "c1");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new String[]{"plan", "-i", inventory.toString(), "-f", dir.resolve("specs").toString()},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertEquals(Main.ERROR, exit);
        assertTrue(err.toString().contains(dir.resolve("specs/d.yaml") + ":2:9: error: cluster.name: cluster alpha is also the"
                + " cluster of " + dir.resolve("specs/a.yaml")), err.toString());
        assertTrue(err.toString().contains("No host was contacted"), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void oneHostInTwoClustersIsRefusedWhateverEachInventoryCallsIt() throws Exception {
        // Another team's inventory: alias is a1's address under another name.
        Path theirs = Files.writeString(dir.resolve("theirs.yaml"), "all:\n  hosts:\n    alias: {ansible_host: 192.0.2.11}\n");
        spec("specs/c.yaml", "charlie", "alias");
        StringWriter err = new StringWriter();
        int exit = Main.run(new String[]{"status", "-i", inventory.toString(), "-f", dir.resolve("specs/a.yaml").toString(),
                        "-i", inventory.toString(), "-f", dir.resolve("specs/b.yaml").toString(),
                        "-i", theirs.toString(), "-f", dir.resolve("specs/c.yaml").toString(), "-o", "json"},
                new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        assertEquals(Main.ERROR, exit);
        assertTrue(err.toString().contains(dir.resolve("specs/c.yaml") + ":4:11: error: members: host alias (192.0.2.11:22) is also"
                + " host a1 of cluster alpha in " + dir.resolve("specs/a.yaml")), err.toString());
    }

    @Test
    void aFleetsOpenMetricsIsOneDocumentEachFamilyOnce(@TempDir Path tmp) throws Exception {
        StatusCommand.Report one = StatusMetricsTest.report(true);
        StatusCommand.Report two = StatusMetricsTest.report(false);
        DesiredState other = io.etcdwright.engine.spec.DesiredStateLoader.load(inventory, dir.resolve("specs/b.yaml"));
        two = new StatusCommand.Report(other, two.status(), true, two.clusterVersion(), two.rows(), two.alarmRows(), two.backups(),
                two.defrags(), two.rotation(), two.lock());
        String text = StatusMetrics.openMetrics(List.of(one, two), Instant.now());
        Promtool.checkMetrics(tmp, text);
        assertEquals(1, text.lines().filter(l -> l.equals("# TYPE etcdwright_cluster_healthy gauge")).count(), text);
        assertTrue(text.contains("etcdwright_cluster_healthy{cluster=\"scn\"} 0\n") && text.contains(
                "etcdwright_cluster_healthy{cluster=\"bravo\"} 1\n"), text);
        assertFalse(text.substring(0, text.length() - 6).contains("# EOF"), "one EOF, at the end");
    }
}
