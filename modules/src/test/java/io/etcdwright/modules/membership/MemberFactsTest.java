package io.etcdwright.modules.membership;

import io.etcdwright.engine.ssh.LocalHost;
import io.etcdwright.modules.EtcdLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemberFactsTest {
    /** Captured from etcdctl 3.5.16 'endpoint status -w json'. */
    static final String STATUS = "[{\"Endpoint\":\"https://127.0.0.1:2379\",\"Status\":{\"header\":{\"cluster_id\":1797542713432633093,"
            + "\"member_id\":10276657743932975437,\"revision\":1,\"raft_term\":2},\"version\":\"3.5.16\",\"dbSize\":20480,"
            + "\"leader\":10276657743932975437,\"raftIndex\":4,\"raftTerm\":2,\"raftAppliedIndex\":4,\"dbSizeInUse\":16384}}]";

    @Test
    void parsesTheLocalMembersStatusWithHexIds() {
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse(
                "data_dir=1\nmember_data=1\ndata_bytes=123\nfree_bytes=456\nstatus=" + STATUS + "\n");
        assertTrue(f.hasMemberData());
        assertEquals(123, f.dataBytes());
        MemberFacts.LocalStatus s = f.status().orElseThrow();
        assertEquals("8e9e05c52164694d", s.memberId());
        assertTrue(s.isLeader());
        assertEquals("3.5.16", s.version());
        assertEquals(20480, s.dbSizeBytes());
        assertFalse(s.learner());
    }

    /** Captured from etcdctl 3.5.16 'member list -w json' (one learner added, not started yet). */
    static final String MEMBERS = "{\"header\":{\"cluster_id\":15118495548433857066,\"member_id\":13668033151171901709,"
            + "\"raft_term\":2},\"members\":[{\"ID\":13668033151171901709,\"name\":\"default\",\"peerURLs\":"
            + "[\"http://127.0.0.1:23801\"],\"clientURLs\":[\"http://127.0.0.1:23791\"]},{\"ID\":15976263091622178426,"
            + "\"peerURLs\":[\"http://127.0.0.1:23999\"],\"isLearner\":true}]}";

    @Test
    void parsesTheClusterAsTheMemberSeesIt() {
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse("data_dir=1\nstatus=" + STATUS + "\nmembers=" + MEMBERS
                + "\nhealth=[{\"endpoint\":\"https://127.0.0.1:2379\",\"health\":true,\"took\":\"2.4ms\"}]"
                + "\nalarms={\"header\":{\"cluster_id\":1,\"member_id\":2,\"revision\":1,\"raft_term\":2},"
                + "\"alarms\":[{\"memberID\":13668033151171901709,\"alarm\":1}]}"
                + "\nversions={\"etcdserver\":\"3.5.16\",\"etcdcluster\":\"3.5.0\"}\n");
        MemberFacts.ClusterAnswer c = f.cluster().orElseThrow();
        assertEquals("d1cfaf999eb97a2a", c.clusterId());
        assertEquals("bdae9bbc11dd390d", c.answeredBy());
        assertEquals(2, c.raftTerm());
        assertEquals(2, c.members().size());
        assertEquals(new MemberFacts.ListedMember("bdae9bbc11dd390d", "default", java.util.List.of("http://127.0.0.1:23801"),
                java.util.List.of("http://127.0.0.1:23791"), false), c.members().get(0));
        assertTrue(c.members().get(1).learner());
        assertEquals("", c.members().get(1).name());
        assertTrue(c.healthy());
        assertEquals(java.util.List.of(new MemberFacts.Alarm("bdae9bbc11dd390d", "NOSPACE")), c.alarms());
        assertEquals(java.util.Optional.of("3.5.0"), c.clusterVersion());
        assertEquals(4, f.status().orElseThrow().raftAppliedIndex());
    }

    /** Captured from etcd 3.5.16's gRPC gateway (/v3/cluster/member/list) on a member without quorum: numbers as strings. */
    @Test
    void parsesTheGatewaysMemberListToo() {
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse("members={\"header\":{\"cluster_id\":\"3732871557984959026\","
                + " \"member_id\":\"8691896788947702700\", \"raft_term\":\"3\"}, \"members\":[{\"ID\":\"1994984556441063996\","
                + " \"name\":\"h3\", \"peerURLs\":[\"https://10.78.0.13:2380\"], \"clientURLs\":[\"https://10.78.0.13:2379\"]},"
                + " {\"ID\":\"14002142539313740499\", \"name\":\"h2\", \"peerURLs\":[\"https://10.78.0.12:2380\"],"
                + " \"clientURLs\":[], \"isLearner\":true}]}\nhealth=[{\"health\":false,\"error\":\"context deadline exceeded\"}]\n");
        MemberFacts.ClusterAnswer c = f.cluster().orElseThrow();
        assertEquals(new java.math.BigInteger("3732871557984959026").toString(16), c.clusterId());
        assertEquals(3, c.raftTerm());
        assertEquals(new java.math.BigInteger("1994984556441063996").toString(16), c.members().get(0).id());
        assertEquals("h3", c.members().get(0).name());
        assertTrue(c.members().get(1).learner());
        assertFalse(c.healthy());
    }

    /**
     * Captured from etcd 3.5.16 on a testbed host, as the probe asks when the host has curl: the
     * gateway's status (no Endpoint wrapper, 64-bit numbers quoted, zero values left out), member
     * list, alarms, and /health. The same facts as etcdctl's answers give.
     */
    static final String GATEWAY = "status={\"header\":{\"cluster_id\":\"11233432158975423690\", \"member_id\":\"9930730263617043835\","
            + " \"revision\":\"1\", \"raft_term\":\"2\"}, \"version\":\"3.5.16\", \"dbSize\":\"20480\","
            + " \"leader\":\"9930730263617043835\", \"raftIndex\":\"148\", \"raftTerm\":\"2\", \"raftAppliedIndex\":\"148\","
            + " \"dbSizeInUse\":\"16384\"}\n"
            + "members={\"header\":{\"cluster_id\":\"11233432158975423690\", \"member_id\":\"9930730263617043835\", \"raft_term\":\"2\"},"
            + " \"members\":[{\"ID\":\"8735698510229815760\", \"name\":\"h2\", \"peerURLs\":[\"https://10.77.4.12:2380\"],"
            + " \"clientURLs\":[\"https://10.77.4.12:2379\"]}, {\"ID\":\"9930730263617043835\", \"name\":\"h1\","
            + " \"peerURLs\":[\"https://10.77.4.11:2380\"], \"clientURLs\":[\"https://10.77.4.11:2379\"]}]}\n"
            + "health={\"health\":\"true\",\"reason\":\"\"}\n"
            + "alarms={\"header\":{\"cluster_id\":\"11233432158975423690\", \"member_id\":\"9930730263617043835\", \"revision\":\"1\","
            + " \"raft_term\":\"2\"}, \"alarms\":[{\"memberID\":\"8735698510229815760\", \"alarm\":\"NOSPACE\"}]}\n"
            + "versions={\"etcdserver\":\"3.5.16\",\"etcdcluster\":\"3.5.0\"}\n";

    @Test
    void readsEtcdsOwnHttpAnswersAsItReadsEtcdctls() {
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse("data_dir=1\n" + GATEWAY);
        MemberFacts.LocalStatus s = f.status().orElseThrow();
        assertEquals(new MemberFacts.LocalStatus("89d10a8f3b1d7d7b", "9be52b08042df4ca", "89d10a8f3b1d7d7b", "3.5.16",
                20480, 2, 148, false, 148, java.util.List.of(), 16384), s);
        assertTrue(s.isLeader());
        MemberFacts.ClusterAnswer c = f.cluster().orElseThrow();
        assertEquals("9be52b08042df4ca", c.clusterId());
        assertEquals("89d10a8f3b1d7d7b", c.answeredBy());
        assertEquals(2, c.raftTerm());
        assertEquals(new MemberFacts.ListedMember("793b6f82e72841d0", "h2", java.util.List.of("https://10.77.4.12:2380"),
                java.util.List.of("https://10.77.4.12:2379"), false), c.members().get(0));
        assertTrue(c.healthy());
        assertEquals("", c.healthError());
        assertEquals(java.util.List.of(new MemberFacts.Alarm("793b6f82e72841d0", "NOSPACE")), c.alarms());
        assertEquals(java.util.Optional.of("3.5.16"), c.serverVersion());
        assertEquals(java.util.Optional.of("3.5.0"), c.clusterVersion());
    }

    @Test
    void aLeaderlessStatusFromTheGatewayNamesNoLeaderAndHealthSaysWhy() {
        // No leader: the gateway leaves the zero out; etcdctl printed "leader":0.
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse("status={\"header\":{\"cluster_id\":\"1\", \"member_id\":\"2\","
                + " \"raft_term\":\"7\"}, \"version\":\"3.5.16\", \"dbSize\":\"20480\", \"raftIndex\":\"9\", \"raftTerm\":\"7\"}\n"
                + "members={\"header\":{\"cluster_id\":\"1\", \"member_id\":\"2\", \"raft_term\":\"7\"}, \"members\":[]}\n"
                + "health={\"health\":\"false\",\"reason\":\"RAFT NO LEADER\"}\n");
        assertEquals("0", f.status().orElseThrow().leaderId());
        assertFalse(f.status().orElseThrow().isLeader());
        MemberFacts.ClusterAnswer c = f.cluster().orElseThrow();
        assertFalse(c.healthy());
        assertEquals("RAFT NO LEADER", c.healthError());
        // A gRPC error through the gateway is no status at all, as etcdctl's empty answer was.
        assertTrue(MemberFacts.probe(EtcdLayout.DEFAULT).parse("status={\"error\":\"etcdserver: request timed out\","
                + " \"code\":14, \"message\":\"etcdserver: request timed out\"}\n").status().isEmpty());
    }

    @Test
    void anUnhealthyReadKeepsEtcdctlsReason() {
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse("members=" + MEMBERS
                + "\nhealth=[{\"endpoint\":\"https://127.0.0.1:2379\",\"health\":false,\"took\":\"3s\","
                + "\"error\":\"context deadline exceeded\"}]\nalarms=\n");
        MemberFacts.ClusterAnswer c = f.cluster().orElseThrow();
        assertFalse(c.healthy());
        assertEquals("context deadline exceeded", c.healthError());
        assertTrue(c.alarms().isEmpty());
        assertTrue(c.clusterVersion().isEmpty());
        // No member list (etcd did not answer): no cluster answer at all.
        assertTrue(MemberFacts.probe(EtcdLayout.DEFAULT).parse("members=\nhealth=\n").cluster().isEmpty());
    }

    /** Captured from etcd 3.7.3's gRPC gateway (POST /v3/maintenance/status) right after 'downgrade enable 3.6'. */
    static final String SERVER_STATUS_37 = "{\"header\":{\"cluster_id\":\"7266900810802666328\",\"member_id\":"
            + "\"4627081221937520288\",\"revision\":\"1\",\"raft_term\":\"2\"},\"version\":\"3.7.3\",\"dbSize\":\"24576\","
            + "\"leader\":\"9272732848952112643\",\"raftIndex\":\"8\",\"raftTerm\":\"2\",\"raftAppliedIndex\":\"8\","
            + "\"dbSizeInUse\":\"20480\",\"storageVersion\":\"3.7.0\",\"dbSizeQuota\":\"2147483648\",\"downgradeInfo\":"
            + "{\"enabled\":true,\"targetVersion\":\"3.6.0\"}}";
    /** The same of etcd 3.5.35, which knows neither field. */
    static final String SERVER_STATUS_35 = "{\"header\":{\"cluster_id\":\"7266900810802666328\",\"member_id\":"
            + "\"4627081221937520288\",\"revision\":\"2\",\"raft_term\":\"4\"},\"version\":\"3.5.35\",\"dbSize\":\"28672\","
            + "\"leader\":\"2825987797056917605\",\"raftIndex\":\"36\",\"raftTerm\":\"4\",\"raftAppliedIndex\":\"36\","
            + "\"dbSizeInUse\":\"16384\"}";

    @Test
    void theServersOwnStatusSaysItsStorageVersionAndAnyDowngradeUnderWay() {
        MemberFacts.StorageStatus enabled = MemberFacts.probe(EtcdLayout.DEFAULT)
                .parse("data_dir=1\nstatus=" + STATUS + "\nserver_status=" + SERVER_STATUS_37 + "\n").storage().orElseThrow();
        assertEquals(java.util.Optional.of("3.7.0"), enabled.storageVersion());
        assertEquals(java.util.Optional.of("3.6.0"), enabled.downgradeTarget());
        assertTrue(enabled.reportsDowngrade());

        // etcd 3.6+ leaves 'enabled: false' out: an empty downgradeInfo is "none under way", said.
        MemberFacts.StorageStatus none = MemberFacts.parseStorage(SERVER_STATUS_37.replace(
                "{\"enabled\":true,\"targetVersion\":\"3.6.0\"}", "{}")).orElseThrow();
        assertTrue(none.downgradeTarget().isEmpty());
        assertTrue(none.reportsDowngrade());

        // etcd 3.5 says nothing of either: not known, rather than none.
        MemberFacts.StorageStatus old = MemberFacts.parseStorage(SERVER_STATUS_35).orElseThrow();
        assertTrue(old.storageVersion().isEmpty());
        assertFalse(old.reportsDowngrade());

        assertTrue(MemberFacts.probe(EtcdLayout.DEFAULT).parse("data_dir=1\nstatus=" + STATUS + "\n").storage().isEmpty());
        assertTrue(MemberFacts.parseStorage("curl: (7) Failed to connect").isEmpty());
    }

    @Test
    void noStatusWhenEtcdDidNotAnswer() {
        MemberFacts f = MemberFacts.probe(EtcdLayout.DEFAULT).parse("free_bytes=1\nstatus=\n");
        assertFalse(f.dataDirExists());
        assertTrue(f.status().isEmpty());
    }

    @Test
    void theDataDirAndPortReachTheProbeAsLiteralArgumentsOfAFixedScript(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        LocalHost host = new LocalHost(dir);
        String benign = MemberFacts.probe(EtcdLayout.DEFAULT).script();
        for (String value : host.hostileValues()) {
            var probe = MemberFacts.probe(new EtcdLayout(value, 2379, 2380));
            assertEquals(benign, probe.script(), "the probe is the same text whatever the data dir");
            host.assertArrivesLiterally(new io.etcdwright.engine.ssh.RemoteCommand.Script(probe.script(), probe.arguments()),
                    java.util.List.of(value, "2379"));
        }
        // The real probe against a data dir whose name is made of shell syntax: data, not code.
        java.nio.file.Path data = java.nio.file.Files.createDirectories(
                dir.resolve("-d $(touch pwned-member);'\"`touch pwned-tick`").resolve("member"));
        var probe = MemberFacts.probe(new EtcdLayout(data.getParent().toString(), 2379, 2380));
        var run = host.run(new io.etcdwright.engine.ssh.RemoteCommand.Script(probe.script(), probe.arguments()),
                new byte[0], false);
        MemberFacts facts = probe.parse(run.stdout());
        assertTrue(facts.dataDirExists(), run.stdout() + run.stderr());
        assertTrue(facts.hasMemberData());
        assertTrue(facts.freeBytes() > 0, run.stdout());
        host.assertNoMarkers();
    }

    @Test
    void readsTheNewestRaftSnapshotFromItsFileNameInHex(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // etcd names them %016x-%016x.snap (term, index); its backend snapshots (.snap.db) and broken ones are not raft snapshots.
        java.nio.file.Path snap = java.nio.file.Files.createDirectories(dir.resolve("data").resolve("member").resolve("snap"));
        for (String name : java.util.List.of("0000000000000002-0000000000002711.snap", "0000000000000003-000000000000c351.snap",
                "0000000000000003-00000000000186a1.snap.db", "0000000000000003-000000000000ea61.snap.broken", "db")) {
            java.nio.file.Files.writeString(snap.resolve(name), "x");
        }
        LocalHost host = new LocalHost(dir);
        var probe = MemberFacts.probe(new EtcdLayout(dir.resolve("data").toString(), 2379, 2380));
        var run = host.run(new io.etcdwright.engine.ssh.RemoteCommand.Script(probe.script(), probe.arguments()),
                new byte[0], false);
        MemberFacts facts = probe.parse(run.stdout());
        assertEquals(java.util.Optional.of(new RaftSnapshot(3, 0xc351)), facts.newestSnapshot(), run.stdout() + run.stderr());
        assertEquals("0000000000000003-000000000000c351.snap", facts.newestSnapshot().orElseThrow().fileName());

        java.nio.file.Files.list(snap).forEach(f -> f.toFile().delete());
        MemberFacts none = probe.parse(host.run(new io.etcdwright.engine.ssh.RemoteCommand.Script(probe.script(), probe.arguments()),
                new byte[0], false).stdout());
        assertEquals(java.util.Optional.empty(), none.newestSnapshot(), "a member that never snapshotted");
        assertEquals(java.util.Optional.empty(), MemberFacts.probe(EtcdLayout.DEFAULT).parse("data_dir=1\n").newestSnapshot(),
                "facts recorded before the snapshot was read");
    }

    @Test
    void aRaftSnapshotNameIsTwoFixedWidthHexNumbersAndNothingElse() {
        assertEquals(java.util.Optional.of(new RaftSnapshot(0xb, 100001)),
                RaftSnapshot.fromFileName("000000000000000b-00000000000186a1.snap\n"));
        assertEquals(java.util.Optional.of(new RaftSnapshot(-1L, 1)), RaftSnapshot.fromFileName("ffffffffffffffff-0000000000000001.snap"),
                "uint64 terms, as etcd writes them");
        for (String other : java.util.List.of("", "00000000000000b-00000000000186a1.snap", "000000000000000b-00000000000186a1.snap.db",
                "000000000000000B-00000000000186a1.snap", "x000000000000000b-00000000000186a1.snap", "db")) {
            assertEquals(java.util.Optional.empty(), RaftSnapshot.fromFileName(other), other);
        }
    }
}
