package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.Layouts;
import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.maintenance.DefragPlanner;
import io.etcdwright.modules.maintenance.DiskFacts;
import io.etcdwright.modules.maintenance.MaintenanceChecks;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.restore.WriteFence;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the plan says about alarms, disks and clocks, and what {@code etcdwright defrag} plans, from
 * the converged recording with what it does not show edited in: a NOSPACE alarm (beside etcdwright's
 * own write fence), databases with free pages, a disk nearly full, a slow disk, a clock ahead.
 */
class MaintenanceScenarioTest {
    private static final Scenario CONVERGED = new Scenario("converged", "three");
    private static final long MIB = 1L << 20;

    @TempDir
    Path home;

    PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    /** The facts with host {@code host}'s database sizes, disk and clock replaced. */
    private static ClusterRun.Facts edited(ClusterRun.Facts facts, String host, long db, long inUse, DiskFacts disk, long skew) {
        Map<String, EtcdHostFacts> hosts = new LinkedHashMap<>(facts.byHost());
        EtcdHostFacts f = hosts.get(host);
        MemberFacts.LocalStatus st = f.member().status().orElseThrow();
        MemberFacts.LocalStatus sized = new MemberFacts.LocalStatus(st.memberId(), st.clusterId(), st.leaderId(), st.version(), db,
                st.raftTerm(), st.raftIndex(), st.learner(), st.raftAppliedIndex(), st.errors(), inUse);
        MemberFacts member = new MemberFacts(f.member().dataDirExists(), f.member().hasMemberData(), f.member().dataBytes(),
                f.member().freeBytes(), Optional.of(sized), f.member().cluster());
        hosts.put(host, new EtcdHostFacts(f.host(), f.system(), f.install(), f.setup(), f.files(), f.service(), member, f.schedule(),
                f.restoreMarker(), disk, skew));
        return new ClusterRun.Facts(facts.reports(), facts.addresses(), hosts, facts.unreachable(), facts.cluster());
    }

    private static ClusterRun.Facts withAlarms(ClusterRun.Facts facts, List<MemberFacts.Alarm> alarms) {
        ClusterStatus c = facts.cluster().orElseThrow();
        return new ClusterRun.Facts(facts.reports(), facts.addresses(), facts.byHost(), facts.unreachable(),
                Optional.of(new ClusterStatus(c.members(), c.clusterId(), c.quorum(), c.clusterVersion(), alarms)));
    }

    private static DiskFacts disk(long totalMib, long freeMib, long fsyncMicros) {
        return new DiskFacts(OptionalLong.of(totalMib * MIB), OptionalLong.of(freeMib * MIB), OptionalLong.of(fsyncMicros));
    }

    private static String idOf(ClusterRun.Facts facts, String host) {
        return facts.byHost().get(host).member().status().orElseThrow().memberId();
    }

    @Test
    void aRealNospaceIsWarnedAboutAndEtcdwrightsOwnFenceIsNot() {
        ClusterRun.Facts recorded = scenarios.facts(CONVERGED);
        String h2 = idOf(recorded, "h2");
        Plan plan = scenarios.plan(CONVERGED, f -> withAlarms(f, List.of(new MemberFacts.Alarm(h2, "NOSPACE"),
                new MemberFacts.Alarm(Long.toHexString(WriteFence.MEMBER_ID), "NOSPACE"))));
        List<String> nospace = plan.warnings().stream().filter(w -> w.contains("NOSPACE")).toList();
        assertEquals(1, nospace.size(), plan.warnings().toString());
        assertTrue(nospace.get(0).contains("member h2 (" + h2 + ")"), nospace.get(0));
        assertTrue(nospace.get(0).contains("etcdwright defrag"), nospace.get(0));
        // The fence alone is no disk problem: nothing warned (apply lifts it).
        Plan fenceOnly = scenarios.plan(CONVERGED, f -> withAlarms(f, List.of(new MemberFacts.Alarm(Long.toHexString(WriteFence.MEMBER_ID), "NOSPACE"))));
        assertTrue(fenceOnly.warnings().stream().noneMatch(w -> w.contains("NOSPACE alarm is raised")), fenceOnly.warnings().toString());
    }

