package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults of the hosts and the network while an operation runs, on real hosts under writes: a
 * member host crashed (SIGKILL of its PID 1) during a 3.4.23 -> 3.5.16 upgrade, the leader's host
 * crashed during a rolling restart, a member cut off from its peers during an apply and before
 * one, a member cut off from the workstation, a member host crashed during a grow 3 -> 5 and
 * during a restore; then quorum lost (member hosts powered off), the plan's advice and a restore onto
 * the members left, its old members stopped once they are back. The fault is dealt when the apply's own output reaches the chosen point. Each
 * apply stops with a reason that names the host and says what to do (never a bare timeout), and
 * after the host is back or the network healed, the next run converges: the spec's members,
 * healthy, one cluster id on every member's own disk, a second plan empty, no acknowledged write
 * lost. One cluster on one testbed, case after case. Timeouts are short (--ready-timeout,
 * --restart-timeout, --connect-timeout) where running out of one is the expected way to stop.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultsIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(5);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static final ObjectMapper JSON = new ObjectMapper();
    /** Where a step that did not succeed says why: its result line, then its indented reason. */
    static final Pattern FAILED_STEP = Pattern.compile("(?m)^(\\S+) +([^\\n]*): (failed|unreachable) \\([^)]*\\)\\n((?: {11}[^\\n]*\\n?)+)");
    static Path spec;
    static String v34;
    static String v35;

    @BeforeAll
    static void hosts() throws Exception {
        v34 = Testbed.example("three-node.yaml").replace("name: three", "name: faults")
                .replace("version: 3.5.16", "version: 3.4.23")
                // Each host downloads the release from the testbed's server itself: no 3 x 20 MiB through SSH.
                .replace("  url: http", "  source: fetch\n  url: http")
                + "backup:\n  stores:\n    - {name: local, type: directory, path: " + HOSTS.home().resolve("store") + "}\n";
        v35 = v34.replace("version: 3.4.23", "version: 3.5.16");
        spec = HOSTS.home().resolve("faults.yaml");
        Files.writeString(spec, v34);
        assertTrue(v34.contains("source: fetch"), v34);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
    }

    /**
     * The member whose restart comes second crashes once the first member runs 3.5.16: its restart
     * cannot reach it, the rest is skipped, and the apply says so. Booted again (its unit already
     * names 3.5.16), the next apply finds the mixed versions and finishes the upgrade.
     */
    @Test
    @Order(1)
    void aMemberHostCrashedDuringAMinorUpgradeStopsThenTheUpgradeResumes() throws Exception {
        Files.writeString(spec, v35);
        List<String> restarts = restartOrder();
        assertEquals(3, restarts.size(), restarts.toString());
        String crashed = restarts.get(1);
        underLoad("faults-upgrade-crash", 3, () -> {
            Cli.Run stopped = withFault(Pattern.compile("(?m)^\\S+ +restart etcd(?: on \\S+)?: changed"), () -> crash(crashed),
                    "apply", "-i", INV, "-f", spec.toString(), "--yes", "--ready-timeout", "20");
            assertEquals(1, stopped.exitCode(), stopped.out());
            String why = failedStep(stopped, crashed);
            assertTrue(why.contains(crashed), "the reason names the crashed host: " + why);
            assertTrue(stopped.out().contains("Fix the cause and apply again; finished steps are not repeated."), stopped.out());
            assertFalse(stopped.out().contains("wait for cluster version 3.5: ok"), stopped.out());

            boot(crashed);
            Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
            assertEquals(2, plan.exitCode(), plan.all());
            assertTrue(plan.all().contains("mixed versions: members run 3.4.23 and 3.5.16 (an interrupted version change)"),
                    plan.all());
            Cli.Run resumed = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, resumed.exitCode(), resumed.all());
            assertTrue(resumed.out().contains("wait for cluster version 3.5: ok"), resumed.out());
        });
        converged(List.of("h1", "h2", "h3"));
        for (JsonNode m : status().path("members")) {
            assertEquals("3.5.16", m.path("version").asText(), m.toString());
        }
    }

    /**
     * The leader's host crashes as the first follower's restart (a config change) begins: that
     * restart is refused (the others are not all healthy) or its wait for every member runs out,
     * and either way the leader is named with what to do. Booted again, the next apply finishes.
     */
    @Test
    @Order(2)
    void theLeadersHostCrashedDuringARollingRestartStopsThenTheNextApplyFinishes() throws Exception {
        Files.writeString(spec, v35.replace("heartbeat-interval: 100", "heartbeat-interval: 150"));
        String leader = leader();
        underLoad("faults-leader-crash", 3, () -> {
            Cli.Run stopped = withFault(Pattern.compile("(?m)^\\S+ +> restart etcd"), () -> crash(leader),
                    "apply", "-i", INV, "-f", spec.toString(), "--yes", "--ready-timeout", "15");
            assertEquals(1, stopped.exitCode(), stopped.out());
            String why = failedStep(stopped, null);
            assertTrue(why.contains("member " + leader + " at"), "the reason names the crashed leader: " + why);
            assertTrue(why.contains("What to do") || why.contains("once they are healthy, apply again"), why);
            boot(leader);
            Cli.Run finished = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, finished.exitCode(), finished.all());
        });
        converged(List.of("h1", "h2", "h3"));
        assertEquals(0, Testbed.sshStatus(index(leader), "grep -qx 'heartbeat-interval: 150' /etc/etcd/etcd.conf.yml"));
    }

    /**
     * A member cut off from the other two: during a rolling restart (the restart then under way is
     * refused or its wait runs out, naming it); before its own restart (etcd, restarted, waits for
     * its peers and never tells systemd it is ready: the restart's timeout names the cause); and cut
     * off from the workstation (plan and apply refuse before anything is done). Healed, the next
     * apply converges.
     */
    @Test
    @Order(3)
    void aMemberCutOffFromItsPeersOrFromTheWorkstationStopsTheApplyWithTheReasonThenItConverges() throws Exception {
        Files.writeString(spec, v35);
        List<String> restarts = restartOrder();
        String first = restarts.get(0);
        String cut = restarts.stream().filter(h -> !h.equals(first)).filter(h -> !h.equals(leaderQuietly())).findFirst()
                .orElse(restarts.get(1));
        List<Integer> peers = new ArrayList<>(List.of(1, 2, 3));
        peers.remove(Integer.valueOf(index(cut)));
        underLoad("faults-partition", 3, () -> {
            Cli.Run stopped;
            try {
                stopped = withFault(Pattern.compile("(?m)^" + first + " +> restart etcd"), () -> {
                    for (int p : peers) {
                        Testbed.run("cut", String.valueOf(index(cut)), String.valueOf(p));
                    }
                }, "apply", "-i", INV, "-f", spec.toString(), "--yes", "--ready-timeout", "15");
            } finally {
                heal(cut, peers);
            }
            assertEquals(1, stopped.exitCode(), stopped.out());
            String why = failedStep(stopped, null);
            assertTrue(why.contains("member " + cut + " at"), "the reason names the member cut off: " + why);
            assertTrue(why.contains("What to do") || why.contains("once they are healthy, apply again"), why);
            Cli.Run healed = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, healed.exitCode(), healed.all());

            // Cut off before its own restart: the others are healthy, so its restart may go ahead.
            Testbed.ssh(index(cut), "sed -i 's/heartbeat-interval: 100/heartbeat-interval: 110/' /etc/etcd/etcd.conf.yml");
            Cli.Run hung;
            try {
                for (int p : peers) {
                    Testbed.run("cut", String.valueOf(index(cut)), String.valueOf(p));
                }
                hung = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes", "--restart-timeout", "15");
            } finally {
                heal(cut, peers);
            }
            assertEquals(1, hung.exitCode(), hung.all());
            String reason = failedStep(hung, cut);
            if (reason.contains("(systemd: activating start)")) {
                // Started again, etcd waits for its peers and never tells systemd it is ready.
                assertTrue(reason.contains(cut + ": etcd was restarted but has not reported ready within 15 s"), reason);
                assertTrue(reason.contains(cut + " cannot reach the other members (a network partition, a firewall on the peer"
                        + " port 2380), or they have lost quorum"), reason);
                assertTrue(reason.contains("What to do: make sure " + cut + " reaches the other members' peer URLs"), reason);
            } else {
                // A member cut off from its peers may also take longer than that to stop (systemd: deactivating).
                assertTrue(reason.contains(cut + ": etcd was restarted but did not come up within 15 s (systemd: deactivating"), reason);
                assertTrue(reason.contains("What to do: look at 'journalctl -u etcd.service' on " + cut), reason);
            }
            assertTrue(reason.contains("etcd's last log lines on " + cut + ":"), reason);

            // Cut off from the workstation: nothing is planned, nothing changed.
            Testbed.ssh(index(cut), "sed -i 's/heartbeat-interval: 100/heartbeat-interval: 120/' /etc/etcd/etcd.conf.yml");
            Testbed.run("isolate", String.valueOf(index(cut)));
            try {
                for (String command : List.of("plan", "apply")) {
                    Cli.Run refused = Cli.run(command, "-i", INV, "-f", spec.toString(), "--connect-timeout", "3",
                            command.equals("apply") ? "--yes" : "--detailed-exitcode");
                    assertEquals(1, refused.exitCode(), refused.all());
                    assertTrue(refused.all().contains(cut + ": unreachable (no answer from " + Testbed.address(index(cut))
                            + ":22 within 3 s)"), refused.all());
                    assertTrue(refused.all().contains("What to do: bring the host back (power, network, sshd"), refused.all());
                    assertFalse(refused.all().contains("RECAP"), "nothing ran: " + refused.all());
                }
            } finally {
                Testbed.run("rejoin", String.valueOf(index(cut)));
            }
            Cli.Run back = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, back.exitCode(), back.all());
        });
        converged(List.of("h1", "h2", "h3"));
        assertEquals(0, Testbed.sshStatus(index(cut), "grep -qx 'heartbeat-interval: 100' /etc/etcd/etcd.conf.yml"));
    }

    /**
     * A voter's host crashes while the first new member joins a grow 3 -> 5: etcd 3.5.16 refuses
     * every add while a voter is down, and the apply says which and what to do. Booted again, the
     * next apply adds the fifth member.
     */
    @Test
    @Order(4)
    void aVoterHostCrashedDuringAGrowStopsThenTheNextApplyConverges() throws Exception {
        String five = v35.replace("hosts: [h1, h2, h3]", "hosts: [h1, h2, h3, h4, h5]");
        String leader = leader();
        String crashed = List.of("h1", "h2", "h3").stream().filter(h -> !h.equals(leader)).findFirst().orElseThrow();
        Map<String, String> before = clientEnv();
        Files.writeString(spec, five);
        underLoad("faults-grow-crash", before, 5, () -> {
            Cli.Run stopped = withFault(Pattern.compile("(?m)^h4 +> start etcd, joining the running cluster"), () -> crash(crashed),
                    "apply", "-i", INV, "-f", spec.toString(), "--yes", "--ready-timeout", "15");
            // Booted before the stop is judged, so that a failed assertion does not leave the host off for the next case.
            boot(crashed);
            assertEquals(1, stopped.exitCode(), stopped.out());
            String why = failedStep(stopped, null);
            assertTrue(why.contains("member " + crashed + " at"), "the reason names the crashed member: " + why);
            if (stopped.out().contains("add h5 as a learner: failed")) {
                assertTrue(why.contains("not adding h5: cannot add a learner with peer URL"), why);
                // The fixed releases come from the catalogue (3.5.30 / 3.6.11 today); the advice is what this case holds.
                assertTrue(why.contains(" refuses every add while any voting member is down. What to do: bring"
                        + " that member back"), why);
            } else {
                assertTrue(why.contains("What to do") || why.contains("once they are healthy, apply again"), why);
            }
            Cli.Run grown = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, grown.exitCode(), grown.all());
        });
        converged(List.of("h1", "h2", "h3", "h4", "h5"));
    }

    /**
     * A member host crashes while a restore starts the members on the restored data: the restore
     * says which member is missing and to run it again. Booted again, the same restore finishes
     * under the same token and proves itself: every write acknowledged before the backup there,
     * one cluster, a second plan empty.
     */
    @Test
    @Order(5)
    void aMemberHostCrashedDuringARestoreStopsThenTheSameRestoreFinishes() throws Exception {
        Map<String, String> env = clientEnv();
        WriteLoad.Acks before;
        try (WriteLoad load = WriteLoad.start(env, 4, LOGS.resolve("faults-before-backup.acks"))) {
            load.awaitMore(200, Duration.ofSeconds(30));
            before = load.stop();
        }
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec.toString());
        assertEquals(0, backup.exitCode(), backup.all());
        Cli.Run stopped = withFault(Pattern.compile("(?m)^h4 +restore member h4 into [^\\n]*: changed"), () -> crash("h4"),
                "restore", "-i", INV, "-f", spec.toString(), "--from", "latest", "--yes", "--ready-timeout", "15");
        boot("h4");
        assertEquals(1, stopped.exitCode(), stopped.out());
        String why = failedStep(stopped, null);
        // By name, or by its client URL when it never started on the restored data (no name in the member list then).
        assertTrue(why.contains("h4") || why.contains(Testbed.address(4) + ":2379"), "the reason names the crashed member: " + why);
        assertTrue(stopped.out().contains("Fix the cause and run the same restore again: members already restored from this"
                + " snapshot are kept, the others restored under the same token."), stopped.out());

        Cli.Run again = Cli.run("restore", "-i", INV, "-f", spec.toString(), "--from", "latest", "--yes");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(Pattern.compile("(?m)^cluster +prove the restore: [^\\n]*: changed").matcher(again.out()).find(), again.out());
        converged(List.of("h1", "h2", "h3", "h4", "h5"));
        WriteLoad.Report report = WriteLoad.checkRestored(clientEnv(), before);
        System.out.println("[faults-restore-crash] " + report);
        assertTrue(report.lostNothing(), report.toString());
        assertEquals(5, report.hashByMember().size(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
    }

    /**
     * Member hosts powered off until fewer than a quorum answer (three of five here; two of three when
     * this case runs alone). The plan says first, and alone, that quorum is lost, and names the ways out
     * that work: the hosts back, or a restore from the newest backup, which it names; never a
     * membership change (none can commit). The restore onto the members that answer names the old
     * members it cannot reach; once they are back (together, the old cluster's quorum), the next apply
     * stops and disables their etcd, data kept, and the restored cluster is the only one.
     */
    @Test
    @Order(6)
    void withQuorumLostThePlanNamesRestoreAndNoOldMemberIsLeftRunning() throws Exception {
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec.toString());
        assertEquals(0, backup.exitCode(), backup.all());
        JsonNode backups = JSON.readTree(Cli.run("backups", "list", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        JsonNode all = backups.path("backups");
        String newest = all.get(all.size() - 1).path("name").asText();
        Matcher hosts = Pattern.compile("hosts: \\[([^]]*)]").matcher(Files.readString(spec));
        assertTrue(hosts.find(), Files.readString(spec));
        List<String> members = List.of(hosts.group(1).split(", "));
        List<String> kept = members.subList(0, (members.size() - 1) / 2);
        List<String> lost = members.subList(kept.size(), members.size());
        lost.forEach(FaultsIT::crash);

        Cli.Run refused = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--connect-timeout", "5");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.out().contains("Cannot plan cluster faults: 1 reason"), refused.all());
        assertTrue(refused.out().contains("cluster faults: quorum lost: only " + kept.size() + " of the " + members.size()
                + " voting members answer (" + String.join(", ", kept) + ")"), refused.all());
        assertTrue(refused.out().contains("rebuild the cluster from a backup with 'etcdwright restore --from BACKUP'"), refused.all());
        assertTrue(refused.out().contains("the newest backup is " + newest + " in store 'local', taken "), refused.all());
        assertFalse(refused.all().contains("give member") || refused.all().contains("new host in the inventory and plan again"),
                "no membership change is advised: " + refused.all());

        String rebuilt = Files.readString(spec).replace(hosts.group(), "hosts: [" + String.join(", ", kept) + "]");
        Files.writeString(spec, rebuilt);
        Cli.Run restored = Cli.run("restore", "-i", INV, "-f", spec.toString(), "--from", newest, "--yes",
                "--connect-timeout", "5");
        assertEquals(0, restored.exitCode(), restored.all());
        assertTrue(restored.out().contains(String.join(", ", lost) + " (members of the cluster before this restore, no member of"
                + " the spec) cannot be reached now"), restored.all());

        // Back on their disks, their enabled etcd starts as the old cluster, and together they are its quorum.
        lost.forEach(h -> Testbed.run("boot", String.valueOf(index(h))));
        for (String h : lost) {
            Testbed.ssh(index(h), "for i in $(seq 120); do systemctl is-active --quiet etcd && exit 0; sleep 0.5; done; exit 1");
        }
        Cli.Run applied = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, applied.exitCode(), applied.all());
        for (String h : lost) {
            assertTrue(Pattern.compile("(?m)^" + h + " +stop and disable etcd [^\\n]*: changed").matcher(applied.out()).find(),
                    applied.out());
            assertEquals("inactive disabled", Testbed.ssh(index(h), "echo $(systemctl is-active etcd; systemctl is-enabled etcd)")
                    .strip(), h);
            assertEquals(0, Testbed.sshStatus(index(h), "test -d /var/lib/etcd/member"), h + "'s old data is kept");
        }
        converged(kept);
    }

    private interface Operation {
        void run() throws Exception;
    }

    /**
     * Runs etcdwright ARGS in its own process and deals the fault as soon as its output matches
     * {@code at}; then lets it end by itself (a stop comes within the short timeouts given).
     */
    private static Cli.Run withFault(Pattern at, Operation fault, String... args) throws Exception {
        try (Cli.Launched run = Cli.Launched.start(HOSTS.home(), args)) {
            run.await(at, Duration.ofMinutes(4));
            fault.run();
            return run.finish(Duration.ofMinutes(4));
        }
    }

    /**
     * The reason of the first step that failed or found its host unreachable (with {@code host},
     * that host's), with its result line.
     */
    private static String failedStep(Cli.Run run, String host) {
        Matcher m = FAILED_STEP.matcher(run.out());
        while (m.find()) {
            if (host == null || m.group(1).equals(host)) {
                return m.group();
            }
        }
        throw new AssertionError("no step failed" + (host == null ? "" : " on " + host) + ": " + run.out());
    }

    private static void crash(String host) {
        Testbed.run("crash", String.valueOf(index(host)));
    }

    /**
     * Boots the host again on its disk; its enabled etcd starts by itself, and systemd reports it
     * active only once etcd said it is ready (Type=notify): the operator's "it is back".
     */
    private static void boot(String host) {
        Testbed.run("boot", String.valueOf(index(host)));
        Testbed.ssh(index(host), "for i in $(seq 120); do systemctl is-active --quiet etcd && exit 0; sleep 0.5; done;"
                + " systemctl status etcd; exit 1");
    }

    private static void heal(String host, List<Integer> peers) {
        for (int p : peers) {
            Testbed.run("uncut", String.valueOf(index(host)), String.valueOf(p));
        }
    }

    private static void underLoad(String name, int members, Operation operation) throws Exception {
        underLoad(name, clientEnv(), members, operation);
    }

    /** Runs {@code operation} while the write load writes, then checks every acknowledged write on every member. */
    private static void underLoad(String name, Map<String, String> env, int members, Operation operation) throws Exception {
        WriteLoad.Acks acks;
        long started = System.nanoTime();
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve(name + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            operation.run();
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        System.out.println("[" + name + "] took " + (System.nanoTime() - started) / 1_000_000_000 + " s");
        WriteLoad.checkNothingLost(clientEnv(), acks, name, members);
    }

    /** The hosts whose etcd the plan restarts, in the plan's order. */
    private static List<String> restartOrder() throws Exception {
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "-o", "json");
        assertEquals(0, plan.exitCode(), plan.all());
        List<String> hosts = new ArrayList<>();
        for (JsonNode step : JSON.readTree(plan.out()).path("steps")) {
            if (step.path("summary").asText().startsWith("restart etcd")) {
                hosts.add(step.path("host").asText());
            }
        }
        return hosts;
    }

    private static JsonNode status() throws Exception {
        return JSON.readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
    }

    private static String leader() throws Exception {
        for (JsonNode m : status().path("members")) {
            if (m.path("leader").asBoolean()) {
                return m.path("name").asText();
            }
        }
        throw new AssertionError("no leader: " + status());
    }

    private static String leaderQuietly() {
        try {
            return leader();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static Map<String, String> clientEnv() {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec.toString());
        assertEquals(0, env.exitCode(), env.all());
        return Etcdctl.env(env.out());
    }

    private static int index(String host) {
        return Integer.parseInt(host.substring(1));
    }

    /** Healthy, exactly these voting members, no change left, and one cluster id on every member's own disk. */
    private static void converged(List<String> members) throws Exception {
        KillChain.converged(spec, members);
    }
}
