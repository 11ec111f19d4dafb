package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright SIGKILLed anywhere ({@link KillChain}) in a restore of a three-member 3.5.16 cluster
 * from its backup, then in the upgrade of that cluster to the newest 3.6 under writes. The restore,
 * which is not an apply, is killed at the points of the plan each restore prints before it asks for
 * confirmation, and run again as the operator would: the same restore command. Then the cluster
 * holds exactly what the backup holds: every write acknowledged before the backup, at its revision,
 * on every member, and none of the writes made after it. The upgrade is the one a 3.5.16 cluster
 * takes to 3.6: in one plan, the hop to the newest 3.5 patch (3.6 requires 3.5.32 or newer), etcd's
 * checks before 3.6 with that patch's etcdutl, then the minor step member by member; it ends as
 * every chain does (exit 0, empty plan, the spec's members healthy, one cluster id, no acknowledged
 * write lost) with every member on 3.6 and the cluster version 3.6.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KilledAnywhereUpgradeRestoreIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final List<String> MEMBERS = List.of("h1", "h2", "h3");
    static KillChain chain;
    static String v35;

    @BeforeAll
    static void hosts() {
        v35 = Testbed.example("three-node.yaml").replace("name: three", "name: chaosv");
        chain = new KillChain(HOSTS.home(), HOSTS.home().resolve("chaosv.yaml"));
    }

    @Test
    @Order(2)
    void theUpgradeTo36KilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        String v36 = Testbed.newestRelease("3.6");
        String hop = Testbed.newestRelease("3.5");
        chain.spec(v35);
        Map<String, String> env = chain.clientEnv();
        chain.spec(v35.replace("version: 3.5.16", "version: " + v36));
        WriteLoad.Acks acks = KillChain.underWrites(env, "minor-upgrade-36", () -> {
            KillChain.Result kills = chain.applies(KillChain.Sample.BOUNDARIES_AND_EACH_KIND_INSIDE);
            assertTrue(kills.killed().size() >= 12, "the hop and the minor step have kill points: " + kills);
            assertTrue(kills.killed().stream().anyMatch(k -> k.contains("etcd's checks before the minor upgrade to " + v36)),
                    "killed at etcd's checks before 3.6: " + kills);
            assertTrue(kills.killed().stream().anyMatch(k -> k.startsWith("after") && k.contains("restart etcd on " + v36)),
                    "killed between the members' minor restarts: " + kills);
        });
        chain.converged(MEMBERS);
        WriteLoad.checkNothingLost(chain.clientEnv(), acks, "killed-anywhere-minor-upgrade-36", 3);
        JsonNode status = KillChain.JSON.readTree(Cli.run("status", "-i", KillChain.INV, "-f",
                HOSTS.home().resolve("chaosv.yaml").toString(), "-o", "json").out());
        for (JsonNode m : status.path("members")) {
            assertEquals(v36, m.path("version").asText(), m.toString());
        }
        assertEquals("3.6.0", status.path("cluster_version").asText(), status.toString());
        // The hop's release stays installed beside 3.6's: it is what a rollback would have started.
        assertEquals("v" + hop + " v" + v36, Testbed.ssh(1, "cd /opt/etcd && echo v*").strip().replace("v3.5.16 ", ""));
    }

    @Test
    @Order(1)
    void aRestoreKilledAtEveryStepConvergesToTheBackup() throws Exception {
        chain.spec(v35 + "backup:\n  stores:\n    - {name: local, type: directory, path: " + HOSTS.home().resolve("store") + "}\n");
        Cli.Run create = Cli.run("apply", "-i", KillChain.INV, "-f", HOSTS.home().resolve("chaosv.yaml").toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        Map<String, String> env = chain.clientEnv();
        WriteLoad.Acks kept = KillChain.underWrites(env, "restore-before-backup", () -> { });
        Cli.Run backup = Cli.run("backup", "-i", KillChain.INV, "-f", HOSTS.home().resolve("chaosv.yaml").toString());
        assertEquals(0, backup.exitCode(), backup.all());
        WriteLoad.Acks dropped = KillChain.underWrites(env, "restore-after-backup", () -> { });

        KillChain.Result kills = chain.restores(KillChain.Sample.BOUNDARIES_AND_EACH_KIND_INSIDE, "--from", "latest");
        assertTrue(kills.killed().size() >= 10, "a restore has many kill points: " + kills);
        assertTrue(kills.last().out().contains("Restored cluster chaosv"), kills.last().out());
        chain.converged(MEMBERS);

        WriteLoad.Report report = WriteLoad.checkRestored(env, kept);
        System.out.println("[killed-anywhere-restore] " + report);
        assertTrue(report.lostNothing(), report.toString());
        assertEquals(3, report.hashByMember().size(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
        // Restore semantics: nothing written after the backup survives, acknowledged or not.
        for (int h = 1; h <= 3; h++) {
            String count = Testbed.ssh(h, "etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/etcd/pki/ca.crt"
                    + " --cert=/etc/etcd/pki/healthcheck-client.crt --key=/etc/etcd/pki/healthcheck-client.key"
                    + " get --prefix --keys-only --limit=1 --consistency=s -w json " + dropped.prefix());
            assertEquals(0, KillChain.JSON.readTree(count).path("count").asLong(), "h" + h + " holds writes made after the backup: "
                    + count);
        }
        assertTrue(dropped.acks().size() >= 100, "writes were made after the backup: " + dropped.acks().size());
    }
}
