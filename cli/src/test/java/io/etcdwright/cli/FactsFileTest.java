package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.FactsFile;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recorded facts: written, loaded, they give the same typed facts and the same cluster view; a
 * file that is not one, or is not of this spec's hosts and cluster, is refused with its name.
 * The fixtures were recorded with 'etcdwright facts -o json' from a converged 3-member test
 * cluster (etcd 3.5.16), and again with h2's etcd stopped.
 */
class FactsFileTest {
    static final List<String> HOSTS = List.of("h1", "h2", "h3");
    static final EtcdProbes PROBES = EtcdProbes.of(EtcdLayout.DEFAULT);
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    final List<ServerSocket> hosts = new java.util.ArrayList<>();
    Path inventory;
    Path spec;

    static Path fixture(String name) throws Exception {
        return Path.of(FactsFileTest.class.getResource("/facts/" + name + ".json").toURI());
    }

    @BeforeEach
    void inputs() throws Exception {
        // Every host of the inventory is a socket here: a plan that contacted one would be seen.
        StringBuilder text = new StringBuilder("all:\n  children:\n    etcd:\n      hosts:\n");
        for (String h : HOSTS) {
            ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            socket.setSoTimeout(100);
            hosts.add(socket);
            text.append("        ").append(h).append(":\n          ansible_host: 127.0.0.1\n          ansible_port: ")
                    .append(socket.getLocalPort()).append("\n          etcd_address: 10.78.0.1").append(h.substring(1))
                    .append('\n');
        }
        inventory = dir.resolve("hosts.yaml");
        Files.writeString(inventory, text.toString());
        spec = dir.resolve("three.yaml");
        Files.writeString(spec, "cluster:\n  name: three\nmembers:\n  hosts: [h1, h2, h3]\netcd:\n  version: 3.5.16\n");
    }

    @AfterEach
    void close() throws Exception {
        for (ServerSocket socket : hosts) {
            socket.close();
        }
    }

    @Test
    void writtenAndLoadedTheFactsAndTheClusterViewAreTheSame() throws Exception {
        for (String name : List.of("three-converged", "three-h2-stopped")) {
            ClusterRun.Facts recorded = load(fixture(name), HOSTS, PROBES);
            Path again = dir.resolve(name + ".json");
            Files.writeString(again, Json.write(FactsFile.document("three", Instant.now(), recorded, PROBES)));
            ClusterRun.Facts reloaded = load(again, HOSTS, PROBES);
            assertEquals(recorded.byHost(), reloaded.byHost(), name);
            assertEquals(recorded.cluster(), reloaded.cluster(), name);
            assertEquals(recorded.addresses(), reloaded.addresses(), name);
            for (String h : HOSTS) {
                var a = ((io.etcdwright.engine.facts.HostReport.Reachable) recorded.reports().get(HOSTS.indexOf(h))).facts();
                var b = ((io.etcdwright.engine.facts.HostReport.Reachable) reloaded.reports().get(HOSTS.indexOf(h))).facts();
                assertEquals(a.rawByProbe(), b.rawByProbe());
                assertEquals(a.gatherTime(), b.gatherTime());
                assertEquals(a.clockSkewMillis(), b.clockSkewMillis());
            }
        }
    }

    @Test
    void theClusterViewComesFromTheRecordedAnswers() throws Exception {
        ClusterStatus converged = load(fixture("three-converged"), HOSTS, PROBES).cluster().orElseThrow();
        assertTrue(converged.allHealthy());
        assertEquals(List.of("h1", "h2", "h3"), converged.members().stream().map(MemberStatus::name).sorted().toList());
        assertEquals("h2", converged.leader().orElseThrow().name());
        assertEquals(java.util.Optional.of("3.5.0"), converged.clusterVersion());

        ClusterStatus drifted = load(fixture("three-h2-stopped"), HOSTS, PROBES).cluster().orElseThrow();
        assertTrue(drifted.quorum());
        assertTrue(drifted.leader().isPresent(), "h1 or h3 took over from h2");
        assertFalse(drifted.leader().orElseThrow().name().equals("h2"));
        MemberStatus h2 = drifted.members().stream().filter(m -> m.name().equals("h2")).findFirst().orElseThrow();
        assertFalse(h2.healthy());
        assertEquals(java.util.Optional.of("etcd is not running on h2 (inactive)"), h2.error());
    }

