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
 * etcdwright SIGKILLed anywhere ({@link KillChain}) in a minor upgrade 3.4.23 -> 3.5.16 of three
 * members under writes, then in a restore of the same cluster from its backup. The upgrade ends
 * as every chain does (exit 0, empty plan, the spec's members healthy, one cluster id, no
 * acknowledged write lost) with every member on 3.5.16 and the cluster version 3.5. The restore,
 * which is not an apply, is killed at the points of the plan each restore prints before it asks
 * for confirmation, and run again as the operator would: the same restore command. Then the
 * cluster holds exactly what the backup holds: every write acknowledged before the backup, at its
 * revision, on every member, and none of the writes made after it.
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
    @Order(1)
    void aMinorUpgradeKilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        chain.spec(v35.replace("version: 3.5.16", "version: 3.4.23"));
        Cli.Run create = Cli.run("apply", "-i", KillChain.INV, "-f", HOSTS.home().resolve("chaosv.yaml").toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        Map<String, String> env = chain.clientEnv();
        chain.spec(v35);
        WriteLoad.Acks acks = KillChain.underWrites(env, "minor-upgrade", () -> {
            KillChain.Result kills = chain.applies(KillChain.Sample.BOUNDARIES_AND_EACH_KIND_INSIDE);
            assertTrue(kills.killed().size() >= 6, "a rolling upgrade has kill points: " + kills);
        });
        chain.converged(MEMBERS);
        WriteLoad.checkNothingLost(chain.clientEnv(), acks, "killed-anywhere-minor-upgrade", 3);
        JsonNode status = KillChain.JSON.readTree(Cli.run("status", "-i", KillChain.INV, "-f",
                HOSTS.home().resolve("chaosv.yaml").toString(), "-o", "json").out());
        for (JsonNode m : status.path("members")) {
            assertEquals("3.5.16", m.path("version").asText(), m.toString());
        }
        assertEquals("3.5.0", status.path("cluster_version").asText(), status.toString());
    }

    @Test
    @Order(2)
    void aRestoreKilledAtEveryStepConvergesToTheBackup() throws Exception {
        chain.spec(v35 + "backup:\n  stores:\n    - {name: local, type: directory, path: " + HOSTS.home().resolve("store") + "}\n");
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