    @Test
    void aDiskWithNoRoomLeftRefusesThePlanAndSlowDisksNearlyFullDisksAndClocksApartAreWarned() {
        Plan full = scenarios.plan(CONVERGED, f -> edited(f, "h1", 20 * MIB, 10 * MIB, disk(10_000, 100, 500), 0));
        assertTrue(full.isRefused());
        assertEquals("disk-full", full.refusals().get(0).kind());
        assertEquals("h1", full.refusals().get(0).subject());

        Plan warned = scenarios.plan(CONVERGED, f -> edited(edited(f, "h2", 20 * MIB, 10 * MIB, disk(10_000, 600, 25_000), 4_000),
                "h3", 20 * MIB, 10 * MIB, disk(10_000, 5_000, 300), -20));
        assertFalse(warned.isRefused(), warned.refusals().toString());
        List<String> h2 = warned.warnings().stream().filter(w -> w.startsWith("h2: ")).toList();
        assertTrue(h2.stream().anyMatch(w -> w.contains("nearly full (600.0 MiB free, 6%)")), h2.toString());
        assertTrue(h2.stream().anyMatch(w -> w.contains("takes 25 ms") && w.contains("under 10 ms")), h2.toString());
        assertTrue(h2.stream().anyMatch(w -> w.contains("4000 ms ahead of this workstation's")), h2.toString());
        assertTrue(warned.warnings().stream().noneMatch(w -> w.startsWith("h3: ")), warned.warnings().toString());
    }