    @Test
    void theViewDerivedOfflineIsTheOneRecordedLive() throws Exception {
        for (String name : List.of("three-converged", "three-h2-stopped")) {
            JsonNode recorded = JSON.readTree(fixture(name).toFile()).path("cluster_facts");
            ClusterStatus derived = load(fixture(name), HOSTS, PROBES).cluster().orElseThrow();
            assertEquals(recorded, JSON.readTree(Json.write(FactsFile.clusterView(derived))), name);
        }
    }

    @Test
    void noSecretIsRecorded() throws Exception {
        for (String name : List.of("three-converged", "three-h2-stopped")) {
            String text = Files.readString(fixture(name));
            assertFalse(text.contains("PRIVATE KEY"), name);
            JsonNode doc = JSON.readTree(text);
            for (JsonNode h : doc.path("hosts")) {
                String files = h.path("probes").path("etcd_files").asText();
                for (String line : files.split("\n")) {
                    if (line.startsWith("content=")) {
                        String content = new String(Base64.getDecoder().decode(line.substring(8)), StandardCharsets.UTF_8);
                        assertFalse(content.contains("PRIVATE KEY"), name + ": " + h.path("host"));
                    }
                }
            }
        }
    }

    @Test
    void badFilesAreRefusedWithTheirName() throws Exception {
        assertRefused(write("not-json", "{\"format\": \"etcdwright-facts/1\",\n  \"hosts\": [\n  oops]}"),
                ":3:7: error: is not a facts file (not JSON");
        assertRefused(write("array", "[]"), ":1:1: error: is not a facts file written by 'etcdwright facts -o json'");
        assertRefused(edit("format", d -> d.put("format", "etcdwright-facts/9")),
                "error: format: is \"etcdwright-facts/9\", expected \"etcdwright-facts/1\"");
        assertRefused(edit("other-cluster", d -> d.put("cluster", "five")),
                "error: cluster: the facts are of cluster five, this plan is for cluster three");
        assertRefused(edit("no-cluster", d -> d.putNull("cluster")),
                "error: cluster: the facts were recorded without -f SPEC");
        assertRefused(edit("missing-host", d -> ((ArrayNode) d.path("hosts")).remove(2)),
                "error: hosts: no facts of h3 (a member host of the spec)");
        assertRefused(edit("twice", d -> ((ArrayNode) d.path("hosts")).add(d.path("hosts").get(0).deepCopy())),
                "error: hosts[3].host: host h1 is listed twice");
        assertRefused(edit("missing-probe", d -> ((ObjectNode) d.path("hosts").get(1).path("probes")).remove("etcd_member")),
                "error: hosts[h2].probes.etcd_member: is missing");
        assertRefused(dir.resolve("absent.json"), ":1:1: error: no such file");
        Path binary = dir.resolve("binary.json");
        Files.write(binary, new byte[]{(byte) 0xff, (byte) 0xfe, 0});
        assertRefused(binary, "error: is not UTF-8 text");
    }

