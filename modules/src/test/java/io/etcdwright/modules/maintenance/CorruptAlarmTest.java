package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the plan says of etcd's CORRUPT alarm: which member, replaced not restarted, and etcd's recovery in etcdwright's terms. */
class CorruptAlarmTest {
    private static final Set<String> SPEC = Set.of("https://10.0.0.1:2380", "https://10.0.0.2:2380", "https://10.0.0.3:2380");

    private static MemberStatus member(String name, String id, String address) {
        return new MemberStatus(name, id, List.of("https://" + address + ":2379"), List.of("https://" + address + ":2380"), false,
                false, Optional.of("3.6.16"), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), true, Optional.empty());
    }

    private static Optional<ClusterStatus> cluster(MemberFacts.Alarm... alarms) {
        return Optional.of(new ClusterStatus(List.of(member("h1", "a1", "10.0.0.1"), member("h2", "b2", "10.0.0.2"),
                member("h3", "c3", "10.0.0.3")), Optional.of("d4"), true, Optional.of("3.6.0"), List.of(alarms)));
    }

    private static MaintenanceChecks.Findings findings(Set<String> spec, MemberFacts.Alarm... alarms) {
        return MaintenanceChecks.of(Map.of(), cluster(alarms), MaintenanceChecks.DEFAULT_QUOTA_BYTES, spec);
    }

    @Test
    void aMemberTheSpecKeepsIsARefusalThatSaysReplaceNotRestartAndHow() {
        MaintenanceChecks.Findings f = findings(SPEC, new MemberFacts.Alarm("b2", "CORRUPT"));
        assertEquals(1, f.refusals().size(), f.toString());
        Refusal r = f.refusals().get(0);
        assertEquals("corrupt-member", r.kind());
        assertEquals("member h2", r.subject());
        assertEquals("etcd raised a CORRUPT alarm on member h2 (b2): its corruption check found this member's data differs"
                + " from the others' (diverged: a disk or a bug lost or changed what it applied), and the cluster refuses writes"
                + " until the alarm is disarmed. It must be replaced, not restarted: a restart serves the same data again", r.what());
        assertEquals("replace it as etcd's guide does (https://etcd.io/docs/v3.6/op-guide/data_corruption/): 1. remove h2 from"
                + " the spec's members and apply (etcd's member remove; its etcd stops, its data is kept); 2. put h2 back and"
                + " apply: it joins afresh as a learner, its old data moved aside (never deleted), and takes a snapshot from the"
                + " leader; 3. then disarm the alarm on any member's host: etcdctl alarm disarm (with the environment"
                + " 'etcdwright client-env' prints); etcdwright never disarms CORRUPT itself", r.whatToDo());
        assertEquals(List.of(), f.warnings());
    }

    @Test
    void theSchemeDoesNotMakeAMemberAnother() {
        Set<String> plain = Set.of("http://10.0.0.1:2380", "http://10.0.0.2:2380", "http://10.0.0.3:2380");
        assertEquals(List.of("corrupt-member"), findings(plain, new MemberFacts.Alarm("b2", "CORRUPT")).refusals().stream()
                .map(Refusal::kind).toList());
    }

    @Test
    void thePlanThatRemovesTheMemberGoesOnAndSaysWhatIsLeft() {
        MaintenanceChecks.Findings f = findings(Set.of("https://10.0.0.1:2380", "https://10.0.0.3:2380"),
                new MemberFacts.Alarm("b2", "CORRUPT"));
        assertEquals(List.of(), f.refusals());
        assertEquals(List.of("etcd's CORRUPT alarm is raised on member h2 (b2), which this plan removes: put its host back in"
                + " members afterwards to add it afresh (its old data moved aside); the cluster refuses writes until the alarm"
                + " is disarmed: once the member is replaced, run etcdctl alarm disarm on a member's host"
                + " (https://etcd.io/docs/v3.6/op-guide/data_corruption/)"), f.warnings());
        // Replaced already (the alarm names an id no member has): only the disarm is left.
        assertTrue(findings(SPEC, new MemberFacts.Alarm("e5", "CORRUPT")).warnings().get(0)
                .startsWith("etcd's CORRUPT alarm is raised on member e5, which is no longer a member; the cluster refuses writes"));
    }

    @Test
    void anAlarmOnNoMemberIsARestore() {
        for (String none : List.of("", "0")) {
            MaintenanceChecks.Findings f = findings(SPEC, new MemberFacts.Alarm(none, "CORRUPT"));
            assertEquals(List.of("corrupt-cluster"), f.refusals().stream().map(Refusal::kind).toList());
            assertTrue(f.refusals().get(0).what().contains("naming no member (member id 0)"), f.refusals().get(0).what());
            assertTrue(f.refusals().get(0).whatToDo().contains("'etcdwright restore'"), f.refusals().get(0).whatToDo());
        }
    }

    @Test
    void noSpaceIsStillAWarning() {
        MaintenanceChecks.Findings f = findings(SPEC, new MemberFacts.Alarm("a1", "NOSPACE"));
        assertEquals(List.of(), f.refusals());
        assertTrue(f.warnings().get(0).startsWith("etcd's NOSPACE alarm is raised on member h1 (a1)"), f.warnings().toString());
    }
}
