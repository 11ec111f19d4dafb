package io.etcdwright.cli;

import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Automation;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.watch.ClusterCondition;
import io.etcdwright.watch.Commands;
import io.etcdwright.watch.Decision;
import io.etcdwright.watch.Hold;
import io.etcdwright.watch.Memory;
import io.etcdwright.watch.Suspension;
import io.etcdwright.watch.Policy;
import io.etcdwright.watch.Quorum;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * watch's automation policy on plans made from the facts recorded on real hosts (the planner
 * scenarios'): what a watcher would run by itself and what it would hold, with the command. Here,
 * beside the recordings, because they live in cli's tests; the policy itself is in watch/
 * (watch's own tests cover it on plans built by hand).
 */
class PolicyScenarioTest {
    @TempDir
    Path home;

    PlannerScenarios scenarios;
    static final Commands COMMANDS = new Commands("inventory.yaml", "three.yaml");

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    private record Cycle(Plan plan, Quorum quorum, Instant now) {
    }

    private Cycle cycle(Scenario s) {
        return new Cycle(scenarios.plan(s), quorum(s), PlannerScenarios.clockOf(s).instant());
    }

    private Quorum quorum(Scenario s) {
        DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve(s.inventory() + ".yaml"),
                PlannerScenarios.DIR.resolve(s.spec() + ".yaml"));
        ClusterRun.Facts facts = scenarios.facts(s);
        return Quorum.of(facts.cluster(), desired);
    }

    private static Decision decide(Cycle c, Automation automation, Instant now, Memory memory) {
        return Policy.decide(c.plan(), automation, now, memory, c.quorum(), COMMANDS);
    }

    private static List<String> ids(List<Step> steps) {
        return steps.stream().map(Step::id).toList();
    }

    private static Automation allowing(SafetyClass... classes) {
        Automation d = Automation.DEFAULT;
        return new Automation(Set.of(classes), d.repairAfter(), d.interval(), d.stepDeadline(), d.windows());
    }

    @Test
    void aConvergedClusterIsHealthyAndAStoppedMemberIsStartedByTheNextCycle() {
        Cycle converged = cycle(new Scenario("converged", "three"));
        Decision none = decide(converged, Automation.DEFAULT, converged.now(), Memory.EMPTY);
        assertEquals(List.of(), none.run());
        assertInstanceOf(ClusterCondition.Healthy.class, none.condition());

        Cycle stopped = cycle(new Scenario("h2-stopped", "three"));
        Decision start = decide(stopped, Automation.DEFAULT, stopped.now(), Memory.EMPTY);
        assertEquals(List.of("h2/start", "cluster/healthy"), ids(start.run()));
        assertEquals(List.of(), start.held());
        assertEquals(new ClusterCondition.Degraded(2, 3), start.condition());
        // Two of three stopped on hosts that answer: both started, which brings quorum back.
        Cycle two = cycle(new Scenario("h2-h3-stopped", "three"));
        assertEquals(List.of("h2/start", "h3/start", "cluster/healthy"), ids(decide(two, Automation.DEFAULT, two.now(),
                Memory.EMPTY).run()));
    }

    @Test
    void aDriftedConfigIsPutBackAndItsMemberRestarted() {
        Cycle drift = cycle(new Scenario("config-drift", "three"));
        Decision d = decide(drift, Automation.DEFAULT, drift.now(), Memory.EMPTY);
        assertEquals(List.of("h1/config-file", "h2/config-file", "h1/restart"), ids(d.run()));
        assertEquals(new ClusterCondition.Drifted(3), d.condition());
    }

    /** Held until the member has been down for repairAfter, then the whole re-join runs as one group. */
    @Test
    void aWipedMemberIsHeldUntilRepairAfterThenReJoined() {
        Cycle wiped = cycle(new Scenario("h2-wiped", "three"));
        Instant seen = wiped.now().minus(Duration.ofMinutes(4));
        Memory memory = new Memory(Map.of("h2", seen), List.of(), Optional.empty());
        Decision early = decide(wiped, Automation.DEFAULT, wiped.now(), memory);
        assertEquals(List.of(), early.run());
        assertEquals(1, early.held().size());
        Hold.RepairNotYet notYet = assertInstanceOf(Hold.RepairNotYet.class, early.held().get(0).why());
        assertEquals(seen.plus(Duration.ofMinutes(10)), notYet.allowedAt());
        assertEquals("etcdwright apply -i inventory.yaml -f three.yaml", notYet.command());
        assertTrue(notYet.reason().startsWith("h2 down since " + seen), notYet.reason());
        assertEquals(SafetyClass.REPAIR, early.held().get(0).safety());
        assertInstanceOf(ClusterCondition.Held.class, early.condition());
        // Not seen down before this cycle: down since now.
        assertInstanceOf(Hold.RepairNotYet.class, decide(wiped, Automation.DEFAULT, wiped.now(), Memory.EMPTY).held().get(0).why());

        Decision due = decide(wiped, Automation.DEFAULT, seen.plus(Duration.ofMinutes(10)), memory);
        assertEquals(ids(wiped.plan().steps()), ids(due.run()));
        assertEquals(new ClusterCondition.Degraded(2, 3), due.condition());
        // Not with repair left out of allow.
        assertInstanceOf(Hold.NotAllowedClass.class, decide(wiped, allowing(SafetyClass.ROUTINE), seen.plus(Duration.ofHours(1)),
                memory).held().get(0).why());
    }

    /** A spec edit to another version is a change: held with the apply command unless the spec allows change. */
    @Test
    void aVersionBumpIsHeldForAPersonUnlessTheSpecAllowsChangeAndNotInsideADenyWindow() {
        Cycle bump = cycle(new Scenario("converged", "three-3530"));
        Decision held = decide(bump, Automation.DEFAULT, bump.now(), Memory.EMPTY);
        assertEquals(List.of(), held.run());
        Hold.NotAllowedClass why = assertInstanceOf(Hold.NotAllowedClass.class, held.held().get(0).why());
        assertEquals(SafetyClass.CHANGE, why.safety());
        assertEquals("etcdwright apply -i inventory.yaml -f three.yaml", why.command());
        assertEquals(new ClusterCondition.Held(why), held.condition());

        Automation change = allowing(SafetyClass.ROUTINE, SafetyClass.REPAIR, SafetyClass.CHANGE);
        assertEquals(ids(bump.plan().steps()), ids(decide(bump, change, bump.now(), Memory.EMPTY).run()));

        // A deny window open now (every day from the hour before, for two hours): held, saying until when.
        Instant now = bump.now();
        int hour = now.atZone(java.time.ZoneOffset.UTC).getHour();
        Automation.Window deny = new Automation.Window(Automation.Kind.DENY, "0 " + ((hour + 23) % 24) + " * * *",
                Automation.parse("0 " + ((hour + 23) % 24) + " * * *").cron().orElseThrow(), Duration.ofHours(2), Automation.WINDOWED);
        Automation denied = new Automation(change.allow(), change.repairAfter(), change.interval(), change.stepDeadline(), List.of(deny));
        Hold.InDenyWindow inDeny = assertInstanceOf(Hold.InDenyWindow.class, decide(bump, denied, now, Memory.EMPTY).held().get(0).why());
        assertTrue(inDeny.endsAt().isAfter(now) && !inDeny.endsAt().isAfter(now.plus(Duration.ofHours(2))), inDeny.toString());
    }

    /** Two of three hosts crashed: the plan is refused, nothing runs, and the hold names the restore from the newest backup. */
    @Test
    void aCrashedMajorityIsHeldWithTheRestoreOfTheNewestBackup() {
        Scenario s = new Scenario("h2-h3-crashed", "three");
        Cycle crashed = cycle(s);
        Commands commands = new Commands("inventory.yaml", "three.yaml", Optional.of(new Commands.Backup("local",
                "2026-11-24T18-00-00Z-000012")));
        Decision d = Policy.decide(crashed.plan(), Automation.DEFAULT, crashed.now(), Memory.EMPTY, crashed.quorum(), commands);
        assertEquals(List.of(), d.run());
        Hold.RefusedPlan refused = assertInstanceOf(Hold.RefusedPlan.class, d.held().get(0).why());
        assertEquals("etcdwright restore -i inventory.yaml -f three.yaml --from 2026-11-24T18-00-00Z-000012 --store local",
                refused.command());
        assertTrue(refused.reason().contains("quorum lost"), refused.reason());
        assertEquals(SafetyClass.NEVER, d.held().get(0).safety());
        assertEquals(new ClusterCondition.Held(refused), d.condition());
        // No newest backup known: the plan, whose refusal names the ways out.
        assertEquals("etcdwright plan -i inventory.yaml -f three.yaml", decide(crashed, Automation.DEFAULT, crashed.now(),
                Memory.EMPTY).held().get(0).why().command());
    }

    /** A restore is never a watcher's, even with every class the spec can name allowed. */
    @Test
    void aRestorePlanIsHeldAsNever() {
        Plan restore = scenarios.restore(new Scenario("converged", "three"), RestorePlannerScenarioTest.snapshot(true,
                Optional.empty()), false, Map.of(), Set.of());
        Cycle converged = cycle(new Scenario("converged", "three"));
        Decision d = Policy.decide(restore, allowing(SafetyClass.ROUTINE, SafetyClass.REPAIR, SafetyClass.CHANGE), converged.now(),
                Memory.EMPTY, converged.quorum(), COMMANDS);
        assertEquals(List.of(), d.run());
        assertEquals(1, d.held().size());
        assertInstanceOf(Hold.NeverClass.class, d.held().get(0).why());
        assertEquals(restore.steps().size(), d.held().get(0).steps().size());
    }

    /** A start that failed is not tried again under the same facts; once they change, it is. */
    @Test
    void aStepThatFailedBeforeIsHeldUntilItsFactsChange() {
        Cycle stopped = cycle(new Scenario("h2-stopped", "three"));
        Step start = stopped.plan().steps().get(0);
        Memory failed = new Memory(Map.of(), List.of(Memory.FailedStep.of(stopped.plan(), start, stopped.now(),
                "etcd exited: bad config")), Optional.empty());
        Decision d = decide(stopped, Automation.DEFAULT, stopped.now().plusSeconds(30), failed);
        assertEquals(List.of(), d.run());
        Hold.FailedBefore why = assertInstanceOf(Hold.FailedBefore.class, d.held().get(0).why());
        assertEquals("h2/start", why.stepId());
        assertEquals(new ClusterCondition.Failed("h2/start", "etcd exited: bad config"), d.condition());
        // The same step planned from other facts: it failed when systemd reported etcd "failed", and now reports it
        // "inactive" (someone reset it): tried again.
        assertEquals("inactive", start.observed());
        Memory earlier = new Memory(Map.of(), List.of(new Memory.FailedStep("h2/start", "failed", stopped.now(),
                "etcd exited: bad config")), Optional.empty());
        assertEquals(List.of("h2/start", "cluster/healthy"), ids(decide(stopped, Automation.DEFAULT, stopped.now(), earlier).run()));
    }

    @Test
    void aSuspendedClusterRunsNothing() {
        Memory suspended = new Memory(Map.of(), List.of(), Optional.of(new Suspension("alice@ops1",
                Instant.parse("2026-11-24T18:00:00Z"), "disk swap on h2")));
        for (Scenario s : List.of(new Scenario("h2-stopped", "three"), new Scenario("h2-h3-crashed", "three"))) {
            Cycle c = cycle(s);
            Decision d = decide(c, Automation.DEFAULT, c.now(), suspended);
            assertEquals(List.of(), d.run(), s.facts());
            assertEquals(new ClusterCondition.Suspended("alice@ops1", Instant.parse("2026-11-24T18:00:00Z"), "disk swap on h2"),
                    d.condition());
        }
        Cycle stopped = cycle(new Scenario("h2-stopped", "three"));
        assertEquals("etcdwright watch resume -i inventory.yaml -f three.yaml",
                decide(stopped, Automation.DEFAULT, stopped.now(), suspended).held().get(0).why().command());
        assertTrue(Files.isDirectory(home));
    }
}
