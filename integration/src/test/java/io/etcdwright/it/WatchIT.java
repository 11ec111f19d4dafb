package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright watch on three real hosts: a member an operator stopped ({@code systemctl stop}, which
 * systemd does not undo) is started by the next cycle; {@code watch suspend} holds it stopped and
 * {@code status} names who suspended it and why, {@code resume} lets the next cycle start it; a spec
 * edit to another version is held as {@code change} with the apply command, and nothing is done;
 * a member whose data directory was emptied is held as {@code repair} until {@code repairAfter},
 * then re-joined by the running watcher (its old data moved aside, never deleted) under the write
 * load, no acknowledged write lost and the recorded client history linearizable. Every action and
 * held step is checked in the watcher's event log.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WatchIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static final ObjectMapper JSON = new ObjectMapper();
    static Path spec;
    static String base;

    @BeforeAll
    static void cluster() throws Exception {
        base = Testbed.example("three-node.yaml").replace("name: three", "name: watched")
                + "automation:\n  repairAfterMinutes: 1\n  intervalSeconds: 5\n";
        spec = HOSTS.home().resolve("watched.yaml");
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
    }

    @Test
    @Order(1)
    void aStoppedMemberIsStartedByTheNextCycleAndSuspendHoldsIt() throws Exception {
        Path events = HOSTS.home().resolve("once.jsonl");
        Testbed.ssh(2, "systemctl stop etcd");
        Cli.Run cycle = Cli.run("watch", "-i", INV, "-f", spec.toString(), "--once", "--event-log", events.toString());
        assertEquals(0, cycle.exitCode(), cycle.all());
        assertEquals("active", Testbed.ssh(2, "systemctl is-active etcd || true").strip(), cycle.all());
        JsonNode start = only(events, e -> e.path("outcome").asText().equals("changed"));
        assertEquals("h2/start", start.path("step").asText(), start.toString());
        assertEquals("routine", start.path("safety").asText(), start.toString());
        assertEquals("watched-1", start.path("cycle").asText(), start.toString());

        Cli.Run suspend = Cli.run("watch", "suspend", "-i", INV, "-f", spec.toString(), "--reason", "disk check on h2");
        assertEquals(0, suspend.exitCode(), suspend.all());
        Testbed.ssh(2, "systemctl stop etcd");
        Cli.Run held = Cli.run("watch", "-i", INV, "-f", spec.toString(), "--once", "--event-log", events.toString());
        assertEquals(2, held.exitCode(), held.all());
        assertTrue(held.out().contains("disk check on h2"), held.out());
        assertEquals("inactive", Testbed.ssh(2, "systemctl is-active etcd || true").strip(), "a suspended watcher started h2");
        Cli.Run status = Cli.run("status", "-i", INV, "-f", spec.toString());
        assertTrue(status.all().contains("suspended by ") && status.all().contains("disk check on h2"), status.all());

        assertEquals(0, Cli.run("watch", "resume", "-i", INV, "-f", spec.toString()).exitCode());
        Cli.Run resumed = Cli.run("watch", "-i", INV, "-f", spec.toString(), "--once", "--event-log", events.toString());
        assertEquals(0, resumed.exitCode(), resumed.all());
        assertEquals("active", Testbed.ssh(2, "systemctl is-active etcd || true").strip(), resumed.all());
    }

    @Test
    @Order(2)
    void aSpecEditToAnotherVersionIsHeldWithTheApplyCommand() throws Exception {
        Path events = HOSTS.home().resolve("change.jsonl");
        Files.writeString(spec, base.replace("version: 3.5.16", "version: " + Testbed.newestRelease("3.5")));
        try {
            Cli.Run held = Cli.run("watch", "-i", INV, "-f", spec.toString(), "--once", "--event-log", events.toString());
            assertEquals(2, held.exitCode(), held.all());
            List<JsonNode> lines = read(events);
            assertFalse(lines.isEmpty(), held.all());
            assertTrue(lines.stream().allMatch(e -> e.path("outcome").asText().equals("held")), lines.toString());
            assertTrue(lines.stream().anyMatch(e -> e.path("safety").asText().equals("change")
                    && e.path("command").asText().startsWith("etcdwright apply -i ")), lines.toString());
            // watch status says the same, and runs nothing: its document as its schema says.
            Cli.Run watchStatus = Cli.run("watch", "status", "-i", INV, "-f", spec.toString(), "-o", "json");
            assertEquals(2, watchStatus.exitCode(), watchStatus.all());
            assertEquals(List.of(), io.etcdwright.engine.source.SchemaCheck.check(io.etcdwright.engine.source.YamlDocument.parse(
                    Path.of("watch-status.json"), watchStatus.out()), "/schemas/watch-status.schema.json"), watchStatus.out());
            JsonNode cluster = JSON.readTree(watchStatus.out()).path("clusters").path(0);
            assertEquals("Held", cluster.path("condition").asText(), cluster.toString());
            assertTrue(cluster.path("runs_next").isEmpty(), cluster.toString());
            assertEquals("not-allowed-class", cluster.path("held").path(0).path("kind").asText(), cluster.toString());
            assertEquals("change", cluster.path("held").path(0).path("safety").asText(), cluster.toString());
            Cli.Run status = Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json");
            for (JsonNode m : JSON.readTree(status.out()).path("members")) {
                assertEquals("3.5.16", m.path("version").asText(), "a held change was applied: " + m);
            }
        } finally {
            Files.writeString(spec, base);
        }
    }

    @Test
    @Order(3)
    void anEmptiedMemberIsHeldUntilRepairAfterThenRejoinedLosingNoWrite() throws Exception {
        Path events = HOSTS.home().resolve("repair.jsonl");
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        WriteLoad.Acks acks;
        long heldAt;
        long repairedAt;
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("watch-repair.acks"));
             Cli.Launched watcher = Cli.Launched.start(HOSTS.home(), "watch", "-i", INV, "-f", spec.toString(),
                     "--event-log", events.toString())) {
            load.awaitMore(100, Duration.ofSeconds(60));
            // Suspended while the disk is "replaced": between the stop and the wipe, a cycle would rightly start a
            // member that is only stopped, and the test would race the watcher.
            assertEquals(0, Cli.run("watch", "suspend", "-i", INV, "-f", spec.toString(), "--reason", "h3's disk replaced").exitCode());
            // A cycle that says so has read it; cycles run one after another, so none that has not is still under way.
            watcher.await(Pattern.compile("Suspended: .*h3's disk replaced"), Duration.ofSeconds(60));
            Testbed.ssh(3, "systemctl stop etcd && rm -rf /var/lib/etcd/member");
            assertEquals(0, Cli.run("watch", "resume", "-i", INV, "-f", spec.toString()).exitCode());
            watcher.await(Pattern.compile("(?m)^\\S+ watched-\\d+: .*[Hh]eld.*repair"), Duration.ofSeconds(60));
            heldAt = System.nanoTime();
            JsonNode held = first(events, e -> e.path("outcome").asText().equals("held") && e.path("safety").asText().equals("repair"));
            assertTrue(held.path("reason").asText().contains("repairAfter"), held.toString());
            assertEquals(1, Testbed.sshStatus(3, "test -d /var/lib/etcd/member"), "repaired before repairAfter");
            // Healthy again after the hold (the watcher said Healthy before the wipe too).
            watcher.await(Pattern.compile("(?s)Held: [^\\n]*repair.*\\n\\S+ watched-\\d+: Healthy"), Duration.ofMinutes(4));
            repairedAt = System.nanoTime();
            load.awaitMore(100, Duration.ofSeconds(60));
            acks = load.stop();
        }
        assertTrue(Duration.ofNanos(repairedAt - heldAt).toSeconds() >= 40, "repaired well before repairAfter (1 min)");
        List<JsonNode> ran = new ArrayList<>(read(events).stream().filter(e -> !e.path("outcome").asText().equals("held")).toList());
        assertTrue(ran.stream().allMatch(e -> e.path("safety").asText().equals("repair") || e.path("safety").asText().equals("routine")),
                ran.toString());
        assertTrue(ran.stream().noneMatch(e -> e.path("outcome").asText().equals("failed")), ran.toString());
        assertEquals(0, Testbed.sshStatus(3, "ls -d /var/lib/etcd.before-join-* >/dev/null 2>&1 || ls -d /var/lib/etcd/member"),
                "the member is back");
        WriteLoad.checkNothingLost(env, acks, "watch-repair", 3);
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
    }

    private static List<JsonNode> read(Path events) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        if (!Files.exists(events)) {
            return lines;
        }
        for (String line : Files.readAllLines(events)) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    private static JsonNode only(Path events, java.util.function.Predicate<JsonNode> which) throws Exception {
        List<JsonNode> found = read(events).stream().filter(which).toList();
        assertEquals(1, found.size(), "events: " + read(events));
        return found.get(0);
    }

    private static JsonNode first(Path events, java.util.function.Predicate<JsonNode> which) throws Exception {
        return read(events).stream().filter(which).findFirst().orElseThrow(() -> new AssertionError("no such event in "
                + events + ": " + safeRead(events)));
    }

    private static String safeRead(Path events) {
        try {
            return read(events).toString();
        } catch (Exception e) {
            return e.toString();
        }
    }
}
