package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.rollout.ClusterState;
import io.etcdwright.rollout.RolloutExecutor;
import io.etcdwright.rollout.RolloutListener;
import io.etcdwright.rollout.RolloutPlan;
import io.etcdwright.rollout.RolloutRecord;
import io.etcdwright.rollout.RolloutRecords;
import io.etcdwright.rollout.RolloutState;
import io.etcdwright.run.ClusterApply;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.FleetRun;
import io.etcdwright.run.PlanSettings;
import io.etcdwright.run.ReviewedPlan;
import io.etcdwright.run.StepWaits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rollout saved with {@code rollout plan --out} and applied with {@code apply FILE}, from facts
 * recorded on real hosts (testbed/record-scenarios), which stand for the hosts: three clusters a, b
 * and c in waves 1 (a) and 2 (b, c), each on its own three hosts, planned from a recording with the
 * workstation PKI it was recorded with. The inventories' hosts are listening sockets on loopback, so a
 * command that contacted one would be seen.
 */
class SavedRolloutTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The recordings each cluster's facts are copied from when the rollout is saved. */
    private static final Map<String, String> RECORDED = Map.of("a", "converged", "b", "config-drift", "c", "h2-stopped");

    @TempDir
    Path dir;
    private final List<ServerSocketChannel> hosts = new ArrayList<>();
    private final Map<String, Path> specs = new LinkedHashMap<>();
    private final Map<String, Path> inventories = new LinkedHashMap<>();
    private Path facts;

    @BeforeEach
    void threeClusters() throws Exception {
        System.setProperty("etcdwright.home", dir.resolve("home").toString());
        String scenarioSpec = Files.readString(PlannerScenarios.DIR.resolve("three.yaml"));
        PlannerScenarios scenarios = new PlannerScenarios(Files.createDirectories(dir.resolve("scenarios")));
        facts = Files.createDirectories(dir.resolve("facts"));
        for (String name : List.of("a", "b", "c")) {
            StringBuilder inventory = new StringBuilder("all:\n  children:\n    etcd:\n      hosts:\n");
            for (int h = 1; h <= 3; h++) {
                ServerSocketChannel host = ServerSocketChannel.open();
                host.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
                host.configureBlocking(false);
                hosts.add(host);
                // The recordings' members answer at 10.77.0.1N: each cluster's hosts are told apart by their SSH port.
                inventory.append("        h").append(h).append(": {ansible_host: 127.0.0.1, ansible_port: ")
                        .append(((InetSocketAddress) host.getLocalAddress()).getPort()).append(", etcd_address: 10.77.0.1")
                        .append(h).append("}\n");
            }
            inventories.put(name, Files.writeString(dir.resolve("hosts-" + name + ".yaml"), inventory.toString()));
            specs.put(name, Files.writeString(dir.resolve(name + ".yaml"), scenarioSpec.replace("name: scn", "name: " + name)));
            Files.move(scenarios.pki(PlannerScenarios.Pki.PKI_35), Files.createDirectories(dir.resolve("home/clusters/" + name))
                    .resolve("pki"));
            record(name, RECORDED.get(name));
        }
    }

    @AfterEach
    void close() throws IOException {
        System.clearProperty("etcdwright.home");
        for (ServerSocketChannel host : hosts) {
            host.close();
        }
    }

    /** {@code cluster}'s facts as {@code recording} recorded them (the recordings are of cluster scn). */
    private void record(String cluster, String recording) throws IOException {
        ObjectNode doc = (ObjectNode) JSON.readTree(PlannerScenarios.DIR.resolve(recording + ".json").toFile());
        doc.put("cluster", cluster);
        Files.writeString(facts.resolve(cluster + ".json"), JSON.writeValueAsString(doc));
    }

    private String[] inputs(String... more) {
        List<String> args = new ArrayList<>();
        for (String name : specs.keySet()) {
            args.addAll(List.of("-i", inventories.get(name).toString(), "-f", specs.get(name).toString()));
        }
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private Path saved() {
        Path file = dir.resolve("rollout.json");
        FactsFileTest.Result r = run(concat(new String[] {"rollout", "plan"}, inputs("--waves", "1,2", "--rollout", "fleet-update",
                "--facts", facts.toString(), "--out", file.toString(), "--detailed-exitcode")));
        assertEquals(2, r.code(), r.err() + r.out());
        assertTrue(r.out().contains("Saved the rollout to " + file + " (planned from recorded facts"), r.out());
        return file;
    }

    private static FactsFileTest.Result run(String... args) {
        return FactsFileTest.run(args);
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** Connections the hosts were asked for since the last call (each closed at once). */
    private int connections() throws IOException {
        int count = 0;
        for (ServerSocketChannel host : hosts) {
            for (SocketChannel c = host.accept(); c != null; c = host.accept()) {
                c.close();
                count++;
            }
        }
        return count;
    }

    /** The saved rollout's clusters planned now from the facts in {@link #facts}, as 'apply FILE' plans them from the hosts. */
    private RolloutPlan planNow(SavedRollout saved) {
        List<DesiredState> clusters = FleetRun.loadEvery(saved.inputs(), 2);
        return RolloutPlan.inWaves(saved.id(), saved.inputs(), clusters, saved.waveOf(), saved.labelOf(), saved.settings(),
                new RolloutPlan.Making(ConnectionSettings.defaults(), settings(), Duration.ofSeconds(1), Optional.of(facts))
                        .reviewing(saved.reviewed()));
    }

    private static PlanSettings settings() {
        return new PlanSettings(true, false, new StepWaits(Duration.ofMinutes(2), Duration.ofMinutes(3), Duration.ofMinutes(5)));
    }

    @Test
    void aRolloutSavedFromRecordedFactsPlansTheSameFromTheSameFacts() throws Exception {
        Path file = saved();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String text = Files.readString(file);
        JsonNode doc = JsonOutputSchemaTest.conforms("saved-rollout", text);
        assertFalse(text.contains("BEGIN"), "no key or certificate in it");
        assertEquals("recorded facts", doc.path("planned_from").asText());
        assertEquals(SavedRollout.OFFLINE_NOTE, doc.path("note").asText());
        assertEquals(0, connections(), "planned and saved from recorded facts: no host contacted");

        SavedRollout saved = SavedRollout.from(PlanFile.read(file));
        assertEquals("fleet-update", saved.id());
        assertEquals(Map.of("a", 1, "b", 2, "c", 2), saved.waveOf());
        assertEquals("1,2", saved.settings().waves());
        assertTrue(saved.waves().get(1).clusters().get(0).steps().size() > 0, "the drifted cluster's steps, for a person to read");
        RolloutPlan now = planNow(saved);
        assertEquals(Optional.empty(), now.whyNotStarted(), RolloutReport.render(now));
        for (RolloutPlan.Entry e : now.entries()) {
            assertEquals(saved.reviewed().get(e.name()).fingerprint(), e.plan().orElseThrow().fingerprint(), e.name());
        }
        assertEquals(saved.reviewed(), recordOf(now).clusters().stream().collect(java.util.stream.Collectors.toMap(
                RolloutRecord.Cluster::name, c -> c.reviewed().orElseThrow())), "the record keeps them for each cluster's turn");
    }

    /** Waves by a label (--waves-by): the saved rollout keeps each wave's label value and the label, and plans in them again. */
    @Test
    void aRolloutInWavesByALabelIsSavedWithItsWavesLabels() throws Exception {
        Map<String, String> site = Map.of("a", "dc1", "b", "dc2", "c", "dc1");
        for (String name : specs.keySet()) {
            Files.writeString(specs.get(name), Files.readString(specs.get(name)).replace("name: " + name + "\n",
                    "name: " + name + "\n  labels:\n    site: " + site.get(name) + "\n"));
        }
        Path file = dir.resolve("by-site.json");
        FactsFileTest.Result r = run(concat(new String[] {"rollout", "plan"}, inputs("--waves-by", "site", "--facts", facts.toString(),
                "--out", file.toString())));
        assertEquals(0, r.code(), r.err() + r.out());
        JsonOutputSchemaTest.conforms("saved-rollout", Files.readString(file));
        SavedRollout saved = SavedRollout.from(PlanFile.read(file));
        assertEquals(Optional.of("site"), saved.settings().wavesBy());
        assertEquals(Map.of(1, "site=dc1", 2, "site=dc2"), saved.labelOf());
        assertEquals(Map.of("a", 1, "c", 1, "b", 2), saved.waveOf());
        RolloutPlan now = planNow(saved);
        assertEquals(Optional.empty(), now.whyNotStarted(), RolloutReport.render(now));
        assertEquals(List.of(Optional.of("site=dc1"), Optional.of("site=dc2")), now.waves().stream().map(RolloutPlan.Wave::label).toList());
        assertTrue(RolloutReport.render(now).contains("Wave 2: site=dc2 (1 cluster)"), RolloutReport.render(now));
    }

    private static RolloutRecord recordOf(RolloutPlan plan) {
        return plan.record("tester@here");
    }

    @Test
    void aSpecOrInventoryChangedOrGoneSinceTheRolloutWasSavedIsAnErrorNamingItBeforeAnyHost() throws Exception {
        Path file = saved();
        Files.writeString(specs.get("b"), Files.readString(specs.get("b")) + "# reviewed? no\n");
        Files.delete(inventories.get("c"));
        FactsFileTest.Result r = run("apply", file.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(Pattern.compile("(?m)^" + Pattern.quote(file.toString()) + ":\\d+:\\d+: error: waves\\[1\\]\\.clusters\\[0\\]"
                + "\\.spec_sha256: the spec " + Pattern.quote(specs.get("b").toString()) + " of cluster b changed since the rollout"
                + " was saved; run 'etcdwright rollout plan --out' again and review it$").matcher(r.err()).find(), r.err());
        assertTrue(r.err().contains(": error: waves[1].clusters[1].inventory: the inventory of cluster c, \""
                + inventories.get("c") + "\", is gone (no such file); run 'etcdwright rollout plan --out' again"), r.err());
        assertTrue(r.err().contains("No host was contacted"), r.err());
        assertEquals(0, connections());
        assertTrue(RolloutRecords.local().ids().isEmpty(), "no rollout was recorded");
    }

    /** The saved rollout decides its clusters, waves and settings: other specs or waves given with it are a usage error. */
    @Test
    void optionsThatWouldMakeItAnotherRolloutAreAUsageErrorBeforeAnyHost() throws Exception {
        Path file = saved();
        for (String[] extra : List.of(new String[] {"-f", specs.get("a").toString()}, new String[] {"--waves", "1"},
                new String[] {"--waves-by", "site"}, new String[] {"--max-failures", "1"}, new String[] {"--parallel", "2"},
                new String[] {"--no-snapshot"})) {
            FactsFileTest.Result r = run(concat(new String[] {"apply", file.toString()}, extra));
            assertEquals(1, r.code(), r.err());
            String option = extra[0].equals("-f") ? "--file" : extra[0];
            assertTrue(r.err().startsWith("error: " + option + " with a saved rollout: " + file + " decides its clusters, waves and"
                    + " settings, as they were reviewed"), r.err());
            assertTrue(r.err().contains("Run 'etcdwright apply --help' for usage."), r.err());
        }
        assertEquals(0, connections());
    }

    @Test
    void aClusterWhoseFactsChangedRefusesTheWholeRolloutBeforeWaveOneListingIt() throws Exception {
        SavedRollout saved = SavedRollout.from(PlanFile.read(saved()));
        record("b", "unit-missing-h3");
        RolloutPlan now = planNow(saved);
        assertEquals(Optional.of("1 of 3 clusters changed since the rollout was saved (above: what each one's plan would be now);"
                + " run 'etcdwright rollout plan --out' again and review it"), now.whyNotStarted());
        assertEquals(List.of("b"), now.entries().stream().filter(RolloutPlan.Entry::changedSinceSaved).map(RolloutPlan.Entry::name)
                .toList());
        assertEquals(List.of("changed since the rollout was saved: the hosts changed since it was planned, and its steps above are"
                + " what it would do now"), now.entries().get(1).problems());
        String shown = RolloutReport.render(now);
        assertTrue(shown.contains("      + systemd unit etcd.service (missing)  [routine]\n"), "b's plan now: " + shown);
        // The recorded members predate etcd's corruption checks by default: each restarts for its config, h3 for its unit too.
        assertTrue(shown.contains("      > restart etcd (config changed, unit changed)  [change]\n"), "b's plan now: " + shown);
        assertTrue(shown.contains("      > restart etcd (config changed)  [change]\n      ! changed since the rollout was saved"),
                "then why it is not the saved one: " + shown);
        assertTrue(now.entries().get(0).problems().isEmpty() && now.entries().get(2).problems().isEmpty(), shown);

        record("c", "h2-h3-stopped");
        assertTrue(planNow(saved).whyNotStarted().orElseThrow().startsWith("2 of 3 clusters changed"), "every changed cluster is counted");
    }

    /**
     * At its turn, under its lock, a cluster is planned once more ({@link ClusterApply#underLock}, as a
     * real rollout does): one whose hosts changed after the rollout started fails, is not applied, and
     * counts against its wave's budget; the others are applied as saved.
     */
    @Test
    void aClusterWhoseFactsChangeBeforeItsTurnFailsThereAndIsNotApplied() throws Exception {
        SavedRollout saved = SavedRollout.from(PlanFile.read(saved()));
        RolloutPlan now = planNow(saved);
        assertEquals(Optional.empty(), now.whyNotStarted());
        List<String> applied = Collections.synchronizedList(new ArrayList<>());
        Map<String, DesiredState> byName = new LinkedHashMap<>();
        FleetRun.loadEvery(saved.inputs(), 2).forEach(d -> byName.put(d.spec().name(), d));
        RolloutExecutor.ClusterWork work = (desired, reviewed, stats) -> RolloutExecutor.failureOf(ClusterApply.underLock(
                fromRecordedFacts(desired, applied), settings(), reviewed, plan -> Optional.empty(), RolloutExecutor.shownAs(
                        desired.spec().name(), silent())), stats);
        RolloutExecutor.Gate gate = desired -> {
            if (desired.spec().name().equals("a")) {
                // While wave 1 is gated, c's hosts change: a member of it stops.
                try {
                    record("c", "h2-h3-stopped");
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            return List.of();
        };
        try (RolloutRecords records = RolloutRecords.local()) {
            records.create(now.record("tester@here"));
            RolloutRecord end = new RolloutExecutor(records, byName, work, gate, silent(), d -> { }).run(saved.id(), "tester@here");
            assertEquals(List.of("a", "b"), applied.stream().sorted().toList(), "c is not applied");
            assertEquals(RolloutState.STOPPED, end.state(), "its failure is over wave 2's budget of 0");
            RolloutRecord.Cluster c = end.cluster("c").orElseThrow();
            assertEquals(ClusterState.FAILED, c.state());
            assertTrue(c.error().orElseThrow().startsWith("not applied: its plan is not the one saved with the rollout: the hosts"
                    + " changed since the plan was made; now the plan would be:\n  h"), c.error().toString());
            assertEquals(0, c.steps());
            assertEquals(ClusterState.DONE, end.cluster("b").orElseThrow().state());
            assertTrue(end.cluster("b").orElseThrow().steps() > 0);
            assertEquals(saved.reviewed().get("c"), records.read(saved.id()).orElseThrow().cluster("c").orElseThrow().reviewed()
                    .orElseThrow(), "a resumed rollout compares c with its saved plan again");
        }
    }

    /** The cluster under its lock, planned from its facts in {@link #facts} as they are now; its steps "run" by being noted. */
    private ClusterApply.Locked fromRecordedFacts(DesiredState desired, List<String> applied) {
        String name = desired.spec().name();
        return new ClusterApply.Locked() {
            @Override
            public Plan converge(PlanSettings settings, Optional<String> newClusterToken) {
                return ClusterRun.planOffline(inventories.get(name), specs.get(name), facts.resolve(name + ".json"), settings,
                        newClusterToken);
            }

            @Override
            public Recap apply(Plan plan, ProgressListener progress) {
                applied.add(name);
                return new Recap(plan.steps().stream().map(s -> new StepResult(s, StepResult.Status.CHANGED, Duration.ZERO,
                        Optional.<String>empty())).toList());
            }
        };
    }

    private static RolloutListener silent() {
        return new RolloutListener() {
            @Override
            public void line(String line) {
            }

            @Override
            public void planned(String cluster, Plan plan) {
            }

            @Override
            public ProgressListener progress(String cluster) {
                return ProgressListener.SILENT;
            }
        };
    }

    @Test
    void aRolloutWithAPreconditionNotMetIsNotSaved() throws Exception {
        Files.delete(facts.resolve("c.json"));
        Path file = dir.resolve("not-saved.json");
        FactsFileTest.Result r = run(concat(new String[] {"rollout", "plan"}, inputs("--facts", facts.toString(), "--out",
                file.toString())));
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("Not saved to " + file + ": a rollout whose preconditions do not all hold (above)"), r.err());
        assertFalse(Files.exists(file));
    }

    /** 'apply FILE' proves each input unchanged by its digest: an input without one is refused before anything is planned. */
    @Test
    void anInventoryDirectoryIsNotSavedForItHasNoOneDigest() throws Exception {
        Path directory = Files.createDirectories(dir.resolve("inventory.d"));
        Path file = dir.resolve("not-saved.json");
        FactsFileTest.Result r = run("rollout", "plan", "-i", directory.toString(), "-f", specs.get("a").toString(), "--facts",
                facts.toString(), "--out", file.toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertEquals("error: " + directory + " is a directory, and a saved plan proves its inputs unchanged by each file's digest;"
                + " give an inventory file to use --out, or plan and apply without saving the plan\n", r.err());
        assertFalse(Files.exists(file));
    }

    @Test
    void aSavedRolloutIsToldFromASavedPlanByItsFormat() throws Exception {
        assertTrue(PlanFile.read(saved()).isRollout());
        Path plan = dir.resolve("a.plan");
        FactsFileTest.Result r = run("plan", "-i", inventories.get("a").toString(), "-f", specs.get("a").toString(), "--facts",
                facts.resolve("a.json").toString(), "--out", plan.toString());
        assertEquals(0, r.code(), r.err());
        assertFalse(PlanFile.read(plan).isRollout());
        assertEquals(ReviewedPlan.of(ClusterRun.planOffline(inventories.get("a"), specs.get("a"), facts.resolve("a.json"), settings()))
                .fingerprint(), SavedPlan.read(plan).fingerprint());
    }
}
