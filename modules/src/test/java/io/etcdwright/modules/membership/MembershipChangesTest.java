package io.etcdwright.modules.membership;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MembershipChanges} against real etcd (three processes with mutual TLS on loopback, as in
 * {@link EtcdHttpTest}; the binary is found by {@link EtcdBinary}, and its absence fails
 * the test). The tests run in order on one cluster, as a resize 3 -> 4 -> 3 would: a learner is
 * added (twice, as an interrupted apply would), started, promoted when in sync, leadership moved,
 * members removed (twice).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipChangesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    static Path dir;

    private static LocalEtcdCluster cluster;
    private static MembershipChanges changes;
    private static LocalEtcdCluster.Node joiner;
    private static String joinerId;

    @BeforeAll
    static void startCluster() throws Exception {
        Path etcd = EtcdBinary.locate(dir);
        TestPki.Issued ca = TestPki.ca("etcdwright membership test CA");
        Path caCert = dir.resolve("ca.crt");
        TestPki.writePem(caCert, ca.certificate());
        Path serverCert = dir.resolve("server.crt");
        Path serverKey = dir.resolve("server.key");
        TestPki.server(ca, "etcd-member").write(serverCert, serverKey);
        Path adminCert = dir.resolve("admin.crt");
        Path adminKey = dir.resolve("admin.key");
        TestPki.client(ca, "etcdwright-admin", TestPki.ecKey()).write(adminCert, adminKey);
        cluster = LocalEtcdCluster.start(etcd, EtcdHttpTest.version(etcd), dir, caCert, serverCert, serverKey, 3,
                Duration.ofSeconds(60));
        changes = MembershipChanges.connect(cluster.clientUrls(), caCert, adminCert, adminKey, TIMEOUT);
    }

    @AfterAll
    static void stopCluster() {
        if (changes != null) {
            changes.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void anAddedLearnerIsFoundAgainByItsPeerUrlInsteadOfFailing() throws Exception {
        joiner = cluster.newNode("m4");
        MembershipChanges.ClusterMember added = changes.addLearner(joiner.peerUrl(), Duration.ofSeconds(30));
        assertTrue(added.learner(), added.toString());
        assertFalse(added.started(), "not started yet, so no name: " + added);
        joinerId = added.id();

        MembershipChanges.ClusterMember again = changes.addLearner(joiner.peerUrl(), Duration.ofSeconds(30));
        assertEquals(added.id(), again.id(), "an interrupted apply that adds it again gets the same member");
        assertEquals(4, changes.members().size());
    }

    @Test
    @Order(2)
    void aLearnerThatNeverStartedIsNotInSyncAndIsNotPromoted() {
        MembershipChanges.Promotion outcome = changes.promote(joinerId);
        MembershipChanges.Promotion.NotInSync notInSync = assertInstanceOf(MembershipChanges.Promotion.NotInSync.class, outcome);
        assertEquals(0, notInSync.learnerIndex(), notInSync.toString());
        assertTrue(notInSync.leaderIndex() > 0, notInSync.toString());
        assertTrue(notInSync.etcdSays().isPresent(), "etcd refused it (FAILED_PRECONDITION): " + notInSync);
        assertTrue(changes.members().stream().filter(m -> m.id().equals(joinerId)).allMatch(MembershipChanges.ClusterMember::learner));
    }

    @Test
    @Order(2)
    void aLearnerThatIsNotInSyncIsAskedAgainUntilTheDeadline() {
        long start = System.nanoTime();
        MembershipChanges.Promotion outcome = changes.promoteWhenInSync(joinerId, Duration.ofMillis(1500));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertInstanceOf(MembershipChanges.Promotion.NotInSync.class, outcome);
        assertTrue(took.compareTo(Duration.ofMillis(1500)) >= 0, "gave up after " + took);
    }

    @Test
    @Order(3)
    void aStartedLearnerIsPromotedOnceInSyncAndPromotingAgainIsAlreadyDone() throws Exception {
        cluster.join(joiner, Duration.ofSeconds(60));
        MembershipChanges.Promotion outcome = changes.promoteWhenInSync(joinerId, Duration.ofSeconds(30));
        assertEquals(new MembershipChanges.Promotion.Promoted(joinerId), outcome, cluster.logTail("m4", 20));
        assertEquals(new MembershipChanges.Promotion.AlreadyVoter(joinerId), changes.promote(joinerId));
        assertEquals(new MembershipChanges.Promotion.NotFound("1234"), changes.promote("1234"));
        assertEquals(List.of(false, false, false, false),
                changes.members().stream().map(MembershipChanges.ClusterMember::learner).toList());
    }

    @Test
    @Order(4)
    void aVotersPeerUrlIsNotAddedAsALearner() {
        EtcdAdminException e = assertThrows(EtcdAdminException.class, () -> changes.addLearner(joiner.peerUrl(), Duration.ofSeconds(30)));
        assertTrue(e.getMessage().contains("already belongs to voting member m4"), e.getMessage());
    }

    @Test
    @Order(5)
    void leadershipMovesToTheMemberAskedFor() {
        changes.moveLeader(joinerId);
        assertEquals(joinerId, changes.leader().orElseThrow().id());
        changes.moveLeader(joinerId); // already the leader: nothing to do
        assertEquals(joinerId, changes.leader().orElseThrow().id());
    }

    @Test
    @Order(6)
    void aRemovedMemberIsAlreadyGoneTheSecondTime() {
        String follower = changes.members().stream().filter(m -> !m.id().equals(joinerId)).findFirst().orElseThrow().id();
        assertEquals(new MembershipChanges.Removal.Removed(follower), changes.remove(follower, Duration.ofSeconds(30)));
        assertEquals(new MembershipChanges.Removal.AlreadyGone(follower), changes.remove(follower, Duration.ofSeconds(30)));
        assertEquals(3, changes.members().size());
    }
}
