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
 * and a host that was removed earlier joins again (its old data moved aside, not deleted). After
 * each apply, every acknowledged write is on every member, the members' stores hash the same, the
 * member list is the spec's, and a second plan has nothing to do.
 */
class ResizeIT {
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static Path home;
    static Path spec;
    static String base;

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
        resizeUnderLoad(List.of("h2", "h4", "h5"), "shrink-5-to-3");

        // h4's etcd dies; the spec drops it and takes h1 back, whose old data is moved aside.
        Testbed.ssh(4, "systemctl stop etcd");
        Cli.Run repair = resizeUnderLoad(List.of("h1", "h2", "h5"), "replace-dead-h4-by-h1");
        assertTrue(repair.out().contains("remove member h4 (down, and not in the spec)"), repair.out());
        assertTrue(repair.out().contains("move old data in /var/lib/etcd aside"), repair.out());
        assertEquals(0, Testbed.sshStatus(1, "ls -d /var/lib/etcd.before-join-*/member/wal"), "the old data is kept");
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
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        Map<String, String> after = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        WriteLoad.Report report = WriteLoad.check(after, acks);
        System.out.println("[" + name + "] " + report);
        assertTrue(report.lostNothing(), report.toString());
        assertEquals(members.size(), report.hashByMember().size(), report.toString());
        assertTrue(report.membersAgree(), report.toString());

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
