package io.etcdwright.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One run at a time, on real hosts. Two creates started together from one workstation (the cluster
 * does not run yet: the workstation's lock decides), then two applies started together from two
 * workstations (only the lock in the cluster's etcd can decide): each time one runs and the other is
 * refused at once, naming the holder. A holder SIGKILLed on this machine is taken over at once (its
 * process is provably gone); one elsewhere keeps the lock until its lease runs out ({@code --lock-timeout}
 * waits for that), or until 'etcdwright unlock' removes it; plan never takes it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LockIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static Path spec;

    @BeforeAll
    static void hosts() throws Exception {
        Testbed.removeEtcd(3);
        spec = HOSTS.home().resolve("locked.yaml");
        Files.writeString(spec, Testbed.example("three-node.yaml").replace("name: three", "name: locked"));
    }

    @AfterAll
    static void cleanUp() {
        Testbed.removeEtcd(3);
    }

    /** The two runs' results: exactly one succeeded, the other was refused; returns the refused one's output. */
    private static String oneRanOneRefused(Cli.Run a, Cli.Run b) {
        List<Cli.Run> runs = List.of(a, b);
        long succeeded = runs.stream().filter(r -> r.exitCode() == 0).count();
        assertEquals(1, succeeded, "exactly one ran:\n" + a.all() + "\n---\n" + b.all());
        Cli.Run refused = runs.stream().filter(r -> r.exitCode() != 0).findFirst().orElseThrow();
        assertEquals(1, refused.exitCode(), refused.all());
        assertFalse(refused.all().contains("RECAP"), "the refused run changed nothing: " + refused.all());
        assertTrue(runs.stream().filter(r -> r.exitCode() == 0).findFirst().orElseThrow().all().contains("RECAP"));
        return refused.all();
    }

    @Test
    @Order(1)
    void twoCreatesStartedTogetherOnOneWorkstationOneRunsTheOtherIsRefused() throws Exception {
        Cli.Run a;
        Cli.Run b;
        try (Cli.Launched first = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes");
             Cli.Launched second = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
            a = first.finish(Duration.ofMinutes(5));
            b = second.finish(Duration.ofMinutes(5));
        }
        String refused = oneRanOneRefused(a, b);
        assertTrue(refused.contains("is locked on this workstation by"), refused);
        assertTrue(Pattern.compile("@\\S+ \\(etcdwright apply, pid \\d+\\) since \\S+").matcher(refused).find(), refused);
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
    }

    @Test
    @Order(2)
    void twoAppliesStartedTogetherFromTwoWorkstationsOneRunsTheOtherIsRefusedByEtcd() throws Exception {
        // A second workstation: the same cluster's PKI, its own lock file.
        Path other = Files.createTempDirectory("etcdwright-HOSTS.home()-other");
        try {
            copyTree(HOSTS.home().resolve("clusters"), other.resolve("clusters"));
            Files.writeString(spec, Files.readString(spec).replace("heartbeat-interval: 100", "heartbeat-interval: 150"));
            Cli.Run a;
            Cli.Run b;
            try (Cli.Launched first = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes");
                 Cli.Launched second = Cli.Launched.start(other, "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
                a = first.finish(Duration.ofMinutes(5));
                b = second.finish(Duration.ofMinutes(5));
            }
            String refused = oneRanOneRefused(a, b);
            assertTrue(refused.contains("cluster locked is locked by"), refused);
            assertTrue(refused.contains("(key /etcdwright/lock/locked in the cluster's etcd)"), refused);
            assertTrue(Pattern.compile("@\\S+ \\(etcdwright apply, pid \\d+\\) since \\S+").matcher(refused).find(), refused);
            assertTrue((a.exitCode() == 0 ? a : b).all().contains("Lock: held (key /etcdwright/lock/locked"));
        } finally {
            Testbed.deleteTree(other);
        }
    }

    @Test
    @Order(3)
    void aHolderKilledOnThisMachineIsTakenOverAtOnce() throws Exception {
        killWhileHolding();
        Cli.Run after = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, after.exitCode(), after.all());
        assertTrue(Pattern.compile("Lock: taken over from \\S+ \\(etcdwright apply, pid \\d+\\) since \\S+ \\(\\d+ s ago\\): that"
                + " process is gone from this machine").matcher(after.out()).find(), after.out());
        assertTrue(after.out().contains("Lock: held (key /etcdwright/lock/locked"), after.out());
    }

    @Test
    @Order(4)
    void aHolderElsewhereKeepsTheLockUntilItsLeaseEndsOrUnlock() throws Exception {
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Etcdctl etcdctl = Etcdctl.unpack(Testbed.scratch("etcdctl-lock"), "3.5.16");
        holdFromElsewhere(etcdctl, env);
        Cli.Run refused = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("cluster locked is locked by bob@elsewhere (etcdwright apply, pid 4242) since"), refused.all());
        // plan never takes the lock, so it plans while another holds it.
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
        assertFalse(plan.all().contains("Lock:"), plan.all());
        // Nobody keeps that lease alive: it ends within its 15 s, and a waiting apply goes on.
        Cli.Run waited = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes", "--lock-timeout", "90s");
        assertEquals(0, waited.exitCode(), waited.all());
        assertTrue(waited.out().contains("Lock: held by bob@elsewhere (etcdwright apply, pid 4242) since 2026-11-25T01:00:00Z"), waited.all());
        assertTrue(waited.out().contains("; waiting up to "), waited.all());
        assertTrue(waited.out().contains("Lock: held (key /etcdwright/lock/locked"), waited.all());

        holdFromElsewhere(etcdctl, env);
        Cli.Run unlock = Cli.run("unlock", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, unlock.exitCode(), unlock.all());
        assertTrue(unlock.out().contains("Removed the lock key /etcdwright/lock/locked held by bob@elsewhere (etcdwright apply,"
                + " pid 4242) since 2026-11-25T01:00:00Z"), unlock.all());
        Cli.Run after = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, after.exitCode(), after.all());
        Cli.Run nothing = Cli.run("unlock", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, nothing.exitCode(), nothing.all());
        assertTrue(nothing.out().contains("No lock to remove"), nothing.all());
    }

    /** An apply SIGKILLed right after it took the lock in etcd; returns what it printed. */
    private static String killWhileHolding() throws Exception {
        try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
            String printed = apply.killAfter(Pattern.compile("Lock: held \\(key"), Duration.ofMinutes(2));
            assertTrue(printed.contains("Lock: held (key /etcdwright/lock/locked"), printed);
            return printed;
        }
    }

    /** The lock as an etcdwright on another machine holds it: the key on a 15 s lease, which nobody here keeps alive. */
    private static void holdFromElsewhere(Etcdctl etcdctl, Map<String, String> env) {
        Testbed.Result grant = etcdctl.run(env, "lease", "grant", "15");
        assertEquals(0, grant.exitCode(), grant.stderr());
        java.util.regex.Matcher lease = Pattern.compile("lease ([0-9a-f]+) granted").matcher(grant.stdout());
        assertTrue(lease.find(), grant.stdout());
        Testbed.Result put = etcdctl.run(env, "put", "--lease=" + lease.group(1), "/etcdwright/lock/locked",
                "{\"user\":\"bob\",\"host\":\"elsewhere\",\"pid\":4242,\"command\":\"apply\","
                        + "\"since\":\"2026-11-25T01:00:00Z\",\"token\":\"0123\",\"process_space\":\"another-machine\"}");
        assertEquals(0, put.exitCode(), put.stderr());
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