    @Test
    void aDatabaseNearItsQuotaIsWarnedAbout() {
        // three.yaml leaves etcd's default quota (2 GiB).
        Plan plan = scenarios.plan(CONVERGED, f -> edited(f, "h3", 1800 * MIB, 1700 * MIB, DiskFacts.UNKNOWN, 0));
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("h3: the database (1.8 GiB) is at 87% of its quota (2.0 GiB)")),
                plan.warnings().toString());
    }

    private DefragPlanner.Defrag defrag(ClusterRun.Facts facts, int minPercent) {
        DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                PlannerScenarios.DIR.resolve("three.yaml"));
        return DefragPlanner.plan(new DefragPlanner.Inputs("three", desired.members(),
                Endpoints.clientUrls(desired.members(), Layouts.of(desired)), facts.byHost(), facts.unreachable(), facts.cluster(),
                new Health.Access(home.resolve("ca.crt"), home.resolve("admin.crt"), home.resolve("admin.key")),
                MaintenanceChecks.quotaBytes(desired.spec().etcd()), minPercent, Duration.ofMinutes(5), Duration.ofMinutes(2)));
    }

    @Test
    void defragTakesTheMembersWorthItFollowersFirstTheLeaderLastThenDisarmsNospace() {
        String leader = PlannerScenarios.leaderOf("converged");
        ClusterRun.Facts facts = scenarios.facts(CONVERGED);
        List<String> hosts = List.of("h1", "h2", "h3");
        // Every member 60% free pages but the last follower, at 5%.
        String notWorth = hosts.stream().filter(h -> !h.equals(leader)).reduce((a, b) -> b).orElseThrow();
        for (String h : hosts) {
            facts = edited(facts, h, 100 * MIB, h.equals(notWorth) ? 95 * MIB : 40 * MIB, DiskFacts.UNKNOWN, 0);
        }
        facts = withAlarms(facts, List.of(new MemberFacts.Alarm(idOf(facts, leader), "NOSPACE"),
                new MemberFacts.Alarm(Long.toHexString(WriteFence.MEMBER_ID), "NOSPACE")));
        DefragPlanner.Defrag d = defrag(facts, 20);
        List<String> expected = new ArrayList<>();
        String previous = null;
        for (String h : PlannerScenarios.leaderLast(hosts, leader)) {
            if (!h.equals(notWorth)) {
                expected.add(h + "/defrag" + (previous == null ? "" : " <- " + previous));
                previous = h + "/defrag";
            }
        }
        expected.add("cluster/disarm-nospace <- " + previous);
        assertEquals(expected, PlannerScenarios.shape(d.plan()));
        Step last = d.plan().steps().get(d.plan().steps().size() - 1);
        assertTrue(last.reason().contains(leader), last.reason());
        assertTrue(d.assessment().stream().anyMatch(a -> a.startsWith(notWorth + ": database 100.0 MiB, 95.0 MiB in use, 5% free pages: not worth it")),
                d.assessment().toString());
        assertTrue(d.plan().steps().get(d.plan().steps().size() - 2).summary().contains("(the leader, last)"));

        // Nothing worth it and no alarm: nothing planned; --min-fragmentation 0 takes every member.
        ClusterRun.Facts quiet = withAlarms(facts, List.of(new MemberFacts.Alarm(Long.toHexString(WriteFence.MEMBER_ID), "NOSPACE")));
        assertFalse(defrag(quiet, 90).plan().hasChanges());
        assertEquals(3, defrag(quiet, 0).plan().steps().size());
    }

    /**
     * Under NOSPACE a follower idle since a compaction still reports the freed pages in use (bbolt
     * frees them at its next write, which the alarm refuses): a member at the disarm threshold is
     * defragmented whatever it reports, and one below it only when worth it.
     */
    @Test
    void underNospaceAMemberAtTheThresholdIsDefragmentedWhateverItReportsInUse() {
        String leader = PlannerScenarios.leaderOf("converged");
        ClusterRun.Facts facts = scenarios.facts(CONVERGED);
        long quota = MaintenanceChecks.quotaBytes(DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                PlannerScenarios.DIR.resolve("three.yaml")).spec().etcd());
        List<String> followers = java.util.stream.Stream.of("h1", "h2", "h3").filter(h -> !h.equals(leader)).toList();
        facts = edited(facts, leader, quota, quota / 50, DiskFacts.UNKNOWN, 0);              // compacted, counted: 98% free
        facts = edited(facts, followers.get(0), quota, quota - MIB, DiskFacts.UNKNOWN, 0);   // full, stale figure: 0% free
        facts = edited(facts, followers.get(1), quota / 2, quota / 2 - MIB, DiskFacts.UNKNOWN, 0); // below the threshold
        facts = withAlarms(facts, List.of(new MemberFacts.Alarm(idOf(facts, leader), "NOSPACE")));
        DefragPlanner.Defrag d = defrag(facts, 20);
        assertEquals(List.of(followers.get(0) + "/defrag", leader + "/defrag <- " + followers.get(0) + "/defrag",
                "cluster/disarm-nospace <- " + leader + "/defrag"), PlannerScenarios.shape(d.plan()));
        assertTrue(d.assessment().stream().anyMatch(a -> a.startsWith(followers.get(0) + ":") && a.contains("NOSPACE is raised")),
                d.assessment().toString());
        // Without the alarm the same figures take the leader only.
        ClusterRun.Facts quiet = withAlarms(facts, List.of());
        assertEquals(List.of(leader + "/defrag"), PlannerScenarios.shape(defrag(quiet, 20).plan()));
    }

    @Test
    void defragRefusesWhileAMemberIsDown() {
        ClusterRun.Facts facts = scenarios.facts(new Scenario("h2-stopped", "three"));
        DefragPlanner.Defrag d = defrag(facts, 0);
        assertTrue(d.plan().isRefused());
        assertEquals("h2", d.plan().refusals().get(0).subject());
        assertTrue(d.plan().refusals().get(0).whatToDo().contains("quorum"), d.plan().refusals().get(0).whatToDo());
    }
}
