package io.etcdwright.watch;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Automation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** The policy on plans built by hand: its rules one at a time (the recorded scenarios are in cli's PolicyScenarioTest). */
class PolicyTest {
    static final Commands COMMANDS = new Commands("hosts.yaml", "my cluster.yaml");
    static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");
    static final Quorum ALL_THREE = new Quorum(Set.of("h1", "h2", "h3"), Set.of("h1", "h2", "h3"));
    static final Quorum H2_DOWN = new Quorum(Set.of("h1", "h2", "h3"), Set.of("h1", "h3"));

    static Step step(String host, String id, SafetyClass safety, Step... after) {
        return Step.on(host, "test", id).kind(ChangeKind.ACTION).safety(safety).summary(id).observed(id + "-facts").after(after)
                .does(ctx -> Outcome.OK);
    }

    static Automation automation(Set<SafetyClass> allow, List<Automation.Window> windows) {
        Automation d = Automation.DEFAULT;
        return new Automation(allow, d.repairAfter(), d.interval(), d.stepDeadline(), windows);
    }

    static Automation.Window window(Automation.Kind kind, String cron, Duration duration) {
        return new Automation.Window(kind, cron, Automation.parse(cron).cron().orElseThrow(), duration, Automation.WINDOWED);
    }

    private static List<String> ids(List<Step> steps) {
        return steps.stream().map(Step::id).toList();
    }

    /** One group a cycle, routine first; a routine step after a change waits with the change. */
    @Test
    void routineRunsFirstAloneAndAStepWaitingForAHeldOneIsHeldWithIt() {
        Step start = step("h1", "start", SafetyClass.ROUTINE);
        Step config = step("h2", "config-file", SafetyClass.CHANGE);
        Step restart = step("h2", "restart", SafetyClass.ROUTINE, config);
        Step rejoin = step("h3", "join", SafetyClass.REPAIR);
        Plan plan = new Plan("c", List.of(start, config, restart, rejoin), List.of(), List.of());
        Memory longDown = new Memory(Map.of("h3", NOW.minus(Duration.ofHours(1))), List.of(), Optional.empty());
        Quorum h3Down = new Quorum(Set.of("h1", "h2", "h3"), Set.of("h1", "h2"));
        Decision d = Policy.decide(plan, Automation.DEFAULT, NOW, longDown, h3Down, COMMANDS);
        assertEquals(List.of("h1/start"), ids(d.run()));
        assertEquals(List.of("h3/join"), ids(d.later()), "the repair is due, but waits for the next cycle's facts");
        assertEquals(1, d.held().size());
        assertEquals(List.of("h2/config-file", "h2/restart"), ids(d.held().get(0).steps()));
        assertEquals(SafetyClass.CHANGE, d.held().get(0).safety());
        assertInstanceOf(Hold.NotAllowedClass.class, d.held().get(0).why());
        assertEquals("etcdwright apply -i hosts.yaml -f 'my cluster.yaml'", d.held().get(0).why().command());
    }

    /** With routine not allowed, a repair that waits for a routine step waits with it. */
    @Test
    void aGroupAfterAHeldGroupNamesWhatItWaitsFor() {
        Step files = step("h2", "host-setup", SafetyClass.ROUTINE);
        Step join = step("h2", "join", SafetyClass.REPAIR, files);
        Plan plan = new Plan("c", List.of(files, join), List.of(), List.of());
        Memory down = new Memory(Map.of("h2", NOW.minus(Duration.ofHours(1))), List.of(), Optional.empty());
        Decision d = Policy.decide(plan, automation(Set.of(SafetyClass.REPAIR), List.of()), NOW, down, H2_DOWN, COMMANDS);
        assertEquals(List.of(), d.run());
        Hold.AfterHeld after = assertInstanceOf(Hold.AfterHeld.class, d.held().get(1).why());
        assertEquals(List.of("h2/host-setup"), after.waitsFor());
        assertInstanceOf(Hold.NotAllowedClass.class, after.prerequisite());
    }

    /** A two-member cluster's repair, or one with another member down, would leave a single healthy voter. */
    @Test
    void aRepairThatLeavesASingleHealthyVoterIsHeld() {
        Plan plan = new Plan("c", List.of(step("h2", "join", SafetyClass.REPAIR)), List.of(), List.of());
        Memory down = new Memory(Map.of("h2", NOW.minus(Duration.ofHours(1))), List.of(), Optional.empty());
        Decision two = Policy.decide(plan, Automation.DEFAULT, NOW, down, new Quorum(Set.of("h1", "h2"), Set.of("h1")), COMMANDS);
        Hold.QuorumMargin margin = assertInstanceOf(Hold.QuorumMargin.class, two.held().get(0).why());
        assertEquals(Set.of("h1"), margin.healthyOthers());
        assertEquals(2, margin.needed());
        assertEquals(List.of("h2/join"), ids(Policy.decide(plan, Automation.DEFAULT, NOW, down, H2_DOWN, COMMANDS).run()));
        Quorum fiveTwoDown = new Quorum(Set.of("h1", "h2", "h3", "h4", "h5"), Set.of("h1", "h3", "h4"));
        assertEquals(List.of("h2/join"), ids(Policy.decide(plan, Automation.DEFAULT, NOW, down, fiveTwoDown, COMMANDS).run()));
        Quorum fiveThreeDown = new Quorum(Set.of("h1", "h2", "h3", "h4", "h5"), Set.of("h1", "h3"));
        assertInstanceOf(Hold.QuorumMargin.class, Policy.decide(plan, Automation.DEFAULT, NOW, down, fiveThreeDown, COMMANDS)
                .held().get(0).why());
    }

    /** Allow windows: outside them a change waits, saying when the next opens; deny wins over allow; routine always runs. */
    @Test
    void windowsGovernChangeAndRepairAndDenyWins() {
        Step change = step("h1", "config-file", SafetyClass.CHANGE);
        Plan plan = new Plan("c", List.of(change), List.of(), List.of());
        Set<SafetyClass> all = Set.of(SafetyClass.ROUTINE, SafetyClass.REPAIR, SafetyClass.CHANGE);
        Automation nightly = automation(all, List.of(window(Automation.Kind.ALLOW, "0 2 * * *", Duration.ofHours(2))));
        Hold.OutsideAllowWindow outside = assertInstanceOf(Hold.OutsideAllowWindow.class,
                Policy.decide(plan, nightly, NOW, Memory.EMPTY, ALL_THREE, COMMANDS).held().get(0).why());
        assertEquals(Optional.of(Instant.parse("2026-11-28T02:00:00Z")), outside.opensAt());
        Instant night = Instant.parse("2026-11-28T03:00:00Z");
        assertEquals(List.of("h1/config-file"), ids(Policy.decide(plan, nightly, night, Memory.EMPTY, ALL_THREE, COMMANDS).run()));
        Automation denied = automation(all, List.of(window(Automation.Kind.ALLOW, "0 2 * * *", Duration.ofHours(2)),
                window(Automation.Kind.DENY, "0 22 * * 5", Duration.ofHours(60))));
        Hold.InDenyWindow deny = assertInstanceOf(Hold.InDenyWindow.class,
                Policy.decide(plan, denied, night, Memory.EMPTY, ALL_THREE, COMMANDS).held().get(0).why());
        assertEquals(Instant.parse("2026-11-30T10:00:00Z"), deny.endsAt());
        Plan routine = new Plan("c", List.of(step("h1", "start", SafetyClass.ROUTINE)), List.of(), List.of());
        assertEquals(List.of("h1/start"), ids(Policy.decide(routine, denied, night, Memory.EMPTY, H2_DOWN, COMMANDS).run()));
    }

    /** A step without facts of its own (a restart) fails under the plan's fingerprint: other facts anywhere, tried again. */
    @Test
    void aStepWithoutObservedFactsIsRememberedByThePlansFingerprint() {
        Step restart = Step.on("h1", "service", "restart").kind(ChangeKind.ACTION).safety(SafetyClass.ROUTINE).does(ctx -> Outcome.OK);
        Plan plan = new Plan("c", List.of(restart), List.of(), List.of());
        assertEquals("plan:" + plan.fingerprint(), Memory.digestOf(plan, restart));
        Memory failed = new Memory(Map.of(), List.of(Memory.FailedStep.of(plan, restart, NOW, "timed out")), Optional.empty());
        assertInstanceOf(Hold.FailedBefore.class, Policy.decide(plan, Automation.DEFAULT, NOW, failed, ALL_THREE, COMMANDS)
                .held().get(0).why());
        Plan other = new Plan("c", List.of(restart, step("h2", "start", SafetyClass.ROUTINE)), List.of(), List.of());
        assertEquals(List.of("h1/restart", "h2/start"), ids(Policy.decide(other, Automation.DEFAULT, NOW, failed, ALL_THREE, COMMANDS)
                .run()));
    }

    @Test
    void commandsQuoteWhatAShellWouldSplit() {
        assertEquals("hosts.yaml", Commands.quoted("hosts.yaml"));
        assertEquals("'it'\\''s.yaml'", Commands.quoted("it's.yaml"));
        assertEquals("etcdwright watch resume -i hosts.yaml -f 'my cluster.yaml'", COMMANDS.resume());
    }
}
