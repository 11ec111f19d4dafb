package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.EtcdManagerMeta;
import io.etcdwright.modules.backup.EtcdwrightBackupMeta;
import io.etcdwright.modules.backup.store.S3Settings;
import io.etcdwright.modules.backup.store.S3Store;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.KeyAlgorithm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scheduled backups on real hosts: a timer on every member, a backup from the leader only, in
 * etcd-manager's layout, pruned by its retention rules; a failing store is visible in status and
 * becomes drift; removing the schedule removes everything it installed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BackupScheduleIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final ObjectMapper JSON = new ObjectMapper();
    static final String STORE = "/var/backups/etcd";
    static final DateTimeFormatter NAME_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
    static String inv;
    static Path spec;
    static Path specWithout;
    static int leader;
    /** The backup the leader's run by hand wrote in {@link #onlyTheLeaderBacksUp}. */
    static String manualBackup;
    static S3Proxy s3proxy;
    static CertificateAuthority recipient;
    static Path credentials;
    static Path specS3;

    @BeforeAll
    static void hosts() throws Exception {
        Path home = HOSTS.home();
        String net = Testbed.NET;
        String port = Testbed.HTTP_PORT;
        // On etcd 3.7: the hosts' own snapshot save and etcdutl snapshot status of the newest release.
        String base = Files.readString(Testbed.ROOT.resolve("examples/three-node.yaml"))
                .replace("http://10.77.0.1:8799/", "http://" + net + ".1:" + port + "/")
                .replace("name: three", "name: sched")
                .replace("version: 3.5.16", "version: " + Testbed.newestRelease("3.7"));
        specWithout = home.resolve("without.yaml");
        Files.writeString(specWithout, base);
        spec = home.resolve("sched.yaml");
        Files.writeString(spec, base + """
                backup:
                  stores:
                    - name: local
                      type: directory
                      path: %s
                  schedule:
                    intervalMinutes: 1
                    store: local
                """.formatted(STORE));
        inv = Testbed.INVENTORY.toString();
    }

    @AfterAll
    static void cleanUp() {
        if (s3proxy != null) {
            s3proxy.close();
        }
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
    }

    static List<String> backups(int host) {
        String out = Testbed.ssh(host, "ls -1 " + STORE + " 2>/dev/null || true").strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }

    static JsonNode lastRun(int host) throws Exception {
        return JSON.readTree(Testbed.ssh(host, "cat /var/lib/etcdwright/backup/last-run.json"));
    }

    static JsonNode status() throws Exception {
        Cli.Run status = Cli.run("status", "-i", inv, "-f", spec.toString(), "-o", "json");
        return JSON.readTree(status.out());
    }

    /** etcdctl on a member's host, asking its own member with its healthcheck client. */
    static final String ETCDCTL = "ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379"
            + " --cacert=/etc/etcd/pki/ca.crt --cert=/etc/etcd/pki/healthcheck-client.crt --key=/etc/etcd/pki/healthcheck-client.key";

    /** The member that leads now (elections on a busy machine may move it between cases). */
    static int leaderNow() throws Exception {
        for (JsonNode m : status().path("members")) {
            if (m.path("leader").asBoolean()) {
                return Integer.parseInt(m.path("name").asText().substring(1));
            }
        }
        throw new AssertionError("no member leads: " + status());
    }

    static String etcdctl(int host, String args) {
        return Testbed.ssh(host, "ETCDCTL_API=3 etcdctl --endpoints=https://" + Testbed.address(host) + ":2379"
                + " --cacert=/etc/etcd/pki/ca.crt --cert=/etc/etcd/pki/healthcheck-client.crt"
                + " --key=/etc/etcd/pki/healthcheck-client.key " + args);
    }

    @Test
    @Order(1)
    void applyInstallsATimerOnEveryMemberWithRootOnlyFiles() throws Exception {
        Cli.Run apply = Cli.run("apply", "-i", inv, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertTrue(apply.out().contains("scheduled backups every 1 min to directory store 'local'"), apply.out());
        for (int h = 1; h <= 3; h++) {
            assertEquals("755 root\n600 root\n", Testbed.ssh(h, "stat -c '%a %U' /usr/local/lib/etcdwright/etcd-backup"
                    + " /etc/etcdwright/backup/backup.conf"));
            assertEquals("enabled\n", Testbed.ssh(h, "systemctl is-enabled etcdwright-backup.timer"));
            assertEquals("active\n", Testbed.ssh(h, "systemctl is-active etcdwright-backup.timer"));
            // The script takes snapshots with the member's own healthcheck client: no admin key on the host.
            assertEquals(1, Testbed.sshStatus(h, "test -e /etc/etcd/pki/admin.key"), "h" + h);
            assertTrue(Testbed.ssh(h, "cat /etc/etcdwright/backup/backup.conf").contains("/etc/etcd/pki/healthcheck-client.key"));
        }
        Cli.Run again = Cli.run("plan", "-i", inv, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "installed and converged: " + again.all());
        for (JsonNode m : status().path("members")) {
            if (m.path("leader").asBoolean()) {
                leader = Integer.parseInt(m.path("name").asText().substring(1));
            }
        }
        assertTrue(leader >= 1 && leader <= 3);
        // A cluster without a single key backs up too: its count is 0, not a failed run.
        assertEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"), "a run on the empty cluster");
        assertEquals("success", lastRun(leader).path("result").asText(), lastRun(leader).toString());
        etcdctl(leader, "put /backup/probe written-before-the-backup");
    }

    /** Started by hand on every member: only the leader backs up. (The timer's own runs: {@link #aTickMissedWhileTheHostsWereOffIsTakenAtBoot}.) */
    @Test
    @Order(2)
    void onlyTheLeaderBacksUp() throws Exception {
        // Run by hand only: a tick of the timers (at the top of every minute) would add backups meanwhile.
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "systemctl stop etcdwright-backup.timer; rm -rf " + STORE);
        }
        leader = leaderNow();
        for (int h = 1; h <= 3; h++) {
            assertEquals(0, Testbed.sshStatus(h, "systemctl start etcdwright-backup.service"), "a run exits 0 on h" + h);
        }
        for (int h = 1; h <= 3; h++) {
            if (h == leader) {
                assertEquals("success", lastRun(h).path("result").asText());
                assertEquals(1, backups(h).size(), backups(h).toString());
                manualBackup = backups(h).get(0);
            } else {
                assertEquals("not-leader", lastRun(h).path("result").asText(), "h" + h + " exits quietly");
                assertEquals(List.of(), backups(h), "no backup from follower h" + h);
                assertTrue(Testbed.ssh(h, "journalctl -u etcdwright-backup.service --no-pager -o cat")
                        .contains("does not lead"), "a journal line on h" + h);
            }
        }
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "systemctl start etcdwright-backup.timer");
        }
    }

    @Test
    @Order(3)
    void theBackupIsAVerifiedSnapshotInEtcdManagersLayout() throws Exception {
        // The one run by hand, complete: a tick of the timer may be writing a newer one right now.
        String name = manualBackup;
        String dir = STORE + "/" + name;
        assertEquals("_etcd_backup.meta\netcd.backup.gz\netcdwright-backup.json\n", Testbed.ssh(leader, "ls -1 " + dir));
        JsonNode meta = JSON.readTree(Testbed.ssh(leader, "cat " + dir + "/_etcd_backup.meta"));
        Instant taken = Instant.from(NAME_TIME.parse(name.substring(0, 20)));
        assertEquals(Long.toString(taken.getEpochSecond()), meta.path("timestamp").asText());
        assertTrue(meta.path("timestamp").isTextual(), "jsonpb writes int64 quoted");
        assertEquals(Testbed.newestRelease("3.7"), meta.path("etcdVersion").asText());
        assertEquals(3, meta.path("clusterSpec").path("memberCount").asInt());
        // The workstation side reads what the hosts write: etcd-manager's meta byte for byte as
        // its jsonpb writes it, ours with every field it requires.
        String managerMeta = Testbed.ssh(leader, "cat " + dir + "/_etcd_backup.meta");
        EtcdManagerMeta parsedMeta = EtcdManagerMeta.parse("host meta", managerMeta.getBytes(StandardCharsets.UTF_8));
        assertEquals(managerMeta, parsedMeta.toJson());
        EtcdwrightBackupMeta parsedOurs = EtcdwrightBackupMeta.parse("host meta",
                Testbed.ssh(leader, "cat " + dir + "/etcdwright-backup.json").getBytes(StandardCharsets.UTF_8));
        assertEquals("h" + leader, parsedOurs.takenFrom());
        JsonNode ours = JSON.readTree(Testbed.ssh(leader, "cat " + dir + "/etcdwright-backup.json"));
        assertEquals("sched", ours.path("clusterName").asText());
        assertEquals("schedule", ours.path("takenBy").asText());
        assertFalse(ours.path("encrypted").asBoolean());
        assertEquals("etcd.backup.gz", ours.path("object").asText());

        String check = Testbed.ssh(leader, "set -e; t=$(mktemp -d); gunzip -c " + dir + "/etcd.backup.gz > $t/db;"
                + " etcdutl snapshot status -w json $t/db; head -c $(( $(stat -c %s $t/db) - 32 )) $t/db | sha256sum;"
                + " stat -c %s " + dir + "/etcd.backup.gz; rm -rf $t");
        String[] lines = check.split("\n");
        JsonNode snapshot = JSON.readTree(lines[0]);
        assertEquals(ours.path("revision").asLong(), snapshot.path("revision").asLong());
        assertTrue(snapshot.path("revision").asLong() >= 2, "the put before the backup is in it: " + snapshot);
        // keyCount is what a client sees (live keys), which the workstation reads from the db itself.
        Path db = Files.createTempFile("scheduled", ".db");
        try {
            String base64 = Testbed.ssh(leader, "gunzip -c " + dir + "/etcd.backup.gz | base64 -w0");
            Files.write(db, java.util.Base64.getDecoder().decode(base64.strip()));
            assertEquals(parsedOurs.keyCount(), io.etcdwright.modules.backup.BoltSnapshot.status(db).liveKeys());
            assertTrue(parsedOurs.keyCount() >= 1, "the put before the backup counts: " + parsedOurs);
        } finally {
            Files.deleteIfExists(db);
        }
        assertEquals(ours.path("dbSha256").asText(), lines[1].split(" ")[0]);
        assertEquals(ours.path("compressedSize").asLong(), Long.parseLong(lines[2].strip()));
    }

    @Test
    @Order(4)
    void retentionDropsExactlyWhatEtcdManagersRulesDrop() throws Exception {
        long now = Long.parseLong(Testbed.ssh(leader, "date -u +%s").strip());
        long hour = (now - 3 * 3600) / 3600 * 3600;       // an hour bucket 2-3 h ago: hourly rule
        long day = (now - 10 * 86400) / 86400 * 86400;    // a day 10 days ago: daily rule
        List<Long> keep = List.of(now - 600, hour + 600, day + 3600);
        List<Long> drop = List.of(hour + 1200, hour + 3000, day + 5 * 3600, now - 800L * 86400);
        List<String> seeded = new ArrayList<>();
        StringBuilder script = new StringBuilder("set -e\n");
        for (long t : concat(keep, drop)) {
            String name = NAME_TIME.format(Instant.ofEpochSecond(t)) + "-000000";
            seeded.add(name);
            script.append("mkdir -p ").append(STORE).append('/').append(name).append(" && cd ").append(STORE).append('/')
                    .append(name).append(" && echo data > etcd.backup.gz && echo '{}' > _etcd_backup.meta && echo '{}' > etcdwright-backup.json\n");
        }
        script.append("mkdir -p ").append(STORE).append("/control && echo x > ").append(STORE).append("/control/etcd-cluster-spec\n");
        Testbed.ssh(leader, script.toString());
        // The timer's own runs since the last test are younger than an hour: all kept. It is
        // paused meanwhile, so exactly one run happens between the two listings.
        Testbed.ssh(leader, "systemctl stop etcdwright-backup.timer");
        Set<String> before = new TreeSet<>(backups(leader));
        assertEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"));
        Set<String> after = new TreeSet<>(backups(leader));
        Testbed.ssh(leader, "systemctl start etcdwright-backup.timer");
        for (long t : keep) {
            assertTrue(after.contains(NAME_TIME.format(Instant.ofEpochSecond(t)) + "-000000"), "kept " + t + ": " + after);
        }
        for (long t : drop) {
            assertFalse(after.contains(NAME_TIME.format(Instant.ofEpochSecond(t)) + "-000000"), "dropped " + t + ": " + after);
        }
        assertTrue(after.contains("control"), "etcd-manager's control directory is no backup");
        Set<String> expected = new TreeSet<>(before);
        drop.forEach(t -> expected.remove(NAME_TIME.format(Instant.ofEpochSecond(t)) + "-000000"));
        Set<String> newOnes = new TreeSet<>(after);
        newOnes.removeAll(expected);
        assertEquals(1, newOnes.size(), "exactly the new backup was added: " + newOnes);
        assertTrue(after.containsAll(expected), "nothing else removed: " + expected + " vs " + after);
    }

    @Test
    @Order(5)
    void statusShowsTheNewestBackupsAge() throws Exception {
        JsonNode backups = status().path("backups");
        assertEquals("h" + leader, backups.path("newest_member").asText(), backups.toString());
        assertTrue(backups.path("newest_age_seconds").asLong() < 120, backups.toString());
        assertFalse(backups.path("stale").asBoolean());
        assertEquals(0, backups.path("failed_runs").asInt());
        Cli.Run text = Cli.run("status", "-i", inv, "-f", spec.toString());
        assertTrue(text.out().contains("scheduled backups (every 1 min to store 'local'): newest "), text.out());
        assertFalse(text.out().contains("WARNING"), text.out());
    }

    @Test
    @Order(6)
    void failingRunsShowInStatusAndBecomeDriftOnceTwoIntervalsPass() throws Exception {
        // The store's path is taken by a file on every member: whoever leads cannot write.
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "rm -rf " + STORE + ".saved; if [ -d " + STORE + " ]; then mv " + STORE + " " + STORE + ".saved; fi;"
                    + " echo not-a-directory > " + STORE);
        }
        assertNotEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"), "a failed run fails the unit");
        JsonNode run = lastRun(leader);
        assertEquals("failed", run.path("result").asText());
        assertTrue(run.path("message").asText().contains("uploading"), run.toString());
        assertEquals("not-a-directory\n", Testbed.ssh(leader, "cat " + STORE), "nothing of the failed run is left");
        JsonNode backups = status().path("backups");
        assertTrue(backups.path("failed_runs").asInt() >= 1, backups.toString());
        assertTrue(backups.path("last_failure").asText().contains("failed while uploading"), backups.toString());

        // Two intervals pass, as far as the hosts' records tell: each member's record of its last
        // success and the timer's file (when the schedule was installed) moved three minutes back,
        // the times the product reads, instead of the suite waiting two minutes for them.
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "f=/var/lib/etcdwright/backup/last-success.json; t=$(date -u -d '3 minutes ago' +%Y-%m-%dT%H:%M:%SZ)\n"
                    + "if [ -f $f ]; then sed -i \"s/\\\"time\\\":\\\"[^\\\"]*\\\"/\\\"time\\\":\\\"$t\\\"/\" $f; fi\n"
                    + "touch -d '3 minutes ago' /etc/systemd/system/etcdwright-backup.timer");
        }
        JsonNode aged = status().path("backups");
        assertTrue(aged.path("stale").asBoolean(), aged.toString());
        Cli.Run text = Cli.run("status", "-i", inv, "-f", spec.toString());
        assertTrue(text.out().contains("WARNING: no scheduled backup within two intervals"), text.out());
        Cli.Run plan = Cli.run("plan", "-i", inv, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(2, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("drift: cluster sched: the newest scheduled backup"), plan.out());
        assertTrue(plan.out().contains("No steps to apply"), "nothing to apply, only drift: " + plan.out());

        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "rm -f " + STORE + "; if [ -d " + STORE + ".saved ]; then mv " + STORE + ".saved " + STORE + "; fi");
        }
        assertEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"));
        assertEquals(0, status().path("backups").path("failed_runs").asInt(), "a success resets the count");
        assertEquals(0, Cli.run("plan", "-i", inv, "-f", spec.toString(), "--detailed-exitcode").exitCode());
    }

    @Test
    @Order(7)
    void scheduledBackupsReachS3FromTheLeaderOnlyEncryptedAndReadableByTheWorkstation() throws Exception {
        s3proxy = S3Proxy.start(Testbed.bridgeAddress());
        Path home = spec.getParent();
        recipient = CertificateAuthority.generate("backup recipient", KeyAlgorithm.ECDSA_P256, Duration.ofDays(30), Clock.systemUTC());
        Path recipientDir = Files.createDirectories(home.resolve("recipient"));
        recipient.writeTo(recipientDir);
        credentials = home.resolve("host-s3.env");
        Files.writeString(credentials, "AWS_ACCESS_KEY_ID=" + s3proxy.accessKey() + "\nAWS_SECRET_ACCESS_KEY=" + s3proxy.secretKey() + "\n");
        specS3 = home.resolve("sched-s3.yaml");
        Files.writeString(specS3, Files.readString(specWithout) + """
                backup:
                  stores:
                    - name: offsite
                      type: s3
                      bucket: %s
                      endpoint: %s
                      pathStyle: true
                  encryption:
                    recipients: [recipient/ca.crt]
                  schedule:
                    intervalMinutes: 1
                    store: offsite
                    credentialsFile: host-s3.env
                """.formatted(S3Proxy.BUCKET, s3proxy.endpoint()));
        Cli.Run plan = Cli.run("plan", "-i", inv, "-f", specS3.toString(), "--diff");
        assertEquals(0, plan.exitCode(), plan.all());
        assertFalse(plan.all().contains(s3proxy.secretKey()), "the hosts' secret is never shown");
        assertTrue(plan.out().contains("credentials missing"), plan.out());
        Cli.Run apply = Cli.run("apply", "-i", inv, "-f", specS3.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertFalse(apply.all().contains(s3proxy.secretKey()));
        // The members are run by hand here: a tick at the top of a minute would add a backup meanwhile.
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "systemctl stop etcdwright-backup.timer");
        }
        leader = leaderNow();
        // Larger than a part: about 10 MiB of random values (incompressible), and parts of S3's minimum,
        // 5 MiB (the hosts' default is 64 MiB), so the leader's upload is a multipart upload.
        Testbed.ssh(leader, "for i in $(seq 14); do head -c 700000 /dev/urandom | base64 -w0 | " + ETCDCTL + " put /big/$i"
                + " >/dev/null; done");
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "echo S3_PART_SIZE=5242880 >> /etc/etcdwright/backup/backup.conf");
        }
        for (int h = 1; h <= 3; h++) {
            assertEquals("600 root\n", Testbed.ssh(h, "stat -c '%a %U' /etc/etcdwright/backup/credentials"));
            assertEquals(0, Testbed.sshStatus(h, "systemctl start etcdwright-backup.service"), "a run exits 0 on h" + h);
            assertEquals(h == leader ? "success" : "not-leader", lastRun(h).path("result").asText(), "h" + h);
        }
        System.setProperty("aws.accessKeyId", s3proxy.accessKey());
        System.setProperty("aws.secretAccessKey", s3proxy.secretKey());
        try (S3Store store = new S3Store(new S3Settings(S3Proxy.BUCKET, "sched/", Optional.of(s3proxy.endpoint()),
                Optional.empty(), true))) {
            BackupCatalog.Listing listing = new BackupCatalog(store).list();
            assertEquals(1, listing.backups().size(), listing.toString());
            assertEquals(List.of(), listing.incomplete());
            BackupCatalog.Backup backup = listing.backups().get(0);
            assertTrue(backup.encrypted());
            assertTrue(backup.size() > 5L << 20, "larger than a part: " + backup.size());
            String journal = Testbed.ssh(leader, "journalctl -u etcdwright-backup.service --no-pager -o cat");
            java.util.regex.Matcher parts = java.util.regex.Pattern.compile("uploaded " + backup.name() + "/etcd.backup.gz.p7m in"
                    + " (\\d+) parts of at most 5242880 bytes").matcher(journal);
            assertTrue(parts.find() && Integer.parseInt(parts.group(1)) >= 2, "a multipart upload: " + journal);
            assertEquals("h" + leader, backup.meta().orElseThrow().takenFrom());

            // Decrypted with the recipient's key, it is the snapshot the meta describes.
            Path p7m = home.resolve("backup.p7m");
            try (var in = store.open(backup.dataKey())) {
                Files.copy(in, p7m);
            }
            Path gz = home.resolve("backup.gz");
            Testbed.Result decrypt = Testbed.exec(List.of("openssl", "cms", "-decrypt", "-binary", "-inform", "DER", "-in",
                    p7m.toString(), "-out", gz.toString(), "-recip", recipientDir.resolve("ca.crt").toString(),
                    "-inkey", recipientDir.resolve("ca.key").toString()));
            assertEquals(0, decrypt.exitCode(), decrypt.stderr());
            byte[] db;
            try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(gz))) {
                db = in.readAllBytes();
            }
            String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(java.util.Arrays.copyOf(db, db.length - 32)));
            assertEquals(backup.meta().get().dbSha256(), sha);
            // And etcdwright's own reader proves it end to end: decrypt, trailer, database, meta.
            Cli.Run verify = Cli.run("backups", "verify", "-i", inv, "-f", specS3.toString(), backup.name().toString(),
                    "--key", recipientDir.resolve("ca.key").toString());
            assertEquals(0, verify.exitCode(), verify.all());

            // A small database again before the timers take over, each of whose runs would snapshot it.
            Testbed.ssh(leader, "set -e; " + ETCDCTL + " del --prefix /big >/dev/null; r=$(" + ETCDCTL + " endpoint status -w json"
                    + " | grep -o '\"revision\":[0-9]*' | cut -d: -f2); " + ETCDCTL + " compact $r >/dev/null; " + ETCDCTL
                    + " defrag --cluster >/dev/null");
            for (int h = 1; h <= 3; h++) {
                Testbed.ssh(h, "systemctl start etcdwright-backup.timer");
            }
            leader = leaderNow();
            // The timer takes the next one by itself, still only on the leader.
            long deadline = System.currentTimeMillis() + 150_000;
            while (new BackupCatalog(store).list().backups().size() < 2 && System.currentTimeMillis() < deadline) {
                Thread.sleep(5_000);
            }
            BackupCatalog.Listing later = new BackupCatalog(store).list();
            assertTrue(later.backups().size() >= 2, later.toString());
            later.backups().forEach(b -> assertEquals("h" + leader, b.meta().orElseThrow().takenFrom()));
        }
    }

    @Test
    @Order(8)
    void aWrongSecretFailsTheRunVisiblyAndLeavesNothingBehind() throws Exception {
        Files.writeString(credentials, "AWS_ACCESS_KEY_ID=" + s3proxy.accessKey() + "\nAWS_SECRET_ACCESS_KEY=not-the-secret\n");
        Cli.Run plan = Cli.run("plan", "-i", inv, "-f", specS3.toString());
        assertTrue(plan.out().contains("credentials differs (by digest)"), plan.out());
        assertEquals(0, Cli.run("apply", "-i", inv, "-f", specS3.toString(), "--yes").exitCode());
        leader = leaderNow();
        Testbed.ssh(leader, "systemctl stop etcdwright-backup.timer");
        try (S3Store store = new S3Store(new S3Settings(S3Proxy.BUCKET, "sched/", Optional.of(s3proxy.endpoint()),
                Optional.empty(), true))) {
            int before = store.list("").size();
            assertNotEquals(0, Testbed.sshStatus(leader, "systemctl start etcdwright-backup.service"));
            JsonNode run = lastRun(leader);
            assertEquals("failed", run.path("result").asText());
            assertTrue(run.path("message").asText().contains("HTTP 403"), run.toString());
            assertEquals(before, store.list("").size(), "no partial backup");
        }
        Cli.Run status = Cli.run("status", "-i", inv, "-f", specS3.toString());
        assertTrue(status.out().contains("failed runs: 1") || status.out().contains("failed runs: 2"), status.out());
        assertTrue(status.out().contains("last failure: failed while uploading"), status.out());
        assertTrue(status.out().contains("HTTP 403"), status.out());
        String journal = Testbed.ssh(leader, "journalctl -u etcdwright-backup.service --no-pager -o cat");
        assertFalse(journal.contains("not-the-secret") || journal.contains(s3proxy.secretKey()), "no secret in the journal");
        Testbed.ssh(leader, "systemctl start etcdwright-backup.timer");
        s3proxy.close();
    }

    @Test
    @Order(9)
    void scheduledBackupsReachAnSftpStoreWithTheHostsOwnKeyFromTheLeaderOnly() throws Exception {
        Path home = spec.getParent();
        Path key = home.resolve("host-sftp.key");
        Testbed.Result keygen = Testbed.exec(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "etcd-backups",
                "-f", key.toString()));
        assertEquals(0, keygen.exitCode(), keygen.stderr());
        // The store's host lets the members' own key in; the workstation keeps its own.
        Testbed.ssh(1, "echo '" + Files.readString(home.resolve("host-sftp.key.pub")).strip() + "' >> /root/.ssh/authorized_keys");
        Path specSftp = home.resolve("sched-sftp.yaml");
        Files.writeString(specSftp, Files.readString(specWithout) + """
                backup:
                  stores:
                    - {name: vault, type: sftp, host: h1, path: /srv/sched-sftp}
                  schedule:
                    intervalMinutes: 1
                    store: vault
                    credentialsFile: host-sftp.key
                """);
        Cli.Run apply = Cli.run("apply", "-i", inv, "-f", specSftp.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertFalse(apply.all().contains(Files.readString(key).lines().skip(1).findFirst().orElseThrow()), "no key in the output");
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "systemctl stop etcdwright-backup.timer");
        }
        for (int h = 1; h <= 3; h++) {
            assertEquals(0, Testbed.sshStatus(h, "systemctl start etcdwright-backup.service"), "a run exits 0 on h" + h);
            assertEquals(h == leader ? "success" : "not-leader", lastRun(h).path("result").asText(), "h" + h);
        }
        String stored = Testbed.ssh(1, "cd /srv/sched-sftp && find . -type f | sort").strip();
        assertEquals(3, stored.lines().count(), stored);
        assertTrue(stored.contains("/etcd.backup.gz") && stored.contains("/_etcd_backup.meta"), stored);
        assertEquals("0", Testbed.ssh(1, "find /srv/sched-sftp -name '*.part' | wc -l").strip());
        Cli.Run verify = Cli.run("backups", "verify", "-i", inv, "-f", specSftp.toString());
        assertEquals(0, verify.exitCode(), verify.all());
        Cli.Run list = Cli.run("backups", "list", "-i", inv, "-f", specSftp.toString(), "-o", "json");
        JsonNode backups = JSON.readTree(list.out()).path("backups");
        assertEquals(1, backups.size(), list.out());
        assertEquals("h" + leader, backups.get(0).path("taken_from").asText());
        for (int h = 1; h <= 3; h++) {
            Testbed.ssh(h, "systemctl start etcdwright-backup.timer");
        }
    }

    /**
     * A power cut on every member across a tick: the timer ticks at fixed times of the day, and a tick
     * missed while the hosts were off is taken as soon as they boot (Persistent=true), not a whole
     * interval later. Daily ticks here, the last one taken two days ago as far as systemd's record
     * on each host tells (its stamp file moved back, instead of the suite waiting days): after the
     * boot the members run by themselves within the timer's random delay, and the leader backs up.
     */
    @Test
    @Order(10)
    void aTickMissedWhileTheHostsWereOffIsTakenAtBoot() throws Exception {
        Path daily = spec.getParent().resolve("sched-daily.yaml");
        Files.writeString(daily, Files.readString(spec).replace("intervalMinutes: 1", "intervalMinutes: 1440"));
        Cli.Run apply = Cli.run("apply", "-i", inv, "-f", daily.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        List<Set<String>> before = new ArrayList<>();
        for (int h = 1; h <= 3; h++) {
            assertTrue(Testbed.ssh(h, "cat /etc/systemd/system/etcdwright-backup.timer")
                    .contains("OnCalendar=*-*-* 00:00:00 UTC\nPersistent=true\n"));
            Testbed.ssh(h, "touch -d '2 days ago' /var/lib/systemd/timers/stamp-etcdwright-backup.timer");
            before.add(new TreeSet<>(backups(h)));
        }
        for (int h = 1; h <= 3; h++) {
            Testbed.run("crash", String.valueOf(h));
        }
        Instant booted = Instant.now().minusSeconds(1);
        for (int h = 1; h <= 3; h++) {
            Testbed.run("boot", String.valueOf(h));
        }
        // The leader's run is the one that backs up; the followers' runs (not-leader) may come later in the delay.
        long deadline = System.currentTimeMillis() + 150_000;
        List<Integer> backedUp = new ArrayList<>();
        while (backedUp.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(3_000);
            for (int h = 1; h <= 3; h++) {
                String record = Testbed.ssh(h, "cat /var/lib/etcdwright/backup/last-run.json 2>/dev/null || true").strip();
                if (!record.isEmpty() && JSON.readTree(record).path("result").asText().equals("success")
                        && !Instant.parse(JSON.readTree(record).path("time").asText()).isBefore(booted)) {
                    backedUp.add(h);
                }
            }
        }
        assertEquals(1, backedUp.size(), "a member ran by itself after the boot, before the next day's tick, and backed up: "
                + backedUp);
        int h = backedUp.get(0);
        Set<String> added = new TreeSet<>(backups(h));
        added.removeAll(before.get(h - 1));
        assertEquals(1, added.size(), "the catch-up backup on h" + h + ": " + added);
    }

    @Test
    @Order(11)
    void removingTheScheduleRemovesTimerScriptConfigAndState() {
        Cli.Run apply = Cli.run("apply", "-i", inv, "-f", specWithout.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertTrue(apply.out().contains("remove scheduled backups"), apply.out());
        for (int h = 1; h <= 3; h++) {
            assertEquals("", Testbed.ssh(h, "ls /etc/etcdwright/backup /usr/local/lib/etcdwright/etcd-backup"
                    + " /etc/systemd/system/etcdwright-backup.timer /etc/systemd/system/etcdwright-backup.service"
                    + " /var/lib/etcdwright/backup 2>/dev/null || true"));
            assertNotEquals(0, Testbed.sshStatus(h, "systemctl is-active --quiet etcdwright-backup.timer"));
            assertEquals("active\n", Testbed.ssh(h, "systemctl is-active etcd"), "etcd untouched on h" + h);
        }
        Cli.Run again = Cli.run("apply", "-i", inv, "-f", specWithout.toString(), "--yes", "--detailed-exitcode");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.out().contains("No changes."), again.out());
    }

    private static List<Long> concat(List<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
