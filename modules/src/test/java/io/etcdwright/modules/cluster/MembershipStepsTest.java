package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipPlan;
import io.etcdwright.modules.membership.MembershipPlan.Current;
import io.etcdwright.modules.membership.MembershipPlan.Desired;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The steps of a membership plan: their order, hosts and what each waits for. Nothing runs. */
class MembershipStepsTest {
    static final Health.Access ACCESS = new Health.Access(Path.of("ca.crt"), Path.of("admin.crt"), Path.of("admin.key"));

    static String url(int i) {
        return "https://10.0.0." + i + ":2380";
    }

    /** What the first change waits for, as the converge planner gives it: the CA's step. */
    static final Step CA = Step.cluster("pki", "ca").safety(io.etcdwright.engine.plan.SafetyClass.CHANGE).does(ctx -> io.etcdwright.engine.plan.Outcome.CHANGED);

    /** A joiner host's last preparation step. */
    static Step unitOf(String host) {
        return Step.on(host, "service", "unit").safety(io.etcdwright.engine.plan.SafetyClass.CHANGE).does(ctx -> io.etcdwright.engine.plan.Outcome.CHANGED);
    }

    static List<Step> steps(List<Current> now, List<Desired> wanted, Map<String, MembershipSteps.Joiner> joiners) {
        return steps(now, wanted, joiners, Map.of());
    }

    static List<Step> steps(List<Current> now, List<Desired> wanted, Map<String, MembershipSteps.Joiner> joiners,
                            Map<String, RemovedHost> removed) {
        MembershipPlan plan = MembershipPlan.plan(now, wanted, "3.5.16");
        assertEquals(List.of(), plan.refusals());
        return MembershipSteps.steps(plan, List.of(CA), joiners, removed, new PendingStops(Path.of("removed-hosts")), ACCESS,
                Map.of(), ConvergePlanner.Timeouts.DEFAULT, io.etcdwright.engine.plan.SafetyClass.CHANGE);
    }

    static List<String> ids(List<Step> steps) {
        return steps.stream().map(Step::id).toList();
    }

