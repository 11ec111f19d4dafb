package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet on real hosts (docs/fleets.md): ten 3-member clusters on 30 test hosts, two of them
 * drifted (an etcd configuration edited on a host) and one host powered off, checked in one plan run;
 * then three of them, one drifted, whose JUnit report a standard XML parser reads as three test
 * cases with exactly one failure naming the drift; status and certs over the same fleet. The clusters
 * are lean (long heartbeats, a small quota) and created side by side: 30 etcds share two cores.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetIT {
    static final int CLUSTERS = 10;
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3 * CLUSTERS);
    static final ObjectMapper JSON = new ObjectMapper();
    static String inv;
    static Path specs;
    /** The drifted clusters (by number) and the cluster whose host goes off, and that host. */
    static final int DRIFTED_A = 3;
    static final int DRIFTED_B = 7;
    static final int OFF_CLUSTER = 9;
    static final int OFF_HOST = 3 * (OFF_CLUSTER - 1) + 2;

    static String name(int cluster) {
        return String.format("f%02d", cluster);
    }

    @BeforeAll
    static void createTheClusters() throws Exception {
        inv = Testbed.INVENTORY.toString();
        specs = Files.createDirectories(HOSTS.home().resolve("fleet"));
        for (int c = 1; c <= CLUSTERS; c++) {
            int first = 3 * (c - 1) + 1;
            Files.writeString(specs.resolve(name(c) + ".yaml"), """
                    cluster:
                      name: %s
                    members:
                      hosts: [h%d, h%d, h%d]
                    etcd:
                      version: 3.5.16
                      settings:
                        heartbeat-interval: 500
                        election-timeout: 5000
                        quota-backend-bytes: 134217728
                    artifacts:
                      url: %sv{version}/etcd-v{version}-linux-{arch}.tar.gz
                      checksumsUrl: %sv{version}/SHA256SUMS
                    """.formatted(name(c), first, first + 1, first + 2, Testbed.releaseServer(), Testbed.releaseServer()));
        }
        // The first alone fills the release cache; the other nine side by side, each an apply of its own.
        assertEquals(0, apply(1).exitCode());
        ExecutorService pool = Executors.newFixedThreadPool(CLUSTERS - 1);
        try {
            List<Future<Cli.Run>> applies = new ArrayList<>();
            for (int c = 2; c <= CLUSTERS; c++) {
                int cluster = c;
                applies.add(pool.submit(() -> apply(cluster)));
            }
            for (Future<Cli.Run> a : applies) {
                Cli.Run run = a.get();
                assertEquals(0, run.exitCode(), run.all());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static Cli.Run apply(int cluster) {
        return Cli.run("apply", "-i", inv, "-f", specs.resolve(name(cluster) + ".yaml").toString(), "--yes");
    }

    /** Edits the etcd configuration on the cluster's second host, as a person in a hurry would. */
    static void drift(int cluster) {
        Testbed.ssh(3 * (cluster - 1) + 2, "sed -i 's/^heartbeat-interval: 500$/heartbeat-interval: 300/' /etc/etcd/etcd.conf.yml"
                + " && grep -q '^heartbeat-interval: 300$' /etc/etcd/etcd.conf.yml");
    }

    static Document junit(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    @Test
    @Order(1)
    void oneRunPlansTenClustersTwoDriftedAndOneWithAHostOff() throws Exception {
        drift(DRIFTED_A);
        drift(DRIFTED_B);
        Testbed.run("crash", Integer.toString(OFF_HOST));
        Path report = HOSTS.home().resolve("reports/fleet.xml");
        Cli.Run plan = Cli.run("plan", "-i", inv, "-f", specs.toString(), "--junit", report.toString());
        assertEquals(1, plan.exitCode(), "a refused cluster makes the run's exit 1");
        List<String> table = plan.out().lines().dropWhile(l -> !l.startsWith("CLUSTER ")).toList();
        assertEquals(CLUSTERS + 2, table.size(), table.toString());
        for (int c = 1; c <= CLUSTERS; c++) {
            String row = table.get(c);
            String expected = c == DRIFTED_A || c == DRIFTED_B ? "changes" : c == OFF_CLUSTER ? "refused" : "ok";
            assertTrue(row.matches(name(c) + " +" + expected + " .*"), row);
        }
        assertTrue(plan.out().contains("10 clusters: 7 ok, 2 changes, 1 refused (exit 1)"), plan.out());
        assertTrue(plan.out().contains("h" + OFF_HOST + ": unreachable"), plan.out());
        Document xml = junit(report);
        assertEquals(CLUSTERS, xml.getElementsByTagName("testcase").getLength());
        assertEquals(3, xml.getElementsByTagName("failure").getLength());
        assertEquals(0, xml.getElementsByTagName("error").getLength());
    }

    @Test
    @Order(2)
    void threeClustersOneDriftedExitTwoWithExactlyOneJunitFailureNamingTheDrift() throws Exception {
        Path report = HOSTS.home().resolve("reports/three.xml");
        Cli.Run plan = Cli.run("plan", "-i", inv, "-f", specs.resolve(name(1) + ".yaml").toString(), "-f",
                specs.resolve(name(2) + ".yaml").toString(), "-f", specs.resolve(name(DRIFTED_A) + ".yaml").toString(),
                "--junit", report.toString());
        assertEquals(2, plan.exitCode(), plan.all());
        Document xml = junit(report);
        NodeList cases = xml.getElementsByTagName("testcase");
        assertEquals(3, cases.getLength());
        NodeList failures = xml.getElementsByTagName("failure");
        assertEquals(1, failures.getLength());
        Element failure = (Element) failures.item(0);
        assertEquals(name(DRIFTED_A), ((Element) failure.getParentNode()).getAttribute("name"));
        String message = failure.getAttribute("message");
        assertTrue(message.contains("h" + (3 * (DRIFTED_A - 1) + 2) + ":") && message.contains("/etc/etcd/etcd.conf.yml (content differs)"),
                "the failure names the drift: " + message);
    }

    @Test
    @Order(3)
    void statusAndCertsGoOverTheSameFleet() throws Exception {
        Cli.Run status = Cli.run("status", "-i", inv, "-f", specs.toString(), "-o", "json");
        assertEquals(1, status.exitCode(), "one cluster has a member down");
        JsonNode doc = JSON.readTree(status.out());
        assertEquals(CLUSTERS, doc.path("clusters").size());
        for (JsonNode c : doc.path("clusters")) {
            boolean off = c.path("cluster").asText().equals(name(OFF_CLUSTER));
            assertEquals(off ? "unhealthy" : "ok", c.path("result").asText(), c.toString());
            assertEquals(off ? 2 : 3, c.path("counts").path("healthy_members").asInt(), c.toString());
            assertEquals(off ? 2 : 3, (int) java.util.stream.StreamSupport.stream(c.path("document").path("members").spliterator(), false)
                    .filter(m -> m.path("healthy").asBoolean()).count(), c.toString());
        }
        Testbed.run("boot", Integer.toString(OFF_HOST));
        Cli.Run certs = Cli.run("certs", "-i", inv, "-f", specs.toString(), "--expiring-within", "30");
        assertEquals(0, certs.exitCode(), certs.all());
        assertTrue(certs.out().contains("10 clusters: 10 ok (exit 0)"), certs.out());
    }
}
