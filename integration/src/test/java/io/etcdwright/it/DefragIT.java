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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Maintenance on real hosts, on a cluster with a 16 MiB quota. Defragmentation under a write load:
 * one member at a time, the leader last, every acknowledged write kept. Then the quota filled until
 * etcd raises NOSPACE and refuses writes: status and plan report it; defrag refuses to disarm while
 * the database is still full; once the operator compacted, defrag gives the space back, disarms the
 * alarm, and the cluster takes writes again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DefragIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static final long QUOTA = 16L << 20;
    /** etcdctl on a member's host, with that member's own healthcheck client (no auth: it may write). */
    static final String ETCDCTL = "e() { ETCDCTL_API=3 /usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379"
            + " --cacert=/etc/etcd/pki/ca.crt --cert=/etc/etcd/pki/healthcheck-client.crt"
            + " --key=/etc/etcd/pki/healthcheck-client.key --command-timeout=10s \"$@\"; }\n";
    /** A 100 KB value that does not compress, written over one key: each put adds a revision of that size. */
    static final String PUT = "head -c 75000 /dev/urandom | base64 -w0 | e put /etcdwright-it/fill >/dev/null";
    static Path spec;
    static Map<String, String> env;

    @BeforeAll
    static void cluster() throws Exception {
        Testbed.removeEtcd(3);
        spec = HOSTS.home().resolve("maint.yaml");
        // On etcd 3.6 (which dropped etcdctl defrag --data-dir): defragmenting does not depend on the release.
        Files.writeString(spec, Testbed.example("three-node.yaml").replace("name: three", "name: maint")
                .replace("version: 3.5.16", "version: " + Testbed.newestRelease("3.6"))
                .replace("quota-backend-bytes: 2147483648", "quota-backend-bytes: " + QUOTA));
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
    }

    @AfterAll
    static void cleanUp() {
        Testbed.removeEtcd(3);
        for (int h = 1; h <= 3; h++) {
            Testbed.sshStatus(h, "rm -rf /var/lib/etcd");
        }
    }

    /**
     * Compacts away every revision older than the newest: what kube-apiserver does every few minutes.
     * '--physical' waits for the member asked only; a member counts the pages a compaction released
     * as free at its next write transaction (bbolt keeps them pending until then), which an idle
     * follower has not had. Where writes are taken, this returns once every member reports the space
     * free, a small write (which every member applies) repeated until then; under NOSPACE no write
     * is taken, and defrag is expected to cope with the figures as they are.
     */
    private static void compact(boolean writesTaken) throws InterruptedException {
        Testbed.ssh(1, ETCDCTL + "rev=$(e get /etcdwright-it/fill -w fields | sed -n 's/^\"Revision\" : //p')\n"
                + "e compact --physical \"$rev\"");
        if (!writesTaken) {
            return;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (int host = 1; host <= 3; host++) {
            long inUse;
            while ((inUse = inUseBytes(host)) > QUOTA / 4) {
                assertTrue(System.nanoTime() < deadline, "h" + host + " still uses " + inUse + " bytes 60 s after the compaction");
                Testbed.ssh(1, ETCDCTL + "e put /etcdwright-it/settle x >/dev/null");
                Thread.sleep(300);
            }
        }
    }

    /** Puts of uncompressible values on h1 until etcd refuses one for its quota (raising NOSPACE). */
    private static void fillUntilRefused() {
        Testbed.Result fill = Testbed.exec(List.of(Testbed.SCRIPT.toString(), "ssh", "1", ETCDCTL
                + "for i in $(seq 1 400); do " + PUT + " 2>/tmp/fill.err || { cat /tmp/fill.err; exit 0; }; done; echo never full"));
        assertTrue(fill.stdout().contains("database space exceeded"), fill.stdout() + fill.stderr());
    }

    /** The member's own answer: how much of its database holds live data. */
    private static long inUseBytes(int host) {
        Matcher m = Pattern.compile("\"dbSizeInUse\":(\\d+)").matcher(Testbed.ssh(host, ETCDCTL + "e endpoint status -w json"));
        assertTrue(m.find(), "h" + host + " reports dbSizeInUse");
        return Long.parseLong(m.group(1));
    }

    /** The defragmented members' hosts, in the order defrag's progress lines show them done. */
    private static List<String> defragmented(String out) {
        List<String> hosts = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^(h\\d)\\s+defragment member \\S+.*: changed").matcher(out);
        while (m.find()) {
            hosts.add(m.group(1));
        }
        return hosts;
    }

    private static String leader() throws Exception {
        Cli.Run status = Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json");
        for (JsonNode m : new ObjectMapper().readTree(status.out()).path("members")) {
            if (m.path("leader").asBoolean()) {
                return m.path("name").asText();
            }
        }
        throw new AssertionError("no leader in " + status.out());
    }

    @Test
    @Order(1)
    void defragUnderWritesTakesOneMemberAtATimeTheLeaderLastAndLosesNothing() throws Exception {
        // About 5 MB of overwritten revisions, compacted away: free pages a defragmentation gives back.
        Testbed.ssh(1, ETCDCTL + "for i in $(seq 1 50); do " + PUT + "; done");
        compact(true);
        String leader = leader();
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("defrag.acks"))) {
            load.awaitMore(300, Duration.ofSeconds(60));
            long started = System.nanoTime();
            Cli.Run defrag = Cli.run("defrag", "-i", INV, "-f", spec.toString(), "--yes");
            System.out.println("[defrag] took " + (System.nanoTime() - started) / 1_000_000 + " ms");
            assertEquals(0, defrag.exitCode(), defrag.all());
            List<String> order = defragmented(defrag.out());
            assertEquals(3, order.size(), defrag.out());
            assertEquals(leader, order.get(2), "the leader last: " + defrag.out());
            load.awaitMore(100, Duration.ofSeconds(30));
            WriteLoad.Report report = WriteLoad.checkNothingLost(env, load.stop(), "defrag under writes", 3);
            System.out.println("[defrag] longest write stall " + report.load().longestStallMillis() + " ms");
        }
        // Nothing left worth it: a second defrag does nothing.
        Cli.Run again = Cli.run("defrag", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.out().contains("Nothing to defragment"), again.out());
    }

    @Test
    @Order(2)
    void aNospaceAlarmIsReportedAndDefragWithDisarmBringsWritesBack() throws Exception {
        // Fill the quota: puts until etcd refuses one. At that point the file has reached the quota,
        // but up to a tenth of it can be free pages (each put rewrites B-tree pages it cannot reuse
        // at once), so what is live may be just under the 90% defrag disarms below. Defragmented
        // (no compaction: every revision stays) and filled again from there, the live data grows
        // with the file until the quota is reached a second time, well above 90%.
        fillUntilRefused();
        Testbed.ssh(1, ETCDCTL + "e defrag --cluster >/dev/null && e alarm disarm >/dev/null");
        fillUntilRefused();
        for (int host = 1; host <= 3; host++) {
            long inUse = inUseBytes(host);
            assertTrue(inUse * 100 >= QUOTA * 90, "h" + host + " holds " + inUse + " live bytes of its " + QUOTA
                    + " quota: not full enough for the refusal below");
        }

        Cli.Run status = Cli.run("status", "-i", INV, "-f", spec.toString());
        assertEquals(1, status.exitCode(), status.all());
        assertTrue(status.out().contains("ALARM NOSPACE on member h"), status.out());
        Cli.Run json = Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json");
        JsonNode alarms = new ObjectMapper().readTree(json.out()).path("alarms");
        assertEquals("NOSPACE", alarms.path(0).path("type").asText(), json.out());
        assertTrue(!alarms.path(0).path("etcdwright_write_fence").asBoolean(), json.out());
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertTrue(plan.out().contains("warning: etcd's NOSPACE alarm is raised on member h"), plan.all());

        // The database is still full: disarming now would only see it raised again at the next write.
        Cli.Run early = Cli.run("defrag", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(1, early.exitCode(), early.all());
        assertTrue(early.all().contains("NOSPACE not disarmed"), early.all());
        assertTrue(early.all().contains("compact"), early.all());

        compact(false);
        Cli.Run defrag = Cli.run("defrag", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, defrag.exitCode(), defrag.all());
        assertEquals(3, defragmented(defrag.out()).size(), defrag.out());
        // etcd raises it on each member whose write found the quota reached: one or more.
        assertTrue(Pattern.compile("disarmed [1-3] NOSPACE alarm\\(s\\); a write went through").matcher(defrag.out()).find(), defrag.out());

        Testbed.ssh(1, ETCDCTL + "e put /etcdwright-it/after-disarm ok");
        Cli.Run healthy = Cli.run("status", "-i", INV, "-f", spec.toString());
        assertEquals(0, healthy.exitCode(), healthy.all());
        assertTrue(!healthy.out().contains("ALARM"), healthy.out());
    }

    static final String DEFRAG_TIMER = "/etc/systemd/system/etcdwright-defrag.timer";

    /** A member's record of its last scheduled run. */
    private static JsonNode lastRun(int host) throws Exception {
        return new ObjectMapper().readTree(Testbed.ssh(host, "cat /var/lib/etcdwright/defrag/last-run.json"));
    }

    /** Runs host's scheduled defragmentation now, as its timer would (a oneshot: returns when the run ended). */
    private static JsonNode runScheduled(int host) throws Exception {
        Testbed.ssh(host, "systemctl start etcdwright-defrag.service || true");
        return lastRun(host);
    }

    /** Whether the member on host leads, as it says itself. */
    private static boolean leads(int host) {
        String status = Testbed.ssh(host, ETCDCTL + "e endpoint status -w json");
        Matcher id = Pattern.compile("\"member_id\":(\\d+)").matcher(status);
        Matcher leader = Pattern.compile("\"leader\":(\\d+)").matcher(status);
        assertTrue(id.find() && leader.find(), status);
        return id.group(1).equals(leader.group(1));
    }

    /** The member's database file, as it reports it. */
    private static long dbSize(int host) {
        Matcher m = Pattern.compile("\"dbSize\":(\\d+)").matcher(Testbed.ssh(host, ETCDCTL + "e endpoint status -w json"));
        assertTrue(m.find(), "h" + host + " reports dbSize");
        return Long.parseLong(m.group(1));
    }

    /**
     * maintenance.defrag.schedule on real hosts: apply installs a timer on every member, each at its
     * staggered time; each member's run (started as its timer would) defragments only its own member
     * under a write load, the leader after handing its leadership over, and a member not worth it is
     * left alone, saying why; a run finding the cluster's lock held skips and names the holder; the
     * schedule removed, the units go and the next plan is empty.
     */
    @Test
    @Order(3)
    void scheduledDefragmentationRunsOneMemberAtATimeWhenWorthItAndIsRemovedWithTheSchedule() throws Exception {
        // Twelve hours from now: the timers are installed for real but do not fire during the test.
        java.time.LocalTime at = java.time.LocalTime.now(java.time.ZoneOffset.UTC).plusHours(12).withSecond(0).withNano(0);
        Path scheduled = HOSTS.home().resolve("maint-scheduled.yaml");
        Files.writeString(scheduled, Files.readString(spec) + "maintenance:\n  defrag:\n    minFragmentationPercent: 20\n"
                + "    minDbSizeMiB: 1\n    schedule:\n      at: \"" + at + "\"\n      staggerMinutes: 10\n");
        Cli.Run install = Cli.run("apply", "-i", INV, "-f", scheduled.toString(), "--yes");
        assertEquals(0, install.exitCode(), install.all());
        for (int h = 1; h <= 3; h++) {
            java.time.LocalTime mine = at.plusMinutes(10L * (h - 1));
            String timer = Testbed.ssh(h, "cat " + DEFRAG_TIMER);
            assertTrue(timer.contains("\nOnCalendar=*-*-* " + mine + ":00 UTC\n"), "h" + h + " at " + mine + ": " + timer);
            assertEquals("enabled\nactive\n", Testbed.ssh(h, "systemctl is-enabled etcdwright-defrag.timer; systemctl is-active etcdwright-defrag.timer"));
            assertEquals("600 root\n", Testbed.ssh(h, "stat -c '%a %U' /etc/etcdwright/defrag/defrag.conf"));
        }
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", scheduled.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "installed: nothing left to do\n" + again.all());

        // Fragmentation: about 5 MB of overwritten revisions, compacted away.
        Testbed.ssh(1, ETCDCTL + "for i in $(seq 1 50); do " + PUT + "; done");
        compact(true);

        // The cluster's lock held (as another member's run holds it): a run skips and says by whom.
        String txn = "create(\"/etcdwright/lock/maint\") = \"0\"\n\nput --lease=LEASE /etcdwright/lock/maint \"{\\\"user\\\":"
                + "\\\"it\\\",\\\"host\\\":\\\"h3\\\",\\\"pid\\\":1,\\\"command\\\":\\\"scheduled defrag of member h3\\\",\\\"since\\\":"
                + "\\\"2026-11-27T03:00:00Z\\\",\\\"token\\\":\\\"t\\\"}\"\n\n\n";
        String hold = ETCDCTL + "lease=$(e lease grant 60 | sed -n 's/^lease \\([0-9a-f]*\\) granted.*/\\1/p')\n"
                + "cat >/tmp/hold.txn <<'EOF'\n" + txn + "EOF\n"
                + "sed \"s/LEASE/$lease/\" /tmp/hold.txn | e txn | head -n1\necho \"$lease\"";
        String held = Testbed.ssh(3, hold);
        assertTrue(held.startsWith("SUCCESS\n"), held);
        long before = dbSize(2);
        JsonNode skipped = runScheduled(2);
        assertEquals("skipped", skipped.path("result").asText(), skipped.toString());
        assertTrue(skipped.path("message").asText().contains("the cluster's lock /etcdwright/lock/maint is held by it@h3"
                + " (scheduled defrag of member h3) since 2026-11-27T03:00:00Z"), skipped.toString());
        assertEquals(before, dbSize(2), "a skipped run leaves the member alone");
        Testbed.ssh(3, ETCDCTL + "e lease revoke " + held.split("\n")[1].strip());

        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("scheduled-defrag.acks"))) {
            load.awaitMore(300, Duration.ofSeconds(60));
            for (int h = 1; h <= 3; h++) {
                long size = dbSize(h);
                boolean led = leads(h);
                JsonNode run = runScheduled(h);
                assertEquals("defragmented", run.path("result").asText(), "h" + h + ": " + run);
                long after = dbSize(h);
                assertTrue(after < size / 2, "h" + h + "'s database shrank: " + size + " -> " + after);
                // The record's own figures (the writes go on: the file grows again from there).
                assertTrue(run.path("objectSize").asLong() < run.path("dbSizeBefore").asLong() / 2, "h" + h + ": " + run);
                assertEquals(led, run.path("message").asText().contains("leadership handed to"),
                        "a member hands its leadership over first exactly when it leads at its turn (h" + h + " led: " + led + "): " + run);
            }
            // Nothing left to give back: a run leaves the member alone and says why.
            JsonNode notWorth = runScheduled(1);
            assertEquals("not-worth-it", notWorth.path("result").asText(), notWorth.toString());
            // Which of the two reasons depends on how far the writes refilled the file: either says why.
            assertTrue(notWorth.path("message").asText().matches("member h1 not worth defragmenting: its database is [0-9.]+ MiB"
                    + "(, under the minimum of 1\\.0 MiB| with [0-9.]+ MiB in use: \\d+% free, under 20%)"), notWorth.toString());
            load.awaitMore(100, Duration.ofSeconds(30));
            WriteLoad.Report report = WriteLoad.checkNothingLost(env, load.stop(), "scheduled defragmentation under writes", 3);
            System.out.println("[scheduled defrag] longest write stall " + report.load().longestStallMillis() + " ms");
        }
        Cli.Run status = Cli.run("status", "-i", INV, "-f", scheduled.toString());
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("scheduled defragmentation (when at least 20% free and 1 MiB):"), status.out());
        assertTrue(status.out().contains("not-worth-it at ") && status.out().contains("h2 defragmented: "), status.out());
        assertTrue(status.out().contains(" IN USE "), "the table shows the in-use size: " + status.out());
        Cli.Run json = Cli.run("status", "-i", INV, "-f", scheduled.toString(), "-o", "json");
        JsonNode rows = new ObjectMapper().readTree(json.out()).path("defrag_schedule").path("members");
        assertEquals("*-*-* " + at.plusMinutes(20) + ":00 UTC", rows.path(2).path("calendar").asText(), json.out());
        assertEquals("defragmented", rows.path(2).path("last_result").asText(), json.out());

        // The schedule removed: every unit, script and record goes; then nothing is left to do.
        Cli.Run remove = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, remove.exitCode(), remove.all());
        for (int h = 1; h <= 3; h++) {
            assertEquals(1, Testbed.sshStatus(h, "test -e " + DEFRAG_TIMER + " || test -e /usr/local/lib/etcdwright/etcd-defrag"
                    + " || test -e /etc/etcdwright/defrag || test -e /var/lib/etcdwright/defrag"), "h" + h + " keeps nothing");
            assertEquals(1, Testbed.sshStatus(h, "systemctl is-enabled --quiet etcdwright-defrag.timer"), "h" + h);
        }
        Cli.Run empty = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, empty.exitCode(), empty.all());
    }
}