    static MemberStatus member(String name, String id, boolean learner, boolean healthy) {
        return new MemberStatus(name, id, List.of("https://" + name + ":2379"), List.of("https://" + name + ":2380"), learner,
                false, Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), healthy, Optional.empty());
    }

    @Test
    void aRemovalRefusedWhenItRunsNamesTheVotersThatWouldRemain() {
        // Planned while all were healthy; by the time the step runs h3 and h4 are down.
        ClusterStatus now = new ClusterStatus(List.of(member("h1", "a1", false, true), member("h2", "a2", false, true),
                member("h3", "a3", false, false), member("h4", "a4", false, false), member("h5", "a5", true, true)), Optional.of("c1"), true);
        assertEquals(Optional.of("not removing h2: 1 healthy of 3 voting members would remain (healthy: h1; down: h3, h4),"
                + " fewer than a quorum: members went down since the plan was made. Bring h3, h4 back, then apply again"),
                MembershipSteps.removalRefusal("h2", "a2", now, Set.of()));
        assertEquals(Optional.empty(), MembershipSteps.removalRefusal("h5", "a5", now, Set.of()), "a learner holds no vote");
        ClusterStatus healthy = new ClusterStatus(List.of(member("h1", "a1", false, true), member("h2", "a2", false, true),
                member("h3", "a3", false, true)), Optional.of("c1"), true);
        assertEquals(Optional.empty(), MembershipSteps.removalRefusal("h3", "a3", healthy, Set.of()));
    }

    @Test
    void aMemberThisApplyRemovedCountsAsGoneWhateverAStaleMemberListSays() {
        // 3 -> 1: h1 was removed a moment ago and is exiting; a member that has not applied the
        // removal yet still lists it (down). Removing h6 leaves h4, alone and healthy: a quorum of one.
        ClusterStatus stale = new ClusterStatus(List.of(member("h1", "a1", false, false), member("h4", "a4", false, true),
                member("h6", "a6", false, true)), Optional.of("c1"), true);
        assertTrue(MembershipSteps.removalRefusal("h6", "a6", stale, Set.of()).isPresent(), "without knowing, h1 looks down");
        assertEquals(Optional.empty(), MembershipSteps.removalRefusal("h6", "a6", stale, Set.of("a1")));
    }

    @Test
    void aRemovedMembersHostThatLeftTheSpecHasEtcdStoppedAndDisabledAfterTheRemovalBesideTheRest() {
        // 5 -> 3: h4 and h5 leave; h4's host node-4 is still in the inventory, h5's is gone.
        List<Current> now = List.of(new Current("a1", "h1", url(1), false, true, true), new Current("a2", "h2", url(2), false, true, false),
                new Current("a3", "h3", url(3), false, true, false), new Current("a4", "h4", url(4), false, true, false),
                new Current("a5", "h5", url(5), false, true, false));
        Map<String, RemovedHost> removed = Map.of("h4", new RemovedHost.LeftSpec("node-4", "/var/lib/etcd"),
                "h5", new RemovedHost.NotInInventory("10.0.0.5"));
        List<Step> steps = steps(now, List.of(new Desired("h1", url(1)), new Desired("h2", url(2)), new Desired("h3", url(3))),
                Map.of(), removed);
        assertEquals(List.of("cluster/1-remove-h4", "node-4/stop-removed", "cluster/2-remove-h5"), ids(steps));
        Step stop = steps.get(1);
        assertEquals(Optional.of("node-4"), stop.host());
        assertEquals(List.of("cluster/1-remove-h4"), stop.after());
        assertEquals("stop and disable etcd (its data in /var/lib/etcd stays)", stop.summary());
        assertEquals(List.of("cluster/1-remove-h4"), steps.get(2).after(), "the next removal does not wait for the host");
    }

    @Test
    void theRemovalSaysWhatBecomesOfTheRemovedMembersEtcd() {
        assertTrue(MembershipSteps.afterRemoval(new RemovedHost.LeftSpec("node-4", "/var/lib/etcd"))
                .contains("stopped and disabled next"));
        assertTrue(MembershipSteps.afterRemoval(new RemovedHost.StaysInSpec("node-2")).contains("joins again"));
        String gone = MembershipSteps.afterRemoval(new RemovedHost.NotInInventory("10.0.0.5"));
        assertTrue(gone.contains("no host of the inventory has its name or address (10.0.0.5)"), gone);
        assertTrue(gone.contains("systemctl disable --now etcd.service"), gone);
    }

    @Test
    void aRemovedMemberWhoseHostRejoinsGetsNoStopStep() {
        // h2's data was lost: it is removed and joins afresh on the same host, whose unit must stay enabled.
        List<Current> now = List.of(new Current("a1", "h1", url(1), false, true, true),
                new Current("a2", "h2", url(2), false, false, false, true), new Current("a3", "h3", url(3), false, true, false));
        Map<String, RemovedHost> removed = Map.of("h2", new RemovedHost.StaysInSpec("node-2"));
        Map<String, MembershipSteps.Joiner> joiners = Map.of("h2", new MembershipSteps.Joiner("node-2", List.of(), Optional.empty()));
        List<Step> steps = steps(now, List.of(new Desired("h1", url(1)), new Desired("h2", url(2)), new Desired("h3", url(3))),
                joiners, removed);
        assertTrue(steps.stream().noneMatch(s -> s.id().endsWith("/stop-removed")), ids(steps).toString());
    }

    @Test
    void aRunningLearnerIsOnlyPromotedWithNoStepOnItsHost() {
        // h4 was added and started by an apply that was stopped before promoting it.
        List<Current> now = List.of(new Current("a1", "h1", url(1), false, true, true), new Current("b4", "h4", url(4), true, true, false));
        List<Step> steps = steps(now, List.of(new Desired("h1", url(1)), new Desired("h4", url(4))), Map.of());
        assertEquals(List.of("cluster/1-promote-h4"), ids(steps));
    }

    @Test
    void oldDataIsMovedAsideOnTheInventoryHostAfterTheMemberAtItsAddressIsRemovedAndBeforeTheJoin() {
        // The host at 10.0.0.3 (inventory name node-3) is rebuilt as member h3b; old member h3 leads there.
        List<Current> now = List.of(new Current("a1", "h1", url(1), false, true, false),
                new Current("a2", "h2", url(2), false, true, false), new Current("a3", "h3", url(3), false, true, true));
        MembershipSteps.OldData old = new MembershipSteps.OldData("/var/lib/etcd", "it holds data of member a3", 4096);
        Map<String, MembershipSteps.Joiner> joiners = Map.of("h3b",
                new MembershipSteps.Joiner("node-3", List.of(unitOf("node-3")), Optional.of(old)));
        List<Step> steps = steps(now, List.of(new Desired("h1", url(1)), new Desired("h2", url(2)), new Desired("h3b", url(3))), joiners);
        assertEquals(List.of("cluster/1-hand-off-h3", "cluster/2-remove-h3", "cluster/3-add-h3b", "node-3/move-aside",
                "node-3/join", "cluster/5-promote-h3b"), ids(steps));
        Step aside = steps.get(3);
        assertEquals(Optional.of("node-3"), aside.host());
        assertEquals(List.of("cluster/3-add-h3b", "node-3/unit"), aside.after());
        assertTrue(aside.reason().startsWith("it holds data of member a3; h3b joins afresh"), aside.reason());
        assertEquals(List.of("node-3/move-aside"), steps.get(4).after());
    }

    @Test
    void aJoinerWithoutOldDataIsStartedOnItsInventoryHostAfterItsPreparation() {
        List<Current> now = List.of(new Current("a1", "h1", url(1), false, true, true));
        Map<String, MembershipSteps.Joiner> joiners = Map.of("h2",
                new MembershipSteps.Joiner("node-2", List.of(unitOf("node-2")), Optional.empty()));
        List<Step> steps = steps(now, List.of(new Desired("h1", url(1)), new Desired("h2", url(2))), joiners);
        assertEquals(List.of("cluster/1-add-h2", "node-2/join", "cluster/3-promote-h2"), ids(steps));
        assertEquals(List.of("cluster/1-add-h2", "node-2/unit"), steps.get(1).after());
    }

    /**
     * FaultsIT: a voter's host crashed during a grow 3 -> 5 on etcd 3.5.16, and the next add failed
     * with only "cannot add a learner with peer URL ...: unavailable: etcdserver: unhealthy cluster".
     * The step now names the member that is down and says what to do.
     */
    @Test
    void anAddRefusedWhileAVoterIsDownNamesItAndSaysWhatToDo() {
        String message = MembershipSteps.addBlockedMessage("h5", "cannot add a learner with peer URL https://10.77.4.15:2380:"
                + " unavailable: etcdserver: unhealthy cluster", "member h2 at https://10.77.4.12:2379: connection refused");
        assertEquals("not adding h5: cannot add a learner with peer URL https://10.77.4.15:2380: unavailable: etcdserver:"
                + " unhealthy cluster, and a voting member is not healthy: member h2 at https://10.77.4.12:2379: connection"
                + " refused. etcd before 3.5.30 / 3.6.11 refuses every add while any voting member is down. What to do: bring that"
                + " member back (its host up, etcd running: 'etcdwright status' shows every member), or take it out of the"
                + " spec so that it is removed before h5 is added; then apply again.", message);
    }
}
