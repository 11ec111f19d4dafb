package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
 * An apply killed (SIGKILL, as a lost laptop or a killed CI runner) right after each kind of
 * membership step converges when run again, under writes and losing none: after a learner was
 * added but before it started; after it started but before its promotion; after leadership was
 * handed off but before the old leader was removed; after a promotion; after a removal. The next
 * apply finds the half-done change by peer URL and finishes it; the member list ends as the
 * spec's, with no learner left and a second plan empty.
 */
class MembershipInterruptedIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static Path spec;
    static String base;

    @BeforeAll
    static void hosts() throws Exception {
        base = Testbed.example("single-node.yaml").replace("name: single", "name: interrupted");
        spec = HOSTS.home().resolve("interrupted.yaml");
    }

    @Test
    void anApplyKilledAtEachMembershipStepConvergesOnTheNextRun() throws Exception {
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());

        killedThenConverged(List.of("h1", "h2"), "add h2 as a learner: changed", true);
        killedThenConverged(List.of("h1", "h2", "h3"), "start etcd, joining the running cluster: changed", true);
        String leader = leader();
        List<String> withoutLeader = new ArrayList<>(List.of("h1", "h2", "h3"));
        withoutLeader.remove(leader);
        killedThenConverged(withoutLeader, "hand leadership from " + leader + " to another voter: changed", true);
        // After the promotion only the final health wait was left: a plan has nothing to change.
        killedThenConverged(List.of("h1", "h2", "h3"), "promote " + leader + " to a voting member: changed", false);
        // After the removal only stopping and disabling h3's etcd is left, and the killed apply may
        // or may not have got to it: either way the next apply must leave it stopped, disabled and
        // with its data.
        killedThenConverged(List.of("h1", "h2"), "remove member h3: changed", null);
        assertTrue(Testbed.sshStatus(3, "systemctl is-active --quiet etcd") != 0, "the removed member's etcd is stopped");
        assertTrue(Testbed.sshStatus(3, "systemctl is-enabled --quiet etcd") != 0, "and disabled, so no boot starts it");
        assertEquals(0, Testbed.sshStatus(3, "test -d /var/lib/etcd/member/wal"), "its data is kept");
    }

    /**
     * Applies {@code members} under writes, kills the apply once {@code killAfter} is printed, applies
     * again. {@code workLeft}: whether a change remains after the kill point (a plan then says so);
     * null where that depends on how far the killed apply got.
     */
    private static void killedThenConverged(List<String> members, String killAfter, Boolean workLeft) throws Exception {
        String name = "killed-after-" + killAfter.replaceAll("[^a-z0-9]+", "-");
        Map<String, String> before = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Files.writeString(spec, base.replace("hosts: [h1]", "hosts: [" + String.join(", ", members) + "]"));
        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.startRecorded(before, 4, LOGS.resolve(name + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            String seen;
            try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
                seen = apply.killAfter(Pattern.compile(Pattern.quote(killAfter)), Duration.ofMinutes(3));
            }
            assertTrue(seen.contains(killAfter), "the kill point was reached: " + seen);
            assertFalse(seen.contains("RECAP"), "the first apply must not have finished: " + seen);

            Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
            if (workLeft == null) {
                assertTrue(plan.exitCode() == 0 || plan.exitCode() == 2, plan.all());
            } else {
                assertEquals(workLeft ? 2 : 0, plan.exitCode(), (workLeft ? "work is left after the kill: " : "nothing is left: ")
                        + plan.all());
            }
            Cli.Run second = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, second.exitCode(), second.all());
            // A learner among the members (a join killed before its promotion) refuses leases and
            // writes: the lock must still be the cluster's, which another workstation's run sees.
            assertTrue(second.out().contains("Lock: held (key /etcdwright/lock/interrupted"), second.out());
            assertFalse(second.out().contains("move old data"), "a half-joined member keeps its data: " + second.out());
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        Map<String, String> after = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        WriteLoad.checkNothingLost(after, acks, name, members.size());

        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        List<String> names = new ArrayList<>();
        for (JsonNode m : status.path("members")) {
            names.add(m.path("name").asText());
            assertFalse(m.path("learner").asBoolean(), m.toString());
        }
        assertEquals(members.stream().sorted().toList(), names.stream().sorted().toList(), status.toString());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());
    }

    private static String leader() throws Exception {
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        for (JsonNode m : status.path("members")) {
            if (m.path("leader").asBoolean()) {
                return m.path("name").asText();
            }
        }
        throw new AssertionError("no leader: " + status);
    }

}
