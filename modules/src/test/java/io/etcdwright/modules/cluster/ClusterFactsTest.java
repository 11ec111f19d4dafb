package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.modules.cluster.ClusterFacts.HostAnswer;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberFacts.Alarm;
import io.etcdwright.modules.membership.MemberFacts.ClusterAnswer;
import io.etcdwright.modules.membership.MemberFacts.ListedMember;
import io.etcdwright.modules.membership.MemberFacts.LocalStatus;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.service.ServiceFacts;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cluster's view from the members' own answers: pure, so every case is a handful of records. */
class ClusterFactsTest {
    static final String CLUSTER = "c1";

    static ListedMember listed(String n, boolean learner) {
        return new ListedMember("a" + n, "h" + n, List.of("https://10.0.0." + n + ":2380"),
                List.of("https://10.0.0." + n + ":2379"), learner);
    }

    static final List<ListedMember> THREE = List.of(listed("1", false), listed("2", false), listed("3", false));

    /** Host hN running member aN, which sees leader {@code leader} at {@code term} and lists {@code members}. */
    static HostAnswer running(String n, String leader, long term, List<ListedMember> members, boolean healthy,
                              List<Alarm> alarms, List<String> errors) {
        LocalStatus status = new LocalStatus("a" + n, CLUSTER, leader, "3.5.16", 20480, term, 100 + term, false,
                100 + term, errors);
        ClusterAnswer answer = new ClusterAnswer(CLUSTER, "a" + n, term, members, healthy,
                healthy ? "" : "context deadline exceeded", alarms, Optional.of("3.5.16"), Optional.of("3.5.0"));
        return HostAnswer.reachable("10.0.0." + n, host("h" + n, "active",
                new MemberFacts(true, true, 4096, 1 << 30, Optional.of(status), Optional.of(answer))));
    }

    static HostAnswer running(String n, String leader, long term) {
        return running(n, leader, term, THREE, true, List.of(), List.of());
    }

    static HostAnswer stopped(String n) {
        return HostAnswer.reachable("10.0.0." + n, host("h" + n, "inactive",
                new MemberFacts(true, true, 4096, 1 << 30, Optional.empty(), Optional.empty())));
    }

