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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Membership changes made through a client whose endpoints include a started learner, as an apply
 * makes them: its endpoints are the spec's members, the joiner among them. One voter and one
 * learner is the shape that failed in CI (a resize 1 -> 3: "etcd refused to promote h2: rpc not
 * supported for learner" for 3 minutes): with round-robin over two ready endpoints, every call after
 * a successful read landed on the learner. Real etcd with mutual TLS on loopback, as in
 * {@link MembershipChangesTest}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LearnerInEndpointsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    static Path dir;

    private static LocalEtcdCluster cluster;
    private static Path caCert;
    private static Path adminCert;
    private static Path adminKey;

    @BeforeAll
    static void startOneMember() throws Exception {
        Path etcd = EtcdBinary.locate(dir);
        TestPki.Issued ca = TestPki.ca("etcdwright learner routing test CA");
        caCert = dir.resolve("ca.crt");
        TestPki.writePem(caCert, ca.certificate());
        Path serverCert = dir.resolve("server.crt");
        Path serverKey = dir.resolve("server.key");
        TestPki.server(ca, "etcd-member").write(serverCert, serverKey);
        adminCert = dir.resolve("admin.crt");
        adminKey = dir.resolve("admin.key");
        TestPki.client(ca, "etcdwright-admin", TestPki.ecKey()).write(adminCert, adminKey);
        cluster = LocalEtcdCluster.start(etcd, EtcdHttpTest.version(etcd), dir, caCert, serverCert, serverKey, 1,
                Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aLearnerListedAmongTheEndpointsIsPromotedThroughTheVoter() throws Exception {
        LocalEtcdCluster.Node learner = startedLearner("m2");
        try (MembershipChanges changes = connect(List.of(cluster.node("m1").clientUrl(), learner.clientUrl()))) {
            String id = idOf(changes, learner);
            MembershipChanges.Promotion outcome = changes.promoteWhenInSync(id, Duration.ofSeconds(20));
            assertEquals(new MembershipChanges.Promotion.Promoted(id), outcome, cluster.logTail("m2", 20));
            assertTrue(changes.members().stream().noneMatch(MembershipChanges.ClusterMember::learner));
        }
    }

    @Test
    @Order(2)
    void aLearnerListedAmongTheEndpointsIsRemovedThroughTheVoters() throws Exception {
        LocalEtcdCluster.Node learner = startedLearner("m3");
        List<String> endpoints = List.of(cluster.node("m1").clientUrl(), cluster.node("m2").clientUrl(), learner.clientUrl());
        try (MembershipChanges changes = connect(endpoints)) {
            String id = idOf(changes, learner);
            assertEquals(new MembershipChanges.Removal.Removed(id), changes.remove(id, Duration.ofSeconds(20)));
            assertFalse(changes.members().stream().anyMatch(m -> m.id().equals(id)));
            assertEquals(2, changes.members().size());
        }
    }

    /** Added through the voters alone (the setup, not what is tested), then started and serving. */
    private static LocalEtcdCluster.Node startedLearner(String name) throws Exception {
        LocalEtcdCluster.Node node = cluster.newNode(name);
        List<String> voters = cluster.clientUrls();
        try (MembershipChanges toVoters = connect(voters)) {
            toVoters.addLearner(node.peerUrl(), Duration.ofSeconds(30));
        }
        cluster.join(node, Duration.ofSeconds(60));
        return node;
    }

    private static String idOf(MembershipChanges changes, LocalEtcdCluster.Node node) {
        return changes.members().stream().filter(m -> m.peerUrls().contains(node.peerUrl())).findFirst().orElseThrow().id();
    }

    private static MembershipChanges connect(List<String> endpoints) {
        return MembershipChanges.connect(endpoints, caCert, adminCert, adminKey, TIMEOUT);
    }
}
