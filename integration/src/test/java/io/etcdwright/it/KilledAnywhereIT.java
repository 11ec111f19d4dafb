package io.etcdwright.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright SIGKILLed anywhere ({@link KillChain}: at every step boundary and inside every step
 * that takes time, the points taken from each run's own plan) in a create, a shrink 3 -> 1, a grow
 * 1 -> 3 and the replacement of a member by a new host, the last three under writes. At the end of
 * each: the apply exits 0, a second plan is empty, the cluster is healthy with exactly the spec's
 * members and one cluster id on every member (no second cluster formed), and every write
 * acknowledged before and during the chain is present on every member. The other changes' chains:
 * {@link KilledAnywhereUpgradeRestoreIT}, {@link KilledAnywhereCaRotationIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KilledAnywhereIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static KillChain chain;
    static String base;

    @BeforeAll
    static void hosts() {
        base = Testbed.example("three-node.yaml").replace("name: three", "name: chaos");
        chain = new KillChain(HOSTS.home(), HOSTS.home().resolve("chaos.yaml"));
    }

    @Test
    @Order(1)
    void aCreateKilledAtEveryStepConverges() throws Exception {
        chain.spec(base);
        KillChain.Result kills = chain.applies(KillChain.Sample.EVERY);
        assertTrue(kills.killed().size() >= 10, "a create has many kill points: " + kills);
        chain.converged(List.of("h1", "h2", "h3"));
    }

    @Test
    @Order(2)
    void aShrinkKilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        underWritesKilledEverywhere("shrink", List.of("h1"), KillChain.Sample.EVERY);
    }

    @Test
    @Order(3)
    void aGrowKilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        underWritesKilledEverywhere("grow", List.of("h1", "h2", "h3"), KillChain.Sample.EVERY);
    }

    /**
     * h3 leaves the spec while still up, a new host h4 takes its place: install, add as a learner,
     * promote, remove h3, each killed. Inside points sampled: see {@link KillChain.Sample}.
     */
    @Test
    @Order(4)
    void aReplacementKilledAtEveryStepConvergesLosingNoWrite() throws Exception {
        Testbed.add(1);
        underWritesKilledEverywhere("replace", List.of("h1", "h2", "h4"), KillChain.Sample.BOUNDARIES_AND_EACH_KIND_INSIDE);
    }

    private static void underWritesKilledEverywhere(String label, List<String> members, KillChain.Sample sample)
            throws Exception {
        Map<String, String> before = chain.clientEnv();
        chain.spec(base.replace("hosts: [h1, h2, h3]", "hosts: [" + String.join(", ", members) + "]"));
        WriteLoad.Acks acks = KillChain.underWrites(before, label, () -> {
            KillChain.Result kills = chain.applies(sample);
            assertTrue(kills.killed().size() >= 4, label + " has kill points: " + kills);
        });
        chain.converged(members);
        WriteLoad.checkNothingLost(chain.clientEnv(), acks, "killed-anywhere-" + label, members.size());
    }
}