    static EtcdHostFacts host(String name, String state, MemberFacts member) {
        return new EtcdHostFacts(name, new SystemFacts(name, "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), Map.of(), new ServiceFacts(state, true, 0, true, 0, false), member);
    }

    static MemberStatus member(ClusterStatus c, String name) {
        return c.members().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void allMembersAnswering() {
        ClusterStatus c = ClusterFacts.derive(List.of(running("1", "a1", 2), running("2", "a1", 2), running("3", "a1", 2)))
                .orElseThrow();
        assertEquals(List.of("h1", "h2", "h3"), c.members().stream().map(MemberStatus::name).toList());
        assertEquals(Optional.of(CLUSTER), c.clusterId());
        assertTrue(c.quorum());
        assertTrue(c.allHealthy());
        assertEquals("h1", c.leader().orElseThrow().name());
        assertEquals(Optional.of("3.5.0"), c.clusterVersion());
        MemberStatus h2 = member(c, "h2");
        assertEquals(Optional.of("3.5.16"), h2.version());
        assertEquals(OptionalLong.of(102), h2.raftIndex());
        assertEquals(OptionalLong.of(2), h2.raftTerm());
        assertEquals(OptionalLong.of(20480), h2.dbSizeBytes());
        assertEquals(List.of("https://10.0.0.2:2380"), h2.peerUrls());
        assertEquals(Optional.empty(), h2.error());
    }

    @Test
    void noMemberRunningGivesNoView() {
        assertEquals(Optional.empty(), ClusterFacts.derive(List.of(stopped("1"), stopped("2"),
                HostAnswer.unreachable("h3", "10.0.0.3", "connection refused"))));
        assertEquals(Optional.empty(), ClusterFacts.derive(List.of()));
    }

    @Test
    void membersThatDoNotAnswerSayWhy() {
        ClusterStatus c = ClusterFacts.derive(List.of(running("1", "a1", 2), stopped("2"),
                HostAnswer.unreachable("h3", "10.0.0.3", "SSH connection to 10.0.0.3:22 timed out"))).orElseThrow();
        assertTrue(c.quorum(), "h1's linearizable read went through");
        assertFalse(c.allHealthy());
        assertEquals(1, c.healthyCount());
        assertEquals("etcd is not running on h2 (inactive)", member(c, "h2").error().orElseThrow());
        assertEquals("host h3 unreachable: SSH connection to 10.0.0.3:22 timed out", member(c, "h3").error().orElseThrow());
        assertFalse(member(c, "h3").healthy());
        assertEquals(OptionalLong.empty(), member(c, "h3").raftIndex());

        // etcd running but no answer to etcdctl (a hung member, a certificate it refuses).
        HostAnswer silent = HostAnswer.reachable("10.0.0.2", host("h2", "active",
                new MemberFacts(true, true, 4096, 1 << 30, Optional.empty(), Optional.empty())));
        ClusterStatus s = ClusterFacts.derive(List.of(running("1", "a1", 2), silent, running("3", "a1", 2))).orElseThrow();
        assertTrue(member(s, "h2").error().orElseThrow().startsWith("etcd runs on h2 but did not answer"),
                member(s, "h2").error().toString());
    }

    @Test
    void leaderDownTheNewestAnswerWins() {
        // h1 led at term 2 and is gone; h2 still shows the old view, h3 the newest (term 3, leader h3,
        // and a member list without... the same members): the newest answer is taken.
        List<ListedMember> newer = List.of(listed("1", false), listed("2", false), listed("3", false), listed("4", true));
        ClusterStatus c = ClusterFacts.derive(List.of(
                HostAnswer.unreachable("h1", "10.0.0.1", "no route to host"),
                running("2", "a1", 2),
                running("3", "a3", 3, newer, true, List.of(), List.of()))).orElseThrow();
        assertEquals("h3", c.leader().orElseThrow().name(), "the status with the highest raft term names the leader");
        assertEquals(4, c.members().size(), "the member list of the leader's answer");
        assertEquals("host h1 unreachable: no route to host", member(c, "h1").error().orElseThrow());
        assertFalse(member(c, "h1").leader());
    }

    @Test
    void membersDisagreeingTheLeadersListWins() {
        // h3 was removed but still runs with its old view at a higher term (it campaigned alone);
        // the leader's answer lists only h1 and h2.
        List<ListedMember> two = List.of(listed("1", false), listed("2", false));
        ClusterStatus c = ClusterFacts.derive(List.of(
                running("1", "a1", 5, two, true, List.of(), List.of()),
                running("2", "a1", 5, two, true, List.of(), List.of()),
                running("3", "", 9, THREE, false, List.of(), List.of()))).orElseThrow();
        assertEquals(List.of("h1", "h2"), c.members().stream().map(MemberStatus::name).toList());
        assertEquals("h1", c.leader().orElseThrow().name());
    }

    @Test
    void aLearnerIsListedAndItsReadDoesNotProveQuorum() {
        List<ListedMember> withLearner = List.of(listed("1", false), listed("2", true));
        LocalStatus learnerStatus = new LocalStatus("a2", CLUSTER, "a1", "3.5.16", 20480, 2, 90, true, 88, List.of());
        ClusterAnswer learnerAnswer = new ClusterAnswer(CLUSTER, "a2", 2, withLearner, true, "", List.of(),
                Optional.empty(), Optional.empty());
        HostAnswer learner = HostAnswer.reachable("10.0.0.2", host("h2", "active",
                new MemberFacts(true, true, 4096, 1 << 30, Optional.of(learnerStatus), Optional.of(learnerAnswer))));
        ClusterStatus c = ClusterFacts.derive(List.of(
                running("1", "a1", 2, withLearner, false, List.of(), List.of()), learner)).orElseThrow();
        assertTrue(member(c, "h2").learner());
        assertTrue(member(c, "h2").healthy());
        assertEquals(OptionalLong.of(88), member(c, "h2").raftAppliedIndex());
        assertFalse(c.quorum(), "only a voter's linearizable read proves a quorum");
        assertEquals(88, c.learnerProgress(member(c, "h2")).orElseThrow().appliedIndex());
    }

    @Test
    void aMemberNotInTheInventoryAndOneNeverStarted() {
        ListedMember stranger = new ListedMember("ff", "old", List.of("https://10.9.9.9:2380"),
                List.of("https://10.9.9.9:2379"), false);
        ListedMember added = new ListedMember("ee", "", List.of("https://10.0.0.4:2380"), List.of(), true);
        List<ListedMember> list = new ArrayList<>(THREE);
        list.add(stranger);
        list.add(added);
        ClusterStatus c = ClusterFacts.derive(List.of(running("1", "a1", 2, list, true, List.of(), List.of()),
                running("2", "a1", 2, list, true, List.of(), List.of()))).orElseThrow();
        assertEquals(5, c.members().size());
        MemberStatus old = member(c, "old");
        assertFalse(old.healthy());
        assertTrue(old.error().orElseThrow().startsWith("not on any host of the inventory"), old.error().toString());
        MemberStatus fresh = c.members().stream().filter(m -> m.id().equals("ee")).findFirst().orElseThrow();
        assertTrue(fresh.error().orElseThrow().startsWith("not started yet"), fresh.error().toString());
    }

    @Test
    void alarmsAreTheClustersAndNamedOnTheirMember() {
        List<Alarm> alarms = List.of(new Alarm("a2", "NOSPACE"));
        ClusterStatus c = ClusterFacts.derive(List.of(
                running("1", "a1", 2, THREE, true, alarms, List.of()),
                running("2", "a1", 2, THREE, true, alarms, List.of("memberID:2 alarm:NOSPACE ")),
                running("3", "a1", 2, THREE, true, alarms, List.of()))).orElseThrow();
        assertEquals(alarms, c.alarms());
        assertEquals("reports: memberID:2 alarm:NOSPACE ", member(c, "h2").error().orElseThrow());
        assertTrue(member(c, "h2").healthy(), "it answered; the alarm is what it reports wrong");
        assertEquals(Optional.empty(), member(c, "h1").error());
    }

    @Test
    void anotherClustersMemberOnAHostOfTheInventoryDoesNotSpeakForThisOne() {
        LocalStatus foreign = new LocalStatus("a3", "other", "a3", "3.5.16", 20480, 40, 400, false, 400, List.of());
        ClusterAnswer foreignAnswer = new ClusterAnswer("other", "a3", 40, List.of(listed("3", false)), true, "",
                List.of(), Optional.empty(), Optional.empty());
        HostAnswer h3 = HostAnswer.reachable("10.0.0.3", host("h3", "active",
                new MemberFacts(true, true, 4096, 1 << 30, Optional.of(foreign), Optional.of(foreignAnswer))));
        ClusterStatus c = ClusterFacts.derive(List.of(running("1", "a1", 2), running("2", "a1", 2), h3)).orElseThrow();
        assertEquals(Optional.of(CLUSTER), c.clusterId());
        assertEquals("h1", c.leader().orElseThrow().name());
        assertFalse(member(c, "h3").healthy());
        assertTrue(member(c, "h3").error().orElseThrow().contains("answered as member a3 of cluster other"),
                member(c, "h3").error().toString());
    }
}
