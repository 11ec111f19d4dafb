package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Version changes that do not go as planned, on real hosts: a 3.5 -> 3.6 upgrade SIGKILLed between
 * members (under writes) is rolled back to 3.5 from the mixed state (only the member on 3.6
 * restarting), then, killed again, resumed to the end, losing no acknowledged write either way; a member that goes down between
 * the plan and the confirmation stops a version change before any member host is touched; a
 * skipped minor is refused before any host is touched. The versions are checked with etcdwright's
 * own status and with upstream's etcdctl and the members' /version endpoint.
 */
class UpgradeInterruptedIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    /** A member's restart of a rolling version change ("restart etcd on 3.6.16" in a minor step), done: where the apply is killed. */
    static final Pattern RESTART_DONE = Pattern.compile("(?m)^\\S+ +restart etcd(?: on \\S+)?: changed");
    /**
     * What a version change could alter on a member host, in one line each: the active binary, the
     * versions unpacked, unit and config, the etcd process (a restart gives a new invocation id) and
     * the binary it runs.
     */
    static final String HOST_STATE = "readlink /usr/local/bin/etcd; ls /opt/etcd | tr '\\n' ' '; echo;"
            + " sha256sum /etc/systemd/system/etcd.service /etc/etcd/etcd.conf.yml;"
            + " systemctl show -p ActiveState -p InvocationID etcd;"
            + " readlink /proc/$(systemctl show -p MainPID --value etcd)/exe || echo 'no etcd process'";
    static Etcdctl etcdctl;

    @BeforeAll
    static void hosts() {
        etcdctl = Etcdctl.unpack(Testbed.scratch("upgrade-etcdctl"), "3.5.16");
    }

    @AfterEach
    void wipe() {
        Testbed.removeEtcd(3);
    }

    /**
     * The two ways out of a minor upgrade killed between members, one after the other on one
     * cluster: back to 3.5 (the cluster version is still 3.5, so the member that runs 3.6 can go
     * back: only it restarts; the others run 3.5 already and keep running), then, killed at the same
     * point again, forward to 3.6 to the end. Under writes, checked after each.
     */
    @Test
    void aMinorUpgradeKilledBetweenMembersRollsBackOrResumesWithoutLosingAWrite() throws Exception {
        String v35 = Testbed.newestRelease("3.5");
        String v36 = Testbed.newestRelease("3.6");
        String older = Testbed.example("three-node.yaml").replace("name: three", "name: minorkill")
                .replace("version: 3.5.16", "version: " + v35);
        String newer = older.replace("version: " + v35, "version: " + v36);
        Path spec = HOSTS.home().resolve("minorkill.yaml");
        create(spec, older);
        Map<String, String> env = clientEnv(spec);

        underLoad(env, "minor-killed-then-rolled-back", () -> {
            Map<Integer, String> running = killedBetweenMembers(spec, newer, v35, v36);
            Files.writeString(spec, older);
            Cli.Run back = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
            assertEquals(2, back.exitCode(), "going back from the mixed state is a plan, not a refusal: " + back.all());
            assertTrue(back.all().contains("the cluster version is still 3.5, so the upgrade can be rolled back member by member"),
                    back.all());
            Map<Integer, String> processes = etcdProcesses();
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, apply.exitCode(), apply.all());
            // Only the member the kill left on 3.6 restarted: the others never stopped running 3.5.
            Map<Integer, String> after = etcdProcesses();
            for (int h = 1; h <= 3; h++) {
                boolean wasOn36 = running.get(h).equals("/opt/etcd/v" + v36 + "/etcd");
                assertEquals(!wasOn36, processes.get(h).equals(after.get(h)), "h" + h + (wasOn36 ? " restarted" : " kept running")
                        + ": " + processes + " -> " + after + "\n" + apply.out());
                assertTrue(Testbed.ssh(h, "cat /etc/systemd/system/etcd.service").contains("/opt/etcd/v" + v35 + "/etcd "),
                        "h" + h + "'s unit runs " + v35);
            }
        });
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());
        assertVersions(spec, env, v35, "3.5.0");

        underLoad(env, "minor-killed-then-resumed", () -> {
            killedBetweenMembers(spec, newer, v35, v36);
            Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
            assertEquals(0, apply.exitCode(), apply.all());
            assertTrue(apply.out().contains("wait for cluster version 3.6: ok"), apply.out());
        });
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());
        assertVersions(spec, env, v36, "3.6.0");
    }

    /**
     * The plan was confirmed with every member healthy, but one stopped before the answer: the
     * upgrade's preflight (a cluster step before any host step of the version change) finds it and
     * stops there, naming it. No member restarted, nothing installed or activated, no unit written.
     * With the member back, the next apply does the upgrade.
     */
    @Test
    void aMemberDownWhenTheUpgradeStartsStopsItBeforeItTouchesAMemberHost() throws Exception {
        String newest = Testbed.newestRelease("3.5");
        String v3516 = Testbed.example("three-node.yaml").replace("name: three", "name: preflight");
        Path spec = HOSTS.home().resolve("preflight.yaml");
        create(spec, v3516);
        Files.writeString(spec, v3516.replace("version: 3.5.16", "version: " + newest));

        Map<Integer, String> before;
        Cli.Run run;
        try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString())) {
            String asked = apply.await(Pattern.compile(Pattern.quote("Only 'yes' will be accepted")), Duration.ofMinutes(2));
            assertTrue(asked.contains("restart etcd (binary changed"), "the plan confirmed is a rolling version change: " + asked);
            Testbed.ssh(2, "systemctl stop etcd");
            before = hostStates();
            apply.answer("yes");
            run = apply.finish(Duration.ofMinutes(5));
        }
        assertEquals(1, run.exitCode(), run.out());
        Matcher failed = Pattern.compile("(?m)^cluster +([^\\n]*): failed \\([^)]*\\)\\n( +[^\\n]*)").matcher(run.out());
        assertTrue(failed.find(), "a cluster step (the upgrade's preflight) failed: " + run.out());
        assertTrue(failed.group(2).matches(".*\\bh2\\b.*"), "its error names the member that is down: " + failed.group());
        assertFalse(run.out().contains("restart etcd: changed"), run.out());
        for (int h = 1; h <= 3; h++) {
            assertTrue(Pattern.compile("(?m)^h" + h + " +ok=\\d+ changed=0 failed=0 ").matcher(run.out()).find(),
                    "nothing was changed or tried on h" + h + ": " + run.out());
        }
        assertEquals(before, hostStates(), "no member host was touched: not restarted, " + newest + " neither unpacked nor"
                + " activated, unit and config as they were");

        Testbed.ssh(2, "systemctl start etcd");
        Cli.Run again = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, again.exitCode(), "with the member back the upgrade goes through: " + again.all());
        assertVersions(spec, clientEnv(spec), newest, "3.5.0");
    }

    /**
     * 3.5.16 -> 3.7 skips 3.6: plan and apply both refuse with the path (3.6 first), and apply
     * touches no host: binaries, units, config and the etcd processes stay as they were.
     */
    @Test
    void aSkippedMinorIsRefusedWithThePathBeforeAnyHostIsTouched() throws Exception {
        String v37 = Testbed.newestRelease("3.7");
        String v35 = Testbed.example("three-node.yaml").replace("name: three", "name: skip");
        Path spec = HOSTS.home().resolve("skip.yaml");
        create(spec, v35);
        Map<Integer, String> before = hostStates();
        Files.writeString(spec, v35.replace("version: 3.5.16", "version: " + v37));

        String path = "take the path 3.5.16 -> newest 3.5 patch -> 3.6.11 or newer -> " + v37 + ", one apply per step";
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(1, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("etcd upgrades one minor at a time, and 3.5.16 to " + v37 + " skips 1 minor release(s)"),
                plan.all());
        assertTrue(plan.all().contains(path), plan.all());

        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(1, apply.exitCode(), apply.all());
        assertTrue(apply.all().contains(path), apply.all());
        assertTrue(apply.all().contains("Nothing was changed."), apply.all());
        assertEquals(before, hostStates(), "no host was touched");
        assertVersions(spec, clientEnv(spec), "3.5.16", "3.5.0");
    }

    /**
     * Applies {@code text} (a minor upgrade {@code from} -> {@code to}) and SIGKILLs the apply right
     * after its first member restart; then the members run both minors, and a plan says so and has
     * work left. Returns what each member's process runs.
     */
    private static Map<Integer, String> killedBetweenMembers(Path spec, String text, String from, String to) throws Exception {
        Files.writeString(spec, text);
        String seen;
        try (Cli.Launched apply = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
            seen = apply.killAfter(RESTART_DONE, Duration.ofMinutes(3));
        }
        String minor = to.substring(0, to.lastIndexOf('.'));
        assertFalse(seen.contains("wait for cluster version " + minor + ":") || seen.contains("RECAP"), "killed half-way: " + seen);
        // What the members' processes run, asked of the hosts (a member the killed apply had just
        // asked to restart may be starting: it counts as neither).
        Map<Integer, String> running = new LinkedHashMap<>();
        for (int h = 1; h <= 3; h++) {
            running.put(h, Testbed.ssh(h, "readlink /proc/$(systemctl show -p MainPID --value etcd)/exe || true").strip());
        }
        System.out.println("after the kill, the members run " + running);
        assertTrue(running.containsValue("/opt/etcd/v" + to + "/etcd") && running.containsValue("/opt/etcd/v" + from + "/etcd"),
                "the kill left both minors running: " + running);
        // Each member's unit names the release it runs: the next member's files are written only at its
        // turn. That turn starts as soon as the first restart is done, so the kill may land just after
        // the next member's unit was written and before its restart: one member at most, on its way.
        List<Integer> onTheirWay = new ArrayList<>();
        for (int h = 1; h <= 3; h++) {
            String unit = Testbed.ssh(h, "cat /etc/systemd/system/etcd.service");
            if (running.get(h).isEmpty() || unit.contains(running.get(h) + " ")) {
                continue;
            }
            assertTrue(running.get(h).equals("/opt/etcd/v" + from + "/etcd") && unit.contains("/opt/etcd/v" + to + "/etcd "),
                    "h" + h + " runs " + running.get(h) + ", its unit says: " + unit);
            onTheirWay.add(h);
        }
        assertTrue(onTheirWay.size() <= 1, "only the next member's files are written before its restart: " + onTheirWay);

        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(2, plan.exitCode(), "work is left: " + plan.all());
        assertTrue(plan.all().contains("mixed versions: members run " + from + " and " + to + " (an interrupted version change);"
                + " this plan moves the rest to " + to), "the plan says what it found: " + plan.all());
        assertTrue(plan.out().contains("wait for cluster version " + minor), plan.out());
        return running;
    }

    /** Each member's etcd process, as systemd knows it (a restart gives a new invocation id). */
    private static Map<Integer, String> etcdProcesses() {
        Map<Integer, String> processes = new LinkedHashMap<>();
        for (int h = 1; h <= 3; h++) {
            processes.put(h, Testbed.ssh(h, "systemctl show -p InvocationID -p MainPID etcd").strip());
        }
        return processes;
    }

    private interface Operation {
        void run() throws Exception;
    }

    /** Runs {@code operation} while the write load writes, then checks every acknowledged write. */
    private static void underLoad(Map<String, String> env, String name, Operation operation) throws Exception {
        WriteLoad.Acks acks;
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve(name + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            operation.run();
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        WriteLoad.checkNothingLost(env, acks, name, 3);
    }

    /**
     * Every member healthy on {@code version} by etcdwright's status, by upstream's etcdctl (endpoint
     * status of each member) and by each member's /version, which also gives the cluster version.
     */
    private static void assertVersions(Path spec, Map<String, String> env, String version, String clusterVersion)
            throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode status = json.readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        assertEquals(3, status.path("members").size(), status.toString());
        for (JsonNode m : status.path("members")) {
            assertEquals(version, m.path("version").asText(), m.toString());
        }

        assertEquals(clusterVersion, status.path("cluster_version").asText(), status.toString());
        assertEquals(List.of(version, version, version), etcdctl.serverVersions(env), "etcdctl endpoint status");

        for (String endpoint : env.get("ETCDCTL_ENDPOINTS").split(",")) {
            Testbed.Result v = Testbed.exec(List.of("curl", "-sS", "--max-time", "5", "--cacert", env.get("ETCDCTL_CACERT"),
                    "--cert", env.get("ETCDCTL_CERT"), "--key", env.get("ETCDCTL_KEY"), endpoint + "/version"));
            System.out.println("$ curl " + endpoint + "/version\n" + v.stdout() + v.stderr());
            assertEquals(0, v.exitCode(), v.stderr());
            JsonNode answer = json.readTree(v.stdout());
            assertEquals(version, answer.path("etcdserver").asText(), endpoint + ": " + v.stdout());
            assertEquals(clusterVersion, answer.path("etcdcluster").asText(), endpoint + ": " + v.stdout());
        }
    }

    private static void create(Path spec, String text) throws Exception {
        Files.writeString(spec, text);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
    }

    private static Map<String, String> clientEnv(Path spec) {
        return Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
    }

    private static Map<Integer, String> hostStates() {
        Map<Integer, String> states = new LinkedHashMap<>();
        for (int h = 1; h <= 3; h++) {
            states.put(h, Testbed.ssh(h, HOST_STATE));
        }
        return states;
    }
}
