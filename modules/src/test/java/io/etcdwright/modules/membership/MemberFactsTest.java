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
}
