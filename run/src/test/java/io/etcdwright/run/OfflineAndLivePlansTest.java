package io.etcdwright.run;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.backup.BackupsSeen;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.EtcdProbes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A saved rollout planned from recorded facts ({@code rollout plan --facts DIR --out}) is applied by
 * comparing the live plan's fingerprint with the offline one's: for the same facts the two must be
 * the same plan, except where the live plan asks more than the hosts ({@link ConvergeRun#live}).
 * The facts here are the scenario recordings of the cli module (testbed/record-scenarios), each
 * planned both ways through the run service's own code, the workstation's PKI as recorded with them.
 */
class OfflineAndLivePlansTest {
    /** The recordings, kept once in the cli module (where the planner scenario tests read them). */
    static final Path SCENARIOS = Path.of("../cli/src/test/resources/scenarios");

    @TempDir
    Path dir;

    @BeforeEach
    void workstationHome() {
        System.setProperty("etcdwright.home", dir.resolve("home").toString());
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    private final PlanSettings settings = new PlanSettings(true, false, new StepWaits(ConvergePlanner.Timeouts.DEFAULT.ready(), ConvergePlanner.Timeouts.DEFAULT.restart(), ConvergePlanner.Timeouts.DEFAULT.snapshot()));

    /** The offline plan of {@code facts} and the live plan of the same facts, a new cluster's token the offline one's. */
    private List<Plan> bothWays(String facts, Path spec) {
        Path inventory = SCENARIOS.resolve("inventory.yaml");
        Path recorded = SCENARIOS.resolve(facts + ".json");
        Plan offline = ConvergeRun.planOffline(inventory, spec, recorded, settings);
        DesiredState desired = DesiredStateLoader.loadOffline(inventory, spec);
        ClusterRun.Facts same = FactsFile.load(recorded, desired.spec().name(), desired.members().stream().map(Member::host).toList(),
                desired.inventory().hosts(), EtcdProbes.of(Layouts.of(desired)));
        Plan live = ConvergeRun.live(desired, Layouts.of(desired), same, settings, ReviewedPlan.of(offline).newClusterToken(),
                BackupsSeen.Lookup.notLooked("the spec names no backup store"));
        return List.of(offline, live);
    }

    @Test
    void theSameFactsGiveTheSamePlanOfflineAndLive() throws Exception {
        pki("pki-35");
        for (String facts : List.of("converged", "config-drift", "h2-stopped", "unit-missing-h3", "h3-crashed")) {
            List<Plan> plans = bothWays(facts, SCENARIOS.resolve("three.yaml"));
            assertEquals(plans.get(0).fingerprint(), plans.get(1).fingerprint(), facts);
            assertEquals(Optional.empty(), ReviewedPlan.of(plans.get(0)).staleness(plans.get(1)), facts);
        }
        assertTrue(bothWays("config-drift", SCENARIOS.resolve("three.yaml")).get(0).hasChanges(), "a plan with steps is compared too");
    }

    @Test
    void aNewClusterPlansTheSameLiveWithTheOfflinePlansToken() {
        List<Plan> plans = bothWays("fresh", SCENARIOS.resolve("three.yaml"));
        assertTrue(ReviewedPlan.of(plans.get(0)).newClusterToken().isPresent(), "a create writes its token into the config files");
        assertEquals(plans.get(0).fingerprint(), plans.get(1).fingerprint());
        assertNotEquals(plans.get(0).fingerprint(), bothWaysWithoutToken("fresh").fingerprint(), "without it, each plan draws its own");
    }

    private Plan bothWaysWithoutToken(String facts) {
        return ConvergeRun.planOffline(SCENARIOS.resolve("inventory.yaml"), SCENARIOS.resolve("three.yaml"),
                SCENARIOS.resolve(facts + ".json"), settings);
    }

    /**
     * Where they cannot agree: before a minor upgrade the live plan asks the artifact source for a
     * newer patch of the members' minor and moves them to it first; offline no source is asked. A
     * saved rollout of such a cluster planned offline is refused as changed when it is applied (what
     * docs/rollouts.md and the saved file's note say), never applied as something else.
     */
    @Test
    void beforeAMinorUpgradeTheLivePlanMayHopToAPatchTheOfflineOneDoesNotKnow() throws Exception {
        pki("pki-34");
        Path releases = Files.createDirectories(dir.resolve("releases"));
        Files.writeString(releases.resolve("etcd-v3.4.30-linux-amd64.tar.gz"), "");
        Path spec = Files.writeString(dir.resolve("three-35.yaml"), """
                cluster:
                  name: scn
                members:
                  hosts: [h1, h2, h3]
                etcd:
                  version: 3.5.16
                  settings:
                    heartbeat-interval: 100
                    election-timeout: 1000
                artifacts:
                  url: file://%s/etcd-v{version}-linux-{arch}.tar.gz
                  checksumsUrl: file://%s/SHA256SUMS
                tls:
                  pki:
                    keyAlgorithm: ecdsa-p256
                    validityDays: 365
                    renewBeforeDays: 30
                """.formatted(releases, releases));
        List<Plan> plans = bothWays("converged-34", spec);
        assertFalse(plans.get(0).isRefused(), plans.get(0).refusals().toString());
        assertFalse(plans.get(1).isRefused(), plans.get(1).refusals().toString());
        assertTrue(plans.get(1).warnings().stream().anyMatch(w -> w.contains("first moves the members to 3.4.30")), plans.get(1).warnings().toString());
        assertFalse(plans.get(0).warnings().stream().anyMatch(w -> w.contains("3.4.30")), plans.get(0).warnings().toString());
        String stale = ReviewedPlan.of(plans.get(0)).staleness(plans.get(1)).orElseThrow();
        assertTrue(stale.startsWith("the hosts changed since the plan was made; now the plan would be:"), stale);
        Files.delete(releases.resolve("etcd-v3.4.30-linux-amd64.tar.gz"));
        List<Plan> nothingOffered = bothWays("converged-34", spec);
        assertEquals(nothingOffered.get(0).fingerprint(), nothingOffered.get(1).fingerprint(),
                "with no newer patch offered the live plan is the offline one");
    }

    /** The recorded workstation PKI of cluster scn, where a run reads it (keys 0600: git keeps no modes). */
    private void pki(String recorded) throws IOException {
        Path source = SCENARIOS.resolve(recorded);
        Path target = EtcdwrightHome.pkiDir("scn");
        try (Stream<Path> files = Files.walk(source)) {
            for (Path f : files.toList()) {
                Path to = target.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                    if (f.getFileName().toString().endsWith(".key")) {
                        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rw-------"));
                    }
                }
            }
        }
    }
}
