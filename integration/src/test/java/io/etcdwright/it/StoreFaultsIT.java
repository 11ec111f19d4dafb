package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.store.S3Settings;
import io.etcdwright.modules.backup.store.S3Store;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults during operations, on real hosts: the SSH connection dropped in the middle of a release
 * upload; the backup store (S3 through S3Proxy, SFTP to a test host) down, killed mid-upload or
 * answering errors during on-demand and scheduled backups. Each ends with a clear error and
 * nothing half-done counted as done, and the next run succeeds; the on-demand backups run under
 * writes, every acknowledged write present at the end. The failures are made by real means: the
 * host's sshd session killed, the S3 server SIGKILLed, a TCP proxy in front of the real server
 * ({@link FaultyProxy}) answering 503 or resetting the connection, a host taken off the network.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StoreFaultsIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(4); // h1..h3 members, h4 the SFTP store's host
    static final ObjectMapper JSON = new ObjectMapper();
    static final String INV = Testbed.INVENTORY.toString();
    static final String PREFIX = "faults/";
    static final DateTimeFormatter NAME_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
    static Path work;
    static S3Proxy s3;
    static FaultyProxy faulty;
    static Path spec;
    static WriteLoad load;
    static int leader;

    @RegisterExtension
    static final TestWatcher KEEP_SERVER_LOG = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (s3 != null) {
                s3.markFailed();
            }
            if (faulty != null) {
                System.out.println("faulty proxy saw:\n  " + String.join("\n  ", faulty.log()));
            }
        }
    };

    @BeforeAll
    static void setUp() throws Exception {
        work = Testbed.scratch("store-faults");
        s3 = S3Proxy.start(Testbed.bridgeAddress());
        faulty = FaultyProxy.start(Testbed.bridgeAddress(), s3.endpoint());
        // The workstation's credentials come from the AWS SDK's default chain, never the spec.
        System.setProperty("aws.accessKeyId", s3.accessKey());
        System.setProperty("aws.secretAccessKey", s3.secretKey());
        Files.writeString(work.resolve("host-s3.env"), "AWS_ACCESS_KEY_ID=" + s3.accessKey() + "\nAWS_SECRET_ACCESS_KEY="
                + s3.secretKey() + "\n");
        String release = Testbed.releaseServer();
        String base = """
                cluster: {name: faults}
                members: {hosts: [h1, h2, h3]}
                etcd: {version: 3.5.16}
                artifacts:
                  source: push
                  url: %sv{version}/etcd-v{version}-linux-{arch}.tar.gz
                  checksumsUrl: %sv{version}/SHA256SUMS
                backup:
                  stores:
                    - {name: offsite, type: s3, bucket: %s, prefix: %s, endpoint: '%s', region: us-east-1}
                    - {name: vault, type: sftp, host: h4, path: /srv/etcd-backups}
                """.formatted(release, release, S3Proxy.BUCKET, PREFIX, faulty.endpoint());
        spec = work.resolve("faults.yaml");
        Files.writeString(spec, base);
        // The schedule's first tick is an hour away: the test starts each run itself.
        Files.writeString(work.resolve("scheduled.yaml"), base + """
                  schedule: {intervalMinutes: 60, store: offsite, credentialsFile: host-s3.env}
                """);
    }

    @AfterAll
    static void tearDown() {
        if (load != null) {
            load.close();
        }
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        Testbed.exec(List.of("tc", "qdisc", "del", "dev", veth(2), "root"));
        if (faulty != null) {
            faulty.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    /** The workstation's end of host i's veth (testbed/testbed host_veth). */
    static String veth(int host) {
        return Testbed.PREFIX + "v" + host;
    }

    static String spec() {
        return spec.toString();
    }

    /** Nothing of a failure may read as a stack trace or carry a secret. */
    static void assertOperatorMessage(Cli.Run run) {
        assertFalse(run.all().contains("Exception") || run.all().contains("\tat "), "no stack trace: " + run.all());
        assertFalse(run.all().contains(s3.secretKey()), "no secret in the output");
    }

    static JsonNode listing(String store) throws Exception {
        Cli.Run list = Cli.run("backups", "list", "-i", INV, "-f", spec(), "--store", store, "-o", "json");
        assertEquals(0, list.exitCode(), list.all());
        return JSON.readTree(list.out());
    }

    static S3Store workstationS3() {
        return new S3Store(new S3Settings(S3Proxy.BUCKET, PREFIX, Optional.of(s3.endpoint()), Optional.empty(), true));
    }

    /** The S3 server dies (SIGKILL) and its port refuses connections, as a crashed store does. */
    static void s3Dies() {
        s3.kill();
        faulty.down();
    }

    static void s3Returns() throws Exception {
        s3.restart();
        faulty.up();
    }

    @Test
    @Order(1)
    void anSshConnectionDroppedMidUploadStopsTheApplyAndNoHalfReleaseIsEverActive() throws Exception {
        // The release crosses h2's link at 24 Mbit/s (a few seconds for the ~20 MB tarball), so the
        // watcher on h2 finds the upload under way; h1 and h3 are not slowed.
        Testbed.Result slow = Testbed.exec(List.of("tc", "qdisc", "replace", "dev", veth(2), "root", "tbf", "rate", "24mbit",
                "burst", "64kb", "latency", "2s"));
        assertEquals(0, slow.exitCode(), slow.stderr());
        // On h2, outside any SSH session: once the streamed unpack has files in its staging tree
        // (the upload under way, nothing made active yet), kill the sshd process serving that
        // connection, the parent of the shell that reads the stream, and its privileged monitor.
        Testbed.ssh(2, "systemd-run --quiet --collect --unit=it-drop-ssh sh -c '"
                + "for i in $(seq 1 1200); do"
                + "  for t in /opt/etcd/.etcdwright-unpack.*/tree; do"
                + "    if [ -d \"$t\" ] && [ -n \"$(ls -A \"$t\")\" ]; then"
                + "      tee=$(pgrep -x tee | head -n1); shell=$(ps -o ppid= -p $tee | tr -d \" \");"
                + "      sshd=$(ps -o ppid= -p $shell | tr -d \" \"); monitor=$(ps -o ppid= -p $sshd | tr -d \" \");"
                + "      { ps -o args= -p $sshd; du -sb \"$t\" | cut -f1; } > /run/it-drop-ssh.done;"
                + "      kill -9 $sshd; case $(ps -o args= -p $monitor) in *priv*) kill -9 $monitor;; esac; exit 0;"
                + "    fi;"
                + "  done; sleep 0.02;"
                + "done; echo never-saw-the-upload > /run/it-drop-ssh.done'");
        Cli.Run cut;
        try {
            cut = Cli.run("apply", "-i", INV, "-f", spec(), "--yes");
        } finally {
            Testbed.exec(List.of("tc", "qdisc", "del", "dev", veth(2), "root"));
        }
        String[] dropped = Testbed.ssh(2, "cat /run/it-drop-ssh.done").split("\n");
        assertTrue(dropped[0].startsWith("sshd:"), "the watcher killed the upload's sshd session: " + String.join(" | ", dropped));
        long stagedBytes = Long.parseLong(dropped[1].strip());
        assertEquals(1, cut.exitCode(), cut.all());
        // The step that failed, on which host, and why.
        assertTrue(java.util.regex.Pattern.compile("h2 +install etcd 3\\.5\\.16: unreachable .*\n +h2: lost the SSH connection")
                .matcher(cut.all()).find(), cut.all());
        assertOperatorMessage(cut);
        // Nothing of the cut upload is active: no version directory, no links, no etcd.
        assertEquals("", Testbed.ssh(2, "ls /opt/etcd | grep -v '^\\.' || true"), "no version directory on h2");
        assertEquals(1, Testbed.sshStatus(2, "test -e /usr/local/bin/etcd -o -L /usr/local/bin/etcd"), "no etcd link on h2");
        assertNotEquals(0, Testbed.sshStatus(2, "systemctl is-active --quiet etcd"));

        Cli.Run again = Cli.run("apply", "-i", INV, "-f", spec(), "--yes");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.out().contains("install etcd 3.5.16"), again.out());
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), "converged: " + plan.all());
        // The release on h2 is the whole one, byte for byte h1's, and no staging is left behind.
        assertEquals(Testbed.ssh(1, "cd /opt/etcd/v3.5.16 && sha256sum etcd etcdctl etcdutl"),
                Testbed.ssh(2, "cd /opt/etcd/v3.5.16 && sha256sum etcd etcdctl etcdutl"));
        assertEquals("", Testbed.ssh(2, "ls -A /opt/etcd | grep '^\\.' || true"), "no staging left on h2");
        long whole = Long.parseLong(Testbed.ssh(2, "du -sb /opt/etcd/v3.5.16 | cut -f1").strip());
        assertTrue(stagedBytes < whole, "the connection dropped mid-upload: " + stagedBytes + " of " + whole + " bytes unpacked");
    }

    @Test
    @Order(2)
    void writesRunWhileTheStoresFail() throws Exception {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec());
        assertEquals(0, env.exitCode(), env.all());
        load = WriteLoad.start(Etcdctl.env(env.out()), 2, work.resolve("writes.log"));
        Thread.sleep(1000);
    }

    @Test
    @Order(3)
    void anS3ServerKilledMidUploadLeavesNoBackupThatCounts() throws Exception {
        faulty.fail("PUT", "/etcd.backup.gz", new FaultyProxy.RunAfter(512, StoreFaultsIT::s3Dies));
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec(), "--store", "offsite");
        faulty.clearFaults();
        assertEquals(1, backup.exitCode(), backup.all());
        assertTrue(backup.err().contains("store 'offsite'"), backup.err());
        assertTrue(backup.err().contains("etcd.backup.gz"), "says what it was writing: " + backup.err());
        assertOperatorMessage(backup);
        assertTrue(faulty.log().stream().anyMatch(l -> l.contains("/etcd.backup.gz -> 512 of")), faulty.log().toString());
        // The server stays dead for the next test: one restart for both.
    }

    @Test
    @Order(4)
    void anOnDemandBackupToAStoreThatIsDownFailsClearlyAndStoresNothing() throws Exception {
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec(), "--store", "offsite");
        s3Returns();
        assertEquals(1, backup.exitCode(), backup.all());
        assertTrue(backup.err().contains("store 'offsite'"), "names the store: " + backup.err());
        assertTrue(backup.err().contains("cannot connect to the S3 endpoint " + faulty.endpoint()), backup.err());
        assertOperatorMessage(backup);
        JsonNode list = listing("offsite");
        assertEquals(0, list.path("backups").size(), "neither failed backup counts: " + list);
        // S3Proxy's file backend may keep the cut-short upload as a stray object; if it shows, it says what it is.
        Cli.Run text = Cli.run("backups", "list", "-i", INV, "-f", spec(), "--store", "offsite");
        for (String line : text.out().lines().filter(l -> l.contains("incomplete")).toList()) {
            assertTrue(line.contains("a write or delete was cut short; 'backups prune' removes it"), line);
        }
    }

    @Test
    @Order(5)
    void aStoreAnswering503ForTheLastMetaLeavesNothingBehind() throws Exception {
        faulty.fail("PUT", "/_etcd_backup.meta", new FaultyProxy.Answer(503, "SlowDown"));
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec(), "--store", "offsite");
        faulty.clearFaults();
        assertEquals(1, backup.exitCode(), backup.all());
        assertTrue(backup.err().contains("store 'offsite'") && backup.err().contains("HTTP 503 SlowDown"), backup.err());
        assertTrue(backup.err().contains("_etcd_backup.meta"), backup.err());
        assertOperatorMessage(backup);
        // The data file and our meta were written, then removed: no leftover to explain.
        assertTrue(faulty.log().stream().anyMatch(l -> l.startsWith("PUT") && l.contains("/etcd.backup.gz -> passed")), faulty.log().toString());
        assertTrue(faulty.log().stream().anyMatch(l -> l.startsWith("DELETE") && l.contains("/etcd.backup.gz -> passed")), faulty.log().toString());
        JsonNode list = listing("offsite");
        assertEquals(0, list.path("backups").size(), list.toString());
        try (S3Store store = workstationS3()) {
            assertTrue(store.list("").stream().noneMatch(o -> o.key().endsWith("/etcdwright-backup.json")
                    || o.key().endsWith("/etcd.backup.gz")), store.list("").toString());
        }
    }

    @Test
    @Order(6)
    void aConnectionResetMidUploadFailsClearly() throws Exception {
        faulty.fail("PUT", "/etcd.backup.gz", new FaultyProxy.ResetAfter(1024));
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec(), "--store", "offsite");
        faulty.clearFaults();
        assertEquals(1, backup.exitCode(), backup.all());
        assertTrue(backup.err().contains("store 'offsite'") && backup.err().contains("etcd.backup.gz"), backup.err());
        assertOperatorMessage(backup);
        assertEquals(0, listing("offsite").path("backups").size());
    }

    @Test
    @Order(7)
    void anSftpStoreWhoseHostIsUnreachableFailsBeforeTheSnapshot() throws Exception {
        Testbed.run("isolate", "4");
        Cli.Run backup;
        try {
            backup = Cli.run("backup", "-i", INV, "-f", spec(), "--store", "vault", "--connect-timeout", "3");
        } finally {
            Testbed.run("rejoin", "4");
        }
        assertEquals(1, backup.exitCode(), backup.all());
        assertTrue(backup.err().contains("h4"), "names the store's host: " + backup.err());
        assertOperatorMessage(backup);
        assertEquals("", Testbed.ssh(4, "ls -A /srv/etcd-backups 2>/dev/null || true"), "nothing on the store's host");
    }

    @Test
    @Order(8)
    void onceTheStoresAnswerTheNextBackupsSucceedAndVerifyWithEveryAcknowledgedWrite() throws Exception {
        for (String store : List.of("offsite", "vault")) {
            Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec(), "--store", store, "-o", "json");
            assertEquals(0, backup.exitCode(), backup.all());
            Cli.Run verify = Cli.run("backups", "verify", "-i", INV, "-f", spec(), "--store", store);
            assertEquals(0, verify.exitCode(), verify.all());
            Cli.Run prune = Cli.run("backups", "prune", "-i", INV, "-f", spec(), "--store", store);
            assertEquals(0, prune.exitCode(), prune.all());
            JsonNode list = listing(store);
            assertEquals(1, list.path("backups").size(), list.toString());
            assertEquals(JSON.readTree(backup.out()).path("name").asText(), list.path("backups").get(0).path("name").asText());
            assertEquals(0, list.path("incomplete").size(), "prune removed any leftover: " + list);
        }
        WriteLoad.Acks acks = load.stop();
        assertTrue(acks.acks().size() > 20, "writes were acknowledged meanwhile: " + acks.acks().size());
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec());
        WriteLoad.checkNothingLost(Etcdctl.env(env.out()), acks, "store faults", 3);
        JsonNode status = JSON.readTree(Cli.run("status", "-i", INV, "-f", spec(), "-o", "json").out());
        for (JsonNode m : status.path("members")) {
            if (m.path("leader").asBoolean()) {
                leader = Integer.parseInt(m.path("name").asText().substring(1));
            }
        }
        assertTrue(leader >= 1 && leader <= 3, status.toString());
    }

    static JsonNode lastRun() throws Exception {
        return JSON.readTree(Testbed.ssh(leader, "cat /var/lib/etcdwright/backup/last-run.json"));
    }

    static JsonNode scheduleStatus() throws Exception {
        return JSON.readTree(Cli.run("status", "-i", INV, "-f", work.resolve("scheduled.yaml").toString(), "-o", "json").out())
                .path("backups");
    }

    static String name(Instant t, int seq) {
        return NAME_TIME.format(t) + String.format("-%06d", seq);
    }

    @Test
    @Order(9)
    void scheduledRunsAgainstAFailingStoreFailVisiblyAndRetentionKeepsTheGoodBackups() throws Exception {
        String scheduled = work.resolve("scheduled.yaml").toString();
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", scheduled, "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        // Three hours ago, in one hour: a failed run's leftover (data, no metas) and, later that hour,
        // a good backup. The good one is the oldest complete backup of its hour: retention keeps it.
        Instant hour = Instant.ofEpochSecond((Instant.now().getEpochSecond() - 3 * 3600) / 3600 * 3600);
        String leftover = name(hour.plusSeconds(300), 1);
        String good = name(hour.plusSeconds(1800), 2);
        try (S3Client raw = s3.client()) {
            raw.putObject(r -> r.bucket(S3Proxy.BUCKET).key(PREFIX + leftover + "/etcd.backup.gz"), RequestBody.fromString("cut"));
            for (String file : List.of("etcd.backup.gz", "_etcd_backup.meta")) { // etcd-manager's: no meta of ours
                raw.putObject(r -> r.bucket(S3Proxy.BUCKET).key(PREFIX + good + "/" + file), RequestBody.fromString("{}"));
            }
        }

        // The store answers 503 to the meta that completes a backup.
        faulty.fail("PUT", "/_etcd_backup.meta", new FaultyProxy.Answer(503, "SlowDown"));
        assertNotEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"), "a failed run fails the unit");
        faulty.clearFaults();
        JsonNode run = lastRun();
        assertEquals("failed", run.path("result").asText(), run.toString());
        assertTrue(run.path("message").asText().startsWith("failed while uploading the meta files of"), run.toString());
        assertTrue(run.path("message").asText().contains("HTTP 503 SlowDown"), run.toString());

        // The store is down.
        s3Dies();
        int code;
        try {
            code = Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service");
        } finally {
            s3Returns();
        }
        assertNotEquals(0, code);
        run = lastRun();
        assertEquals("failed", run.path("result").asText(), run.toString());
        assertTrue(run.path("message").asText().contains("curl: (7)")
                && run.path("message").asText().contains(faulty.endpoint().getHost()), "why, with where: " + run);
        JsonNode backups = scheduleStatus();
        assertEquals(2, backups.path("failed_runs").asInt(), backups.toString());
        assertTrue(backups.path("last_failure").asText().contains("curl: (7)"), backups.toString());
        Cli.Run text = Cli.run("status", "-i", INV, "-f", scheduled);
        assertTrue(text.out().contains("failed runs: 2"), text.out());
        assertFalse(text.all().contains(s3.secretKey()));
        try (S3Store store = workstationS3()) {
            BackupCatalog.Listing listing = new BackupCatalog(store).list();
            assertEquals(2, listing.backups().size(), "the failed runs added no backup: " + listing);
            assertTrue(listing.backups().stream().anyMatch(b -> b.name().toString().equals(good)), listing.toString());
        }

        // The store answers again: the next run succeeds, prunes, and keeps the good backups.
        assertEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"));
        run = lastRun();
        assertEquals("success", run.path("result").asText(), run.toString());
        assertEquals(0, scheduleStatus().path("failed_runs").asInt());
        try (S3Store store = workstationS3()) {
            BackupCatalog.Listing listing = new BackupCatalog(store).list();
            List<String> names = listing.backups().stream().map(b -> b.name().toString()).toList();
            assertEquals(3, names.size(), listing.toString());
            assertTrue(names.contains(good), "a failed run's leftover never costs the good backup of its hour: " + names);
            assertEquals(run.path("name").asText(), names.get(2));
        }
        Cli.Run verify = Cli.run("backups", "verify", "-i", INV, "-f", scheduled, "--store", "offsite", run.path("name").asText());
        assertEquals(0, verify.exitCode(), verify.all());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", scheduled, "--detailed-exitcode").exitCode());
    }
}
