package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Backups through the real CLI to each real store (a directory, SFTP to a test host, S3 through
 * S3Proxy with signature checks), encrypted and plain, verified, damaged, and restored: in place,
 * and onto new hosts after every member is gone, with every write acknowledged before the backup
 * present afterwards. The steps build on each other, so they run in order. On etcd 3.7 (restored
 * with its etcdutl): a 3-member cluster created, grown to 5 under writes, backed up and restored
 * onto new hosts with every key, issue 23's check of 3.7. (3.5 backups and restores: RestoreIT,
 * BackupScheduleIT's store, KilledAnywhereUpgradeRestoreIT.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BackupRestoreIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(5); // h1..h3 members, then h4 and h5 too; h4 the SFTP store's host
    static final String INV = Testbed.INVENTORY.toString();
    static Path work;
    static Path tools;
    static S3Proxy s3;
    static Path recipientKey;
    static WriteLoad.Acks before;
    static String s3Backup;
    static final String VERSION = Testbed.newestRelease("3.7");
    static final List<String> FIRST = List.of("h1", "h2", "h3");
    static final List<String> GROWN = List.of("h1", "h2", "h3", "h4", "h5");

    @BeforeAll
    static void setUp() throws Exception {
        work = Testbed.scratch("backup-restore");
        tools = Testbed.scratch("etcd-tools");
        Etcdctl.unpack(tools, VERSION);
        s3 = S3Proxy.start(Testbed.bridgeAddress());
        // The AWS SDK's default chain reads these: credentials never go in a spec.
        System.setProperty("aws.accessKeyId", s3.accessKey());
        System.setProperty("aws.secretAccessKey", s3.secretKey());
        recipientKey = work.resolve("recipient.key");
        Testbed.Result keys = Testbed.exec(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", recipientKey.toString(), "-out",
                work.resolve("recipient.crt").toString(), "-subj", "/CN=etcd-backups", "-days", "2"));
        assertEquals(0, keys.exitCode(), keys.stderr());
        writeSpec("plain.yaml", FIRST, false);
        writeSpec("sealed.yaml", FIRST, true);
    }

    @AfterAll
    static void tearDown() {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        if (s3 != null) {
            s3.close();
        }
    }

    static void writeSpec(String name, List<String> hosts, boolean encrypted) throws Exception {
        String release = Testbed.bridgeAddress() + ":" + Testbed.HTTP_PORT;
        Files.writeString(work.resolve(name), """
                cluster: {name: vault}
                members: {hosts: [%s]}
                etcd: {version: %s}
                artifacts:
                  url: http://%s/v{version}/etcd-v{version}-linux-{arch}.tar.gz
                  checksumsUrl: http://%s/v{version}/SHA256SUMS
                backup:
                  stores:
                    - {name: local, type: directory, path: %s}
                    - {name: offsite, type: s3, bucket: %s, endpoint: '%s', region: us-east-1}
                    - {name: vault, type: sftp, host: h4, path: /srv/etcd-backups}
                %s""".formatted(String.join(", ", hosts), VERSION, release, release, work.resolve("store"), S3Proxy.BUCKET,
                s3.endpoint(), encrypted ? "  encryption: {recipients: [recipient.crt]}\n" : ""));
    }

    static String spec(String name) {
        return work.resolve(name).toString();
    }

    static Map<String, String> clientEnv(String spec) {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec);
        assertEquals(0, env.exitCode(), env.all());
        return Etcdctl.env(env.out());
    }

    static JsonNode listing(String spec, String store) throws Exception {
        Cli.Run list = Cli.run("backups", "list", "-i", INV, "-f", spec, "--store", store, "-o", "json");
        assertEquals(0, list.exitCode(), list.all());
        return new ObjectMapper().readTree(list.out());
    }

    @Test
    @Order(1)
    void backupsOfALiveClusterGoToEveryKindOfStore() throws Exception {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec("plain.yaml"), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        // Grown from 3 to 5 (learners first) while writers write: their writes are what is backed up.
        Map<String, String> env = clientEnv(spec("plain.yaml"));
        writeSpec("plain.yaml", GROWN, false);
        writeSpec("sealed.yaml", GROWN, true);
        try (WriteLoad load = WriteLoad.start(env, 3, work.resolve("writes-before.log"))) {
            load.awaitMore(50, java.time.Duration.ofSeconds(30));
            Cli.Run grow = Cli.run("apply", "-i", INV, "-f", spec("plain.yaml"), "--yes");
            assertEquals(0, grow.exitCode(), grow.all());
            assertTrue(grow.out().contains("add h4 as a learner") && grow.out().contains("add h5 as a learner"), grow.out());
            load.awaitMore(50, java.time.Duration.ofSeconds(30));
            before = load.stop();
        }
        WriteLoad.Report grown = WriteLoad.checkNothingLost(clientEnv(spec("plain.yaml")), before, "grow 3.7 from 3 to 5", 5);
        System.out.println("[grow 3 to 5 on " + VERSION + "] " + grown);
        assertTrue(before.acks().size() > 50, "the writers got writes acknowledged: " + before.acks().size());

        for (String store : List.of("local", "offsite", "vault")) {
            Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec("plain.yaml"), "--store", store, "-o", "json");
            assertEquals(0, backup.exitCode(), backup.all());
            JsonNode result = new ObjectMapper().readTree(backup.out());
            assertTrue(result.path("keys").asLong() >= before.acks().size(), result.toString());
            assertFalse(result.path("encrypted").asBoolean());
            JsonNode listed = listing(spec("plain.yaml"), store).path("backups");
            assertEquals(1, listed.size(), listed.toString());
            assertEquals(result.path("name").asText(), listed.get(0).path("name").asText());
            assertEquals(result.path("revision").asLong(), listed.get(0).path("revision").asLong());
            Cli.Run verify = Cli.run("backups", "verify", "-i", INV, "-f", spec("plain.yaml"), "--store", store);
            assertEquals(0, verify.exitCode(), verify.all());
        }
        assertEquals("0", Testbed.ssh(4, "find /srv/etcd-backups -name '*.part' | wc -l").strip(), "no partial file on the SFTP host");
        assertEquals("700", Testbed.ssh(4, "stat -c %a /srv/etcd-backups").strip());
    }

    @Test
    @Order(2)
    void aPlainBackupIsEtcdManagersLayoutThatGunzipAndEtcdutlRead() throws Exception {
        Path backup;
        try (var dirs = Files.list(work.resolve("store"))) {
            backup = dirs.filter(d -> !d.getFileName().toString().equals("control")).findFirst().orElseThrow();
        }
        assertTrue(Files.exists(backup.resolve("_etcd_backup.meta")));
        JsonNode meta = new ObjectMapper().readTree(Files.readString(backup.resolve("_etcd_backup.meta")));
        assertEquals(VERSION, meta.path("etcdVersion").asText());
        assertEquals(5, meta.path("clusterSpec").path("memberCount").asInt());
        assertTrue(Files.exists(work.resolve("store/control/etcd-cluster-spec")));
        Path db = work.resolve("gunzipped.db");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(backup.resolve("etcd.backup.gz")))) {
            Files.copy(in, db);
        }
        Testbed.Result status = Testbed.exec(List.of(tools.resolve("etcdutl").toString(), "snapshot", "status", "-w", "json", db.toString()));
        assertEquals(0, status.exitCode(), status.stderr());
        JsonNode ours = new ObjectMapper().readTree(Files.readString(backup.resolve("etcdwright-backup.json")));
        assertEquals(ours.path("revision").asLong(), new ObjectMapper().readTree(status.stdout()).path("revision").asLong());
    }

    @Test
    @Order(3)
    void anEncryptedBackupOpensOnlyWithTheRecipientsKeyWhichNoHostHolds() throws Exception {
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec("sealed.yaml"), "--store", "offsite", "-o", "json");
        assertEquals(0, backup.exitCode(), backup.all());
        JsonNode result = new ObjectMapper().readTree(backup.out());
        assertTrue(result.path("encrypted").asBoolean());
        s3Backup = result.path("name").asText();
        Cli.Run noKey = Cli.run("backups", "verify", "-i", INV, "-f", spec("sealed.yaml"), "--store", "offsite", s3Backup);
        assertEquals(1, noKey.exitCode(), noKey.all());
        assertTrue(noKey.all().contains("--key"), noKey.all());
        Cli.Run withKey = Cli.run("backups", "verify", "-i", INV, "-f", spec("sealed.yaml"), "--store", "offsite", s3Backup,
                "--key", recipientKey.toString());
        assertEquals(0, withKey.exitCode(), withKey.all());
        String keyLine = Files.readAllLines(recipientKey).get(1);
        for (int h = 1; h <= 4; h++) {
            assertEquals(1, Testbed.sshStatus(h, "grep -rqF '" + keyLine + "' /etc /var/lib /root /srv /tmp"),
                    "the recipient's private key is on no host (h" + h + ")");
        }
    }

    @Test
    @Order(4)
    void aDamagedBackupIsRefusedBeforeAnyMemberIsStopped() throws Exception {
        Path backup;
        try (var dirs = Files.list(work.resolve("store"))) {
            backup = dirs.filter(d -> !d.getFileName().toString().equals("control")).findFirst().orElseThrow();
        }
        Path data = backup.resolve("etcd.backup.gz");
        byte[] good = Files.readAllBytes(data);
        String pid = Testbed.ssh(2, "systemctl show -p MainPID --value etcd").strip();
        try (RandomAccessFile file = new RandomAccessFile(data.toFile(), "rw")) {
            file.seek(good.length / 2);
            int b = file.read();
            file.seek(good.length / 2);
            file.write(b ^ 0x20);
        }
        Cli.Run verify = Cli.run("backups", "verify", "-i", INV, "-f", spec("plain.yaml"), "--store", "local");
        assertEquals(1, verify.exitCode(), verify.all());
        Cli.Run restore = Cli.run("restore", "-i", INV, "-f", spec("plain.yaml"), "--store", "local", "--from", "latest", "--yes");
        assertEquals(1, restore.exitCode(), restore.all());
        assertTrue(restore.all().contains("No member was contacted"), restore.all());

        Files.write(data, java.util.Arrays.copyOf(good, good.length - 1000));
        Cli.Run cut = Cli.run("restore", "-i", INV, "-f", spec("plain.yaml"), "--store", "local", "--from", "latest", "--yes");
        assertEquals(1, cut.exitCode(), cut.all());
        assertEquals(pid, Testbed.ssh(2, "systemctl show -p MainPID --value etcd").strip(), "etcd on h2 was never stopped");
        Files.write(data, good);
    }

    @Test
    @Order(5)
    void aRestoreInPlaceBringsBackTheBackupAndDropsLaterWrites() throws Exception {
        Map<String, String> env = clientEnv(spec("plain.yaml"));
        Etcdctl etcdctl = Etcdctl.unpack(tools, VERSION);
        assertEquals(0, etcdctl.run(env, "put", "/after-the-backup", "x").exitCode());
        Cli.Run restore = Cli.run("restore", "-i", INV, "-f", spec("sealed.yaml"), "--store", "offsite", "--from", s3Backup,
                "--key", recipientKey.toString(), "--yes");
        assertEquals(0, restore.exitCode(), restore.all());
        WriteLoad.Report report = WriteLoad.checkRestored(env, before);
        assertTrue(report.lostNothing(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
        assertEquals("", etcdctl.run(env, "get", "/after-the-backup", "--print-value-only").stdout().strip());
        assertTrue(etcdctl.run(env, "endpoint", "health", "--cluster").exitCode() == 0);
    }

    @Test
    @Order(6)
    void disasterRecoveryOntoNewHostsFromS3() throws Exception {
        // What a dead member's disk leaves: its database, copied once etcd is stopped.
        Testbed.ssh(1, "systemctl stop etcd");
        Testbed.Result copy = Testbed.exec(List.of("scp", "-q", "-o", "UserKnownHostsFile=" + Testbed.KNOWN_HOSTS,
                "-o", "StrictHostKeyChecking=yes", "-i", Testbed.KEY.toString(),
                "root@" + Testbed.address(1) + ":/var/lib/etcd/member/snap/db", work.resolve("dead-member.db").toString()));
        assertEquals(0, copy.exitCode(), copy.stderr());
        // Every member gone: h1..h3 with their disks, h4 and h5 down for good (h4 still serves the SFTP store).
        Testbed.ssh(4, "systemctl disable --now etcd");
        Testbed.ssh(5, "systemctl disable --now etcd");
        for (int h = 1; h <= 3; h++) {
            Testbed.remove(h);
        }
        Testbed.add(3); // h6, h7, h8: new addresses, new host keys, bare
        writeSpec("new-hosts.yaml", List.of("h6", "h7", "h8"), true);
        Cli.Run restore = Cli.run("restore", "-i", INV, "-f", spec("new-hosts.yaml"), "--store", "offsite", "--from", "latest",
                "--key", recipientKey.toString(), "--yes");
        assertEquals(0, restore.exitCode(), restore.all());
        Map<String, String> env = clientEnv(spec("new-hosts.yaml"));
        WriteLoad.Report report = WriteLoad.checkRestored(env, before);
        assertTrue(report.lostNothing(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
        Etcdctl etcdctl = Etcdctl.unpack(tools, VERSION);
        Testbed.Result health = etcdctl.run(env, "endpoint", "health", "--cluster");
        assertEquals(0, health.exitCode(), health.stderr());
        for (String address : List.of(Testbed.address(6), Testbed.address(7), Testbed.address(8))) {
            assertTrue(health.stdout().contains(address) || health.stderr().contains(address), health.stdout() + health.stderr());
        }
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec("new-hosts.yaml"), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
        assertNotEquals(0, before.acks().size());
    }

    @Test
    @Order(7)
    void anEtcdManagerBackupDirectoryRestores() throws Exception {
        // etcd-manager writes no etcdwright-backup.json: only its data file and meta.
        Path ours;
        try (var dirs = Files.list(work.resolve("store"))) {
            ours = dirs.filter(d -> !d.getFileName().toString().equals("control")).findFirst().orElseThrow();
        }
        Path theirs = work.resolve("etcd-manager").resolve(ours.getFileName());
        Files.createDirectories(theirs);
        Files.copy(ours.resolve("etcd.backup.gz"), theirs.resolve("etcd.backup.gz"));
        Files.copy(ours.resolve("_etcd_backup.meta"), theirs.resolve("_etcd_backup.meta"));
        Cli.Run restore = Cli.run("restore", "-i", INV, "-f", spec("new-hosts.yaml"), "--from", theirs.toString(), "--yes");
        assertEquals(0, restore.exitCode(), restore.all());
        WriteLoad.Report report = WriteLoad.checkRestored(clientEnv(spec("new-hosts.yaml")), before);
        assertTrue(report.lostNothing(), report.toString());
    }

    @Test
    @Order(8)
    void aDeadMembersDatabaseRestoresOnlyWhenTheMissingHashCheckIsAccepted() throws Exception {
        Path db = work.resolve("dead-member.db");
        Cli.Run refused = Cli.run("restore", "-i", INV, "-f", spec("new-hosts.yaml"), "--from", db.toString(), "--yes");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.all().contains("--skip-hash-check"), refused.all());
        Cli.Run restore = Cli.run("restore", "-i", INV, "-f", spec("new-hosts.yaml"), "--from", db.toString(),
                "--skip-hash-check", "--yes");
        assertEquals(0, restore.exitCode(), restore.all());
        assertTrue(restore.out().contains("skip"), "the plan says the hash check is skipped: " + restore.out());
        WriteLoad.Report report = WriteLoad.checkRestored(clientEnv(spec("new-hosts.yaml")), before);
        assertTrue(report.lostNothing(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
    }
}
