package io.etcdwright.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 3.5.16 -> 3.4.23 on real hosts: etcd 3.4.23 cannot join a 3.5 cluster, so the downgrade is a
 * snapshot taken when the apply runs, restored on every member with 3.4's etcdctl. Refused without
 * --allow-downtime before any host is touched; with it, under a write load that runs through the
 * whole apply, every acknowledged write is there afterwards on every member at its revision, and an
 * independent etcdctl 3.4.23 reports 3.4.23 on every member. An apply killed (SIGKILL) right after
 * its first stop is finished by the next apply, without the flag and without a new snapshot, and
 * loses nothing either.
 */
class MinorDowngradeIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");

    @AfterEach
    void wipe() {
        Testbed.removeEtcd(3);
        for (int h = 1; h <= 3; h++) {
            Testbed.sshStatus(h, "rm -rf /var/lib/etcd.* /var/lib/etcdwright");
        }
    }

    /** A 3-member cluster on 3.5.16 named {@code name}; its spec file. */
    private static Path create(String name) throws Exception {
        Path spec = HOSTS.home().resolve(name + ".yaml");
        Files.writeString(spec, Testbed.example("three-node.yaml").replace("name: three", "name: " + name));
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        return spec;
    }

    private static void toVersion(Path spec, String version) throws Exception {
        Files.writeString(spec, Files.readString(spec).replaceFirst("version: [0-9.]+", "version: " + version));
    }

    @Test
    void aMinorDowngradeRestoresEveryAcknowledgedWriteOnTheOlderVersion() throws Exception {
        Path spec = create("down");
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Etcdctl etcdctl34 = Etcdctl.unpack(Testbed.scratch("etcdctl-3.4.23"), "3.4.23");

        // No mixed history (WriteLoad.startRecorded): the offline downgrade restores a snapshot under
        // the load, and a history across a restore is two, each to be checked on its own.
        try (WriteLoad load = WriteLoad.start(env, 4, LOGS.resolve("minor-downgrade.acks"))) {
            load.awaitMore(300, Duration.ofSeconds(60));
            toVersion(spec, "3.4.23");

            // Without the flag: refused, and no host touched (no 3.4.23 installed, etcd 3.5.16 running).
            Cli.Run refused = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(1, refused.exitCode(), refused.all());
            assertTrue(refused.all().contains("--allow-downtime"), refused.all());
            for (int h = 1; h <= 3; h++) {
                assertNotEquals(0, Testbed.sshStatus(h, "test -e /opt/etcd/v3.4.23"), "h" + h + " has 3.4.23 installed");
                assertEquals("active", Testbed.ssh(h, "systemctl is-active etcd").strip(), "h" + h);
            }
            assertEquals(Map.of("3.5.16", 3L), versions(etcdctl34, env));

            Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--allow-downtime");
            assertEquals(0, plan.exitCode(), plan.all());
            assertTrue(plan.all().contains("DOWNTIME: every member is stopped"), plan.all());
            assertTrue(plan.all().contains("3.4.32 or newer, started with --next-cluster-version-compatible"), plan.all());
            assertTrue(plan.out().contains("refuse writes (etcd's NOSPACE alarm), then snapshot the cluster"), plan.out());

            long started = System.nanoTime();
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--allow-downtime", "--yes");
            assertEquals(0, apply.exitCode(), apply.all());
            System.out.println("[minor downgrade] apply took " + (System.nanoTime() - started) / 1_000_000 + " ms");
            // Writes are taken again once the fence is lifted: the load gets acknowledgements from 3.4.23.
            checkEveryWrite(env, load, "minor downgrade to 3.4.23");
        }

        assertEquals(Map.of("3.4.23", 3L), versions(etcdctl34, env));
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
        for (int h = 1; h <= 3; h++) {
            // The old version stays installed, the old data is moved aside, never deleted.
            assertEquals(0, Testbed.sshStatus(h, "test -x /opt/etcd/v3.5.16/etcd"), "h" + h);
            assertEquals(0, Testbed.sshStatus(h, "ls -d /var/lib/etcd.pre-restore-*/member/wal"), "h" + h);
        }
        Testbed.Result alarms = etcdctl34.run(env, "alarm", "list");
        assertEquals(0, alarms.exitCode(), alarms.stderr());
        assertFalse(alarms.stdout().contains("NOSPACE"), alarms.stdout());
    }

    @Test
    void anApplyKilledAfterItsFirstStopIsFinishedByTheNextApply() throws Exception {
        Path spec = create("killed");
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Etcdctl etcdctl34 = Etcdctl.unpack(Testbed.scratch("etcdctl-3.4.23-killed"), "3.4.23");
        // No mixed history, as above: a restore runs under the load.
        try (WriteLoad load = WriteLoad.start(env, 4, LOGS.resolve("minor-downgrade-killed.acks"))) {
            load.awaitMore(300, Duration.ofSeconds(60));
            toVersion(spec, "3.4.23");
            String killAt = "stop etcd (DOWNTIME begins): changed";
            String killed;
            try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--allow-downtime",
                    "--yes")) {
                killed = apply.killAfter(Pattern.compile(Pattern.quote(killAt)), Duration.ofMinutes(3));
            }
            assertTrue(killed.contains(killAt), "the kill point was reached: " + killed);
            assertFalse(killed.contains("RECAP"), "the first apply must not have finished: " + killed);

            // In flight: the next apply finishes it, with no flag (the downtime has begun) and no new snapshot.
            Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
            assertEquals(2, plan.exitCode(), plan.all());
            assertTrue(plan.all().contains("a restore is in flight"), plan.all());
            Cli.Run second = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, second.exitCode(), second.all());
            assertFalse(second.out().contains("then snapshot the cluster"), second.out());
            checkEveryWrite(env, load, "minor downgrade killed after its first stop, then applied again");
        }
        assertEquals(Map.of("3.4.23", 3L), versions(etcdctl34, env));
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
    }

    /** Once writes are acknowledged again, the load's every acknowledged write is on every member, which agree. */
    private static void checkEveryWrite(Map<String, String> env, WriteLoad load, String name) {
        load.awaitMore(100, Duration.ofSeconds(30));
        WriteLoad.checkNothingLost(env, load.stop(), name, 3);
    }

    /** Each member's server version, as an etcdctl of our own asks every member: version -> members. */
    private static Map<String, Long> versions(Etcdctl etcdctl, Map<String, String> env) {
        return etcdctl.serverVersions(env).stream()
                .collect(java.util.stream.Collectors.groupingBy(v -> v, java.util.TreeMap::new, java.util.stream.Collectors.counting()));
    }
}