    @Test
    void factsRecordedForOtherPathsAreRefusedNotMisread() throws Exception {
        EtcdProbes elsewhere = EtcdProbes.of(new EtcdLayout("/srv/etcd", 2379, 2380));
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> load(fixture("three-converged"), HOSTS, elsewhere));
        assertTrue(e.getMessage().contains("hosts[h1].probe_arguments.etcd_host_setup: the facts were recorded for"
                + " [/etc/etcd, /etc/etcd/pki, /var/lib/etcd], this spec asks for [/etc/etcd, /etc/etcd/pki, /srv/etcd]"
                + " (other paths or ports): record them again"), e.getMessage());
    }

    @Test
    void anUnreachableHostInTheFileIsRefusedAsALivePlanWould() throws Exception {
        Path file = edit("unreachable", d -> {
            ObjectNode h3 = JSON.createObjectNode();
            h3.put("host", "h3").put("address", "10.78.0.13").put("reachable", false).put("reason", "timeout")
                    .put("message", "SSH connection to 10.78.0.13:22 timed out");
            ((ArrayNode) d.path("hosts")).set(2, h3);
        });
        ClusterRun.Facts facts = load(file, HOSTS, PROBES);
        assertEquals(java.util.Map.of("h3", "SSH connection to 10.78.0.13:22 timed out"), facts.unreachable());
        Result r = run("plan", "-i", inventory.toString(), "-f", spec.toString(), "--facts", file.toString());
        assertEquals(1, r.code, r.err);
        assertTrue(r.out.contains("h3: unreachable (SSH connection to 10.78.0.13:22 timed out)"), r.out);
        assertTrue(r.out.contains("What to do: bring the host back"), r.out);
        assertNoHostContacted();
    }

    @Test
    void planWithABadFactsFileExitsOneAndContactsNoHost() throws Exception {
        Path file = edit("missing-host", d -> ((ArrayNode) d.path("hosts")).remove(2));
        Result r = run("plan", "-i", inventory.toString(), "-f", spec.toString(), "--facts", file.toString());
        assertEquals(1, r.code, r.err);
        assertTrue(r.err.startsWith(file + ":1:1: error: hosts: no facts of h3"), r.err + r.out);
        assertNoHostContacted();
    }

    @Test
    void applyRefusesRecordedFacts() throws Exception {
        Result r = run("apply", "-i", inventory.toString(), "-f", spec.toString(), "--facts",
                fixture("three-converged").toString(), "--yes");
        assertEquals(1, r.code, r.err);
        assertTrue(r.err.contains("apply does not take --facts"), r.err);
        assertNoHostContacted();
    }

    /** The spec lists h1 and h2 only: h3, still a member, is leaving and answers for itself from its recorded facts. */
    @Test
    void aLeavingMembersRecordedAnswerCountsAndIsRequired() throws Exception {
        ClusterRun.Facts facts = load(fixture("three-converged"), List.of("h1", "h2"), PROBES);
        assertEquals(java.util.Set.of("h1", "h2"), facts.byHost().keySet());
        ClusterStatus c = facts.cluster().orElseThrow();
        assertTrue(c.allHealthy(), c.toString());
        assertEquals(3, facts.reports().size());

        Path file = edit("no-h3", d -> ((ArrayNode) d.path("hosts")).remove(2));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load(file, List.of("h1", "h2"), PROBES));
        assertTrue(e.getMessage().contains("no facts of h3, where the cluster lists a member the spec does not"), e.getMessage());
    }

    /**
     * Recorded with h2 and h3 stopped and a spec of h1 and h2: h1 alone has no quorum, etcdctl's
     * linearizable member list fails, the serializable one from the gateway stands in; h3 (leaving)
     * was asked too, and says it does not run.
     */
    @Test
    void withoutQuorumTheMemberListStillComesAndTheLeavingHostAnswers() throws Exception {
        ClusterRun.Facts facts = load(fixture("three-no-quorum-h3-leaving"), List.of("h1", "h2"), PROBES);
        ClusterStatus c = facts.cluster().orElseThrow();
        assertFalse(c.quorum());
        assertTrue(c.leader().isEmpty());
        assertEquals(3, c.members().size());
        assertEquals(java.util.Map.of("h1", "reports: etcdserver: no leader", "h2", "etcd is not running on h2 (inactive)",
                        "h3", "etcd is not running on h3 (inactive)"),
                c.members().stream().collect(java.util.stream.Collectors.toMap(MemberStatus::name, m -> m.error().orElseThrow())));
        assertEquals(java.util.Set.of("h1", "h2"), facts.byHost().keySet());
    }

    @Test
    void hostsThatHoldClientFilesWithoutAMemberAreRecordedAndLoadedWithTheirOneProbe() throws Exception {
        var probe = io.etcdwright.modules.pki.ClientHostFacts.PROBE;
        String pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        String raw = "@file 0\nmeta=644 root root 1795297500.520641\nsha256=" + "ab".repeat(32) + "  -\ncontent="
                + Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8)) + "\n@file 1\n@file 2\n@file 3\n"
                + "meta=644 root root 1795297500.520641\nsha256=" + "cd".repeat(32) + "  -\n@file 4\n"
                + "meta=600 root root 1795297500.520641\nsha256=" + "ef".repeat(32) + "  -\n";
        var h4 = new io.etcdwright.engine.facts.HostReport.Reachable(new io.etcdwright.engine.facts.HostFacts("h4",
                java.util.Map.of(probe.name(), probe.parse(raw)), java.util.Map.of(probe.name(), raw), java.time.Duration.ZERO, 0));
        var h5 = new io.etcdwright.engine.facts.HostReport.Unreachable("h5", io.etcdwright.engine.ssh.SshException.Reason.TIMEOUT,
                "connection timed out");
        ClusterRun.Facts recorded = load(fixture("three-converged"), HOSTS, PROBES).withClientHosts(List.of(h4, h5));
        Path again = dir.resolve("with-client-hosts.json");
        Files.writeString(again, Json.write(FactsFile.document("three", Instant.now(), recorded, PROBES)));
        JsonNode doc = new ObjectMapper().readTree(again.toFile());
        assertEquals(List.of("h4", "h5"), List.of(doc.path("client_hosts").get(0).path("host").asText(),
                doc.path("client_hosts").get(1).path("host").asText()));
        var clients = load(again, HOSTS, PROBES).clientHosts();
        assertEquals(java.util.Set.of("h4"), clients.files().keySet());
        var files = clients.files().get("h4");
        assertEquals(pem, files.get("/etc/etcd/pki/ca.crt").content().orElseThrow());
        assertFalse(files.get("/etc/etcd/pki/admin.key").exists());
        assertEquals("600", files.get("/etc/etcd/pki/kube-apiserver-etcd-client.key").mode());
        assertTrue(files.get("/etc/etcd/pki/kube-apiserver-etcd-client.key").content().isEmpty(), "a key is recorded by digest only");
        assertEquals(java.util.Map.of("h5", "connection timed out"), clients.unreachable());
    }

    private ClusterRun.Facts load(Path file, List<String> members, EtcdProbes probes) {
        var inv = io.etcdwright.engine.inventory.InventoryLoader.load(inventory);
        return FactsFile.load(file, "three", members.stream().map(h -> inv.hosts().get(h)).toList(), inv.hosts(), probes);
    }

    private void assertNoHostContacted() throws Exception {
        for (ServerSocket host : hosts) {
            try (var ignored = host.accept()) {
                throw new AssertionError("a host was contacted");
            } catch (SocketTimeoutException expected) {
                // nobody knocked
            }
        }
    }

    private void assertRefused(Path file, String expected) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load(file, HOSTS, PROBES));
        String message = e.problems().get(0).toString();
        assertTrue(message.startsWith(file.toString() + ":"), message);
        assertTrue(message.contains(expected), message);
    }

    private Path write(String name, String text) throws Exception {
        Path file = dir.resolve(name + ".json");
        Files.writeString(file, text);
        return file;
    }

    private Path edit(String name, Consumer<ObjectNode> change) throws Exception {
        ObjectNode doc = (ObjectNode) JSON.readTree(fixture("three-converged").toFile());
        change.accept(doc);
        return write(name, JSON.writeValueAsString(doc));
    }

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }
}
