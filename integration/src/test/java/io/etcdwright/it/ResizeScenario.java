package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resizing and repairing a running cluster on real hosts while writers keep writing, run once per
 * etcd minor ({@link Resize36IT}, {@link Resize34IT}): 1 -> 3 -> 5 -> 3 with the leader among those
 * leaving; a member whose etcd is dead is removed and a host that left earlier joins again (its old
 * data moved aside, not deleted); a member whose data directory was deleted is recovered at the same
 * address; a member whose host crashed for good is replaced by a brand-new host; a change that would
 * break quorum is refused, naming the members, with nothing touched; and finally 3 -> 1. After each
 * apply, every acknowledged write is on every member (and in a linearizable read and a watch), the
 * members' stores hash the same, the member list is the spec's with no learner left, an independent
 * etcdctl finds every endpoint healthy, and a second plan has nothing to do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ResizeScenario {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(5);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    private Path spec;
    private String base;
    private Etcdctl etcdctl;
    private String lastApply = "";
    /** client-env of the cluster as the last change left it (the spec may since name a host the inventory lost). */
    private Map<String, String> clientEnv;

    /** The etcd release the cluster runs, as the testbed serves it. */
    abstract String version();

    @BeforeAll
    void hosts() throws Exception {
        String name = "resize-" + version().replace('.', '-');
        base = Testbed.example("single-node.yaml").replace("name: single", "name: " + name)
                .replace("version: 3.5.16", "version: " + version());
        spec = HOSTS.home().resolve(name + ".yaml");
        etcdctl = Etcdctl.unpack(Testbed.scratch("etcdctl-" + version()), version());
    }

    @Test
    void growShrinkReplaceAndRecoverUnderWritesLosingNothing() throws Exception {
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        if (version().startsWith("3.4.")) {
            memberWithoutGatewayIsAskedWithEtcdctl();
        }

        resizeUnderLoad(List.of("h1", "h2", "h3"), "grow-1-to-3");
        Cli.Run planOut = resizeUnderLoad(List.of("h1", "h2", "h3", "h4", "h5"), "grow-3-to-5");
        assertTrue(planOut.out().contains("add h4 as a learner"), planOut.out());
        // Shrink to three without the leader: it hands leadership off and leaves last.
        String leader = leader();
        List<String> stay = new ArrayList<>(List.of("h1", "h2", "h3", "h4", "h5"));
        stay.remove(leader);
        stay.remove(leader.equals("h3") ? "h1" : "h3");
        lastApply = "";
        resizeUnderLoad(stay, "shrink-5-to-3-without-leader-" + leader);
        assertTrue(lastApply.contains("leadership moved from " + leader), lastApply);

        // One member's etcd dies; the spec drops it and takes back a host that left before, whose
        // old data is moved aside.
        String dead = stay.get(0);
        String back = leader;
        Testbed.ssh(index(dead), "systemctl stop etcd");
        List<String> repaired = new ArrayList<>(stay);
        repaired.remove(dead);
        repaired.add(back);
        Cli.Run repair = resizeUnderLoad(repaired, "replace-dead-" + dead + "-by-" + back);
        assertTrue(repair.out().contains("remove member " + dead + " (down, and not in the spec)"), repair.out());
        assertTrue(repair.out().contains("move old data in /var/lib/etcd aside"), repair.out());
        assertEquals(0, Testbed.sshStatus(index(back), "ls -d /var/lib/etcd.before-join-*/member/wal"),
                "the old data is kept");

        // A member loses its disk: the same spec brings it back as a new member at the same address.
        String wiped = repaired.get(0);
        Testbed.ssh(index(wiped), "systemctl stop etcd && rm -rf /var/lib/etcd");
        Cli.Run recover = resizeUnderLoad(repaired, "recover-wiped-" + wiped);
        assertTrue(recover.out().contains("remove member " + wiped + " (its data directory is gone: it is removed and joins"
                + " afresh)"), recover.out());
        assertTrue(recover.out().contains("add " + wiped + " as a learner"), recover.out());

        // A member's host crashes for good and leaves the inventory; a brand-new host takes its place.
        // The new host is added first, so it is h6 whichever host crashes (a removed number is reused).
        String crashed = repaired.get(1);
        Testbed.add(1);
        String fresh = "h6";
        Testbed.remove(index(crashed));
        List<String> replaced = new ArrayList<>(repaired);
        replaced.set(replaced.indexOf(crashed), fresh);
        Cli.Run replace = resizeUnderLoad(replaced, "replace-crashed-" + crashed + "-by-" + fresh);
        assertTrue(replace.out().contains("remove member " + crashed + " (down, and not in the spec)"), replace.out());
        assertTrue(replace.out().contains("add " + fresh + " as a learner"), replace.out());

        refusedWithoutQuorum(replaced);

        // 3 -> 1: followers leave, and the one that stays ends up leading alone.
        resizeUnderLoad(List.of(replaced.get(0)), "shrink-3-to-1");

        // One verified snapshot before each of the seven membership changes (none for the refused
        // one), private to the operator.
        try (var files = Files.list(HOSTS.home().resolve("clusters/" + spec.getFileName().toString().replace(".yaml", "")
                + "/snapshots"))) {
            List<Path> snapshots = files.toList();
            assertEquals(7, snapshots.size(), snapshots.toString());
            for (Path snapshot : snapshots) {
                assertTrue(snapshot.getFileName().toString().matches("before-membership-change-\\d{8}T\\d{6}Z\\.db"), snapshot.toString());
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(snapshot)));
            }
        }
    }

    /**
     * A 3.4 member started from a config file without {@code enable-grpc-gateway: true} (as etcdwright
     * wrote it before) answers '404 page not found' on /v3/...: the facts script asks it with etcdctl
     * instead, so the plan sees a healthy member whose config lacks one line (not a member that is
     * down), writes it, restarts, and then has nothing to do.
     */
    private void memberWithoutGatewayIsAskedWithEtcdctl() throws Exception {
        Testbed.ssh(1, "sed -i '/^enable-grpc-gateway:/d' /etc/etcd/etcd.conf.yml && systemctl restart etcd");
        assertTrue(Testbed.ssh(1, "curl -s -X POST -d '{}' --cacert /etc/etcd/pki/ca.crt --cert /etc/etcd/pki/healthcheck-client.crt"
                + " --key /etc/etcd/pki/healthcheck-client.key https://127.0.0.1:2379/v3/maintenance/status || true")
                .contains("404"), "etcd 3.4 serves no gateway without the line");
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode", "--diff");
        assertEquals(2, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("write /etc/etcd/etcd.conf.yml") && plan.out().contains("+enable-grpc-gateway: true"),
                plan.out());
        for (String wrong : List.of("unreachable", "not running", "bootstrap", "add h1", "refuse")) {
            assertFalse(plan.out().toLowerCase(java.util.Locale.ROOT).contains(wrong), wrong + " in:\n" + plan.out());
        }
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
    }

    /**
     * Two of three voters down: removing one of them would need the quorum the cluster no longer
     * has. Plan and apply refuse, name the members, and change nothing; once they are back, the
     * same members remain.
     */
    private void refusedWithoutQuorum(List<String> members) throws Exception {
        String down1 = members.get(1);
        String down2 = members.get(2);
        Testbed.ssh(index(down1), "systemctl stop etcd");
        Testbed.ssh(index(down2), "systemctl stop etcd");
        try {
            Files.writeString(spec, base.replace("hosts: [h1]", "hosts: [" + members.get(0) + ", " + down1 + "]"));
            for (String command : List.of("plan", "apply")) {
                Cli.Run refused = command.equals("plan") ? Cli.run("plan", "-i", INV, "-f", spec.toString())
                        : Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
                assertEquals(1, refused.exitCode(), refused.all());
                assertTrue(refused.all().contains(down1) && refused.all().contains(down2), "names the members: " + refused.all());
                assertFalse(refused.all().contains("RECAP"), "nothing ran: " + refused.all());
            }
        } finally {
            Testbed.ssh(index(down1), "systemctl start etcd");
            Testbed.ssh(index(down2), "systemctl start etcd");
        }
        Files.writeString(spec, base.replace("hosts: [h1]", "hosts: [" + String.join(", ", members) + "]"));
        awaitHealthy(members);
    }

    private void awaitHealthy(List<String> members) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode status;
        do {
            status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
            if (status.path("healthy").asBoolean() && status.path("members").size() == members.size()) {
                return;
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("not healthy with " + members + " again: " + status);
    }

    private String leader() throws Exception {
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        for (JsonNode m : status.path("members")) {
            if (m.path("leader").asBoolean()) {
                return m.path("name").asText();
            }
        }
        throw new AssertionError("no leader: " + status);
    }

    private static int index(String host) {
        return Integer.parseInt(host.substring(1));
    }

    /**
     * Changes the spec's members under a write load; returns the plan shown before the apply. The
     * writers use the endpoints client-env listed after the previous change: a crashed host's among
     * them is never ready, and round-robin passes it by.
     */
    private Cli.Run resizeUnderLoad(List<String> members, String name) throws Exception {
        Map<String, String> before = clientEnv != null ? clientEnv
                : Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Files.writeString(spec, base.replace("hosts: [h1]", "hosts: [" + String.join(", ", members) + "]"));
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.startRecorded(before, 4, LOGS.resolve(version() + "-" + name + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, apply.exitCode(), apply.all());
            System.out.println("[" + name + "] apply:\n" + apply.out());
            lastApply = apply.out();
            assertTrue(apply.out().contains("snapshot the cluster to " + HOSTS.home().resolve("clusters")), apply.out());
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        Map<String, String> after = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        clientEnv = after;
        WriteLoad.checkNothingLost(after, acks, version() + " " + name, members.size());

        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        List<String> names = new ArrayList<>();
        for (JsonNode m : status.path("members")) {
            names.add(m.path("name").asText());
            assertFalse(m.path("learner").asBoolean(), m.toString());
            assertEquals(version(), m.path("version").asText(), m.toString());
        }
        assertEquals(members.stream().sorted().toList(), names.stream().sorted().toList(), status.toString());
        // Upstream's etcdctl, set up only from client-env, agrees: every endpoint healthy.
        Testbed.Result health = etcdctl.run(after, "endpoint", "health");
        assertEquals(0, health.exitCode(), health.stdout() + health.stderr());
        // etcdctl 3.4 prints the verdicts on stderr, 3.5 on stdout.
        String verdicts = health.stdout() + health.stderr();
        assertEquals(members.size(), verdicts.lines().filter(l -> l.contains("is healthy")).count(), verdicts);
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "a second apply would change nothing: " + again.all());
        return plan;
    }
}
