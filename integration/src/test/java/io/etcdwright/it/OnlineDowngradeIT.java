package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 23's way there and back on three real hosts, by {@code apply} alone and never with
 * --allow-downtime: 3.5.16 -> (the hop to the newest 3.5) -> the newest 3.6 -> the newest 3.7 ->
 * 3.6 -> the newest 3.5, the two downgrades through etcd's downgrade API. A cluster born on 3.5
 * reaches 3.7 only because each member snapshots past the v2 requests 3.5 left in its log first
 * (etcd 3.7 panics replaying them: 'unmarshal should never fail'); the step to 3.7 does that at each
 * member's turn. Two clients write throughout: the
 * write-load harness (four writers, every acknowledged write proved on every member, HashKV equal,
 * the longest stall reported) and, independently, upstream's etcdctl 3.4.23 from Debian, whose
 * acknowledged puts must all be there at the end and which reports the member versions after each
 * step. On the way down: the 3.7 -> 3.6 downgrade is interrupted (SIGKILL) after its first swap and
 * etcd.version set back to 3.7, which cancels it (etcd's downgrade cancel, the swapped member back
 * on 3.7); then the 3.6 -> 3.5 downgrade is killed at every step boundary ({@link KillChain}), and
 * converges.
 */
class OnlineDowngradeIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");
    static final List<String> MEMBERS = List.of("h1", "h2", "h3");

    /** Where the way starts: issue 23's done-when, a cluster born on 3.5.16. */
    static final String START = "3.5.16";

    /** What each phase took and the longest write stall in it, printed at the end. */
    private final List<String> phases = new ArrayList<>();

    @Test
    void upToThreeSevenAndDownToThreeFiveByApplyAloneUnderTwoClients() throws Exception {
        String v35 = Testbed.newestRelease("3.5");
        String v36 = Testbed.newestRelease("3.6");
        String v37 = Testbed.newestRelease("3.7");
        Path spec = HOSTS.home().resolve("updown.yaml");
        write(spec, Testbed.example("three-node.yaml").replace("name: three", "name: updown"), START);
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        Map<String, String> env = Etcdctl.env(Cli.run("client-env", "-i", INV, "-f", spec.toString()).out());
        Path etcdctl34Dir = Testbed.scratch("etcdctl-3.4.23");
        Etcdctl etcdctl34 = Etcdctl.unpack(etcdctl34Dir, "3.4.23");
        assertEquals(Map.of(START, 3L), versions(etcdctl34, env));

        WriteLoad.Acks acks;
        Map<String, Long> independent;
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("online-downgrade.acks"));
             EtcdctlWriter etcdctl = EtcdctlWriter.start(etcdctl34Dir.resolve("etcdctl"), env,
                     LOGS.resolve("online-downgrade-etcdctl.acks"))) {
            load.awaitMore(100, Duration.ofSeconds(60));

            write(spec, null, v36);
            phase(load, START + " -> " + v35 + " -> " + v36, () -> apply(spec));
            assertEquals(Map.of(v36, 3L), versions(etcdctl34, env));

            // Each member's log holds the v2 requests 3.5 wrote (its attributes at each start of the hop): each
            // restarts once on 3.6 with snapshot-count 1 until it snapshots past them, then moves to 3.7. (One whose
            // own 10,000-entry snapshot happened to pass every index committed when planned needs none; under this
            // load that is a matter of milliseconds in minutes, so at least one member always shows the step.)
            write(spec, null, v37);
            phase(load, v36 + " -> " + v37, () -> {
                Cli.Run up = apply(spec);
                Pattern planned = Pattern.compile("restart etcd " + Pattern.quote(v36)
                        + " once with snapshot-count 1 until it snapshots past index [0-9]+, then write its config back: ");
                List<String> done = up.all().lines().filter(l -> planned.matcher(l).find()).toList();
                assertFalse(done.isEmpty(), up.all());
                assertTrue(done.size() <= 3 && done.stream().allMatch(l -> l.contains("back: changed")), up.all());
                System.out.println("[online downgrade] members snapshotted before 3.7: " + done.size());
            });
            assertEquals(Map.of(v37, 3L), versions(etcdctl34, env));

            // Down to 3.6, interrupted after its first swap; etcd.version back at 3.7 cancels it.
            write(spec, null, v36);
            Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
            assertEquals(0, plan.exitCode(), plan.all());
            assertTrue(plan.all().contains("through etcd's downgrade API"), plan.all());
            assertFalse(plan.all().contains("DOWNTIME"), plan.all());
            phase(load, v37 + " -> " + v36 + " killed after its first swap", () -> {
                try (Cli.Launched run = Cli.Launched.start(HOSTS.home(), "apply", "-i", INV, "-f", spec.toString(), "--yes")) {
                    String seen = run.killAfter(Pattern.compile(Pattern.quote("swap etcd to " + v36 + ": changed")),
                            Duration.ofMinutes(4));
                    assertFalse(seen.contains("RECAP"), seen);
                }
            });
            assertEquals(Map.of(v36, 1L, v37, 2L), versions(etcdctl34, env));
            write(spec, null, v37);
            phase(load, "cancel: back to " + v37, () -> {
                Cli.Run cancel = apply(spec);
                assertTrue(cancel.out().contains("cancel the downgrade to 3.6 (etcd's downgrade cancel)"), cancel.out());
            });
            assertEquals(Map.of(v37, 3L), versions(etcdctl34, env));
            assertEquals("3.7.0", clusterVersion(spec));

            write(spec, null, v36);
            phase(load, v37 + " -> " + v36 + " (online downgrade)", () -> apply(spec));
            assertEquals(Map.of(v36, 3L), versions(etcdctl34, env));
            assertEquals("3.6.0", clusterVersion(spec));

            // Down to 3.5, killed (SIGKILL) at every step boundary, run again each time. (Killed inside
            // each kind of step too, on a loaded machine: 17 kills, every one converged; the boundaries
            // are the states a kill can leave: etcd's calls go through raft whole, and systemd finishes
            // a restart whose run was killed.)
            write(spec, null, v35);
            KillChain chain = new KillChain(HOSTS.home(), spec);
            phase(load, v36 + " -> " + v35 + " (online downgrade, killed at every step boundary)", () -> {
                KillChain.Result kills = chain.applies(KillChain.Sample.BOUNDARIES);
                assertTrue(kills.killed().size() >= 8, "a downgrade has kill points: " + kills);
            });
            chain.converged(MEMBERS);
            assertEquals(Map.of(v35, 3L), versions(etcdctl34, env));
            assertEquals("3.5.0", clusterVersion(spec));

            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
            independent = etcdctl.stop();
            System.out.println("[online downgrade] etcdctl 3.4.23: " + independent.size() + " puts acknowledged, "
                    + etcdctl.failedPuts() + " not");
            assertTrue(independent.size() >= 50, "the independent client got writes through: " + independent.size());
            List<String> lost = etcdctl.lost(independent);
            assertTrue(lost.isEmpty(), "etcdctl 3.4.23's acknowledged puts lost: " + lost.size() + ": "
                    + lost.subList(0, Math.min(5, lost.size())));
        }
        WriteLoad.Report report = WriteLoad.checkNothingLost(env, acks, "online-downgrade", 3);
        System.out.println("[online downgrade] " + report + "; longest stall " + acks.longestStallMillis() + " ms (from "
                + acks.longestStallFromMillis() + " ms)");
        phases.forEach(p -> System.out.println("[online downgrade] " + stallIn(p, acks)));
    }

    /** Writes the spec: {@code text} (or the spec as it is) with its etcd version set to {@code version}. */
    private static void write(Path spec, String text, String version) throws IOException {
        String current = text != null ? text : Files.readString(spec);
        Files.writeString(spec, current.replaceFirst("version: [0-9.]+", "version: " + version));
    }

    private static Cli.Run apply(Path spec) {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertFalse(apply.all().contains("--allow-downtime"), apply.all());
        return apply;
    }

    private interface Phase {
        void run() throws Exception;
    }

    /** Runs a phase of the way, noting when it began and ended on the write load's clock. */
    private void phase(WriteLoad load, String name, Phase phase) throws Exception {
        long from = load.millisSinceStart();
        long started = System.nanoTime();
        phase.run();
        phases.add(from + " " + load.millisSinceStart() + " " + (System.nanoTime() - started) / 1_000_000 + " " + name);
    }

    /** "NAME: took T s, longest write stall S ms": the acknowledgements' longest gap inside the phase. */
    private static String stallIn(String phase, WriteLoad.Acks acks) {
        String[] p = phase.split(" ", 4);
        long from = Long.parseLong(p[0]);
        long to = Long.parseLong(p[1]);
        List<Long> times = new ArrayList<>(List.of(from, to));
        acks.acks().stream().map(WriteLoad.Ack::atMillis).filter(t -> t > from && t < to).forEach(times::add);
        times.sort(Long::compare);
        long longest = 0;
        for (int i = 1; i < times.size(); i++) {
            longest = Math.max(longest, times.get(i) - times.get(i - 1));
        }
        return p[3] + ": took " + Long.parseLong(p[2]) / 1000.0 + " s, longest write stall " + longest + " ms";
    }

    private static String clusterVersion(Path spec) throws IOException {
        JsonNode status = KillChain.JSON.readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        return status.path("cluster_version").asText();
    }

    /** Each member's server version, as etcdctl 3.4.23 gets it from every member: version -> members. */
    private static Map<String, Long> versions(Etcdctl etcdctl, Map<String, String> env) {
        return etcdctl.serverVersions(env).stream().collect(Collectors.groupingBy(v -> v, TreeMap::new, Collectors.counting()));
    }
}
