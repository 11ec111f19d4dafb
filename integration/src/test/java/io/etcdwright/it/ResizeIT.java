package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resizing and repairing a running cluster on five real hosts while writers keep writing: 1 -> 3
 * -> 5 -> 3 (the leader may be among those leaving), then a member whose etcd is dead is removed
 * and a host that was removed earlier joins again (its old data moved aside, not deleted), and a
 * member whose data directory was deleted is recovered at the same address. After
 * each apply, every acknowledged write is on every member, the members' stores hash the same, the
 * member list is the spec's, and a second plan has nothing to do.
 */
class ResizeIT {
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static Path home;
    static Path spec;
    static String base;
    static String lastApply = "";

    @BeforeAll
    static void hosts() throws Exception {
        Testbed.up(5);
        home = Testbed.freshWorkstationHome();
        base = Files.readString(Testbed.ROOT.resolve("examples/single-node.yaml")).replace("name: single", "name: resize");
        spec = home.resolve("resize.yaml");
    }

    @AfterAll
    static void cleanUp() {
        Testbed.removeEtcd(5);
        Testbed.forgetWorkstationHome();
        Testbed.down();
    }

    @Test
    void growShrinkAndReplaceUnderWritesLosingNothing() throws Exception {
        Files.writeString(spec, base);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());

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
        Testbed.ssh(Integer.parseInt(dead.substring(1)), "systemctl stop etcd");
        List<String> repaired = new ArrayList<>(stay);
        repaired.remove(dead);
        repaired.add(back);
        Cli.Run repair = resizeUnderLoad(repaired, "replace-dead-" + dead + "-by-" + back);
        assertTrue(repair.out().contains("remove member " + dead + " (down, and not in the spec)"), repair.out());
        assertTrue(repair.out().contains("move old data in /var/lib/etcd aside"), repair.out());
        assertEquals(0, Testbed.sshStatus(Integer.parseInt(back.substring(1)), "ls -d /var/lib/etcd.before-join-*/member/wal"),
                "the old data is kept");

        // A member loses its disk: the same spec brings it back as a new member at the same address.
        String wiped = repaired.get(0);
        Testbed.ssh(Integer.parseInt(wiped.substring(1)), "systemctl stop etcd && rm -rf /var/lib/etcd");
        Cli.Run recover = resizeUnderLoad(repaired, "recover-wiped-" + wiped);
        assertTrue(recover.out().contains("remove member " + wiped + " (its data directory is gone: it is removed and joins"
                + " afresh)"), recover.out());
        assertTrue(recover.out().contains("add " + wiped + " as a learner"), recover.out());

        // One verified snapshot before each of the five membership changes, private to the operator.
        try (var files = Files.list(home.resolve("clusters/resize/snapshots"))) {
            List<Path> snapshots = files.toList();
            assertEquals(5, snapshots.size(), snapshots.toString());
            for (Path snapshot : snapshots) {
                assertTrue(snapshot.getFileName().toString().matches("before-membership-change-\\d{8}T\\d{6}Z\\.db"), snapshot.toString());
                assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(snapshot)));
            }
        }
    }

    static String leader() throws Exception {
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        for (JsonNode m : status.path("members")) {
            if (m.path("leader").asBoolean()) {
                return m.path("name").asText();
            }
        }
        throw new AssertionError("no leader: " + status);
    }

    /** Changes the spec's members under a write load; returns the plan shown before the apply. */
    private static Cli.Run resizeUnderLoad(List<String> members, String name) throws Exception {
        Map<String, String> before = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Files.writeString(spec, base.replace("hosts: [h1]", "hosts: [" + String.join(", ", members) + "]"));
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(0, plan.exitCode(), plan.all());
        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.start(before, 4, LOGS.resolve(name + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, apply.exitCode(), apply.all());
            System.out.println("[" + name + "] apply:\n" + apply.out());
            lastApply = apply.out();
            assertTrue(apply.out().contains("snapshot the cluster to " + home.resolve("clusters/resize/snapshots")), apply.out());
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        Map<String, String> after = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        WriteLoad.Report report = WriteLoad.check(after, acks);
        System.out.println("[" + name + "] " + report);
        assertTrue(report.lostNothing(), report.toString());
        assertEquals(members.size(), report.hashByMember().size(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
        assertTrue(report.watchSawEachOnceInOrder(), report.toString());

        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        List<String> names = new ArrayList<>();
        for (JsonNode m : status.path("members")) {
            names.add(m.path("name").asText());
            assertTrue(!m.path("learner").asBoolean(), m.toString());
        }
        assertEquals(members.stream().sorted().toList(), names.stream().sorted().toList(), status.toString());
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "a second apply would change nothing: " + again.all());
        return plan;
    }
}
