package io.etcdwright.watch;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Automation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The automation policy: which steps of a plan {@code etcdwright watch} runs this cycle and which it
 * holds, and why. A pure function of the plan, the spec's automation section, the clock, the
 * cluster's voters (from the facts the plan was made from) and what the loop remembers; it plans
 * nothing and runs nothing, so what watch does is what {@code plan} shows.
 *
 * <p>The policy decides per group, not per plan (a plan's strictest class would hold a stopped
 * member's start behind an unrelated spec edit). A group is every step of one <em>effective</em>
 * class: a step's own class, or the strictest of the steps it waits for when that is stricter (a
 * routine step after a change cannot run before it). Groups are judged routine first, then repair,
 * then change, then never. The first group nothing holds runs this cycle, alone; the others that
 * nothing holds wait for a later cycle ({@link Decision#later()}), planned again from fresh facts,
 * since the first group's steps change what the next plan is (a member started is one a repair no
 * longer needs). Routine first: it is what brings a cluster back cheapest, and a repair's quorum
 * margin may depend on it.
 *
 * <p>A group is held, the first reason that applies: a suspension; class never; a class
 * {@code automation.allow} does not name; a step of it that failed before under the same facts;
 * (change and repair) a deny window open, or allow windows none of which is open; (repair) a member
 * down for less than {@code repairAfter}, or a quorum margin the repair would not keep; a step it
 * waits for held in an earlier group. A refused plan runs nothing: its refusals are the reason.
 */
public final class Policy {
    private static final List<SafetyClass> ORDER = List.of(SafetyClass.ROUTINE, SafetyClass.REPAIR, SafetyClass.CHANGE,
            SafetyClass.NEVER);

    private Policy() {
    }

    /**
     * @param plan       the plan of this cycle, from fresh facts
     * @param automation the spec's automation section
     * @param now        the cycle's time (the clock the loop runs on)
     * @param memory     what the loop remembers: members first seen down, failed steps, a suspension
     * @param quorum     the cluster's voters and the healthy ones, from the facts the plan was made from
     * @param commands   the commands a person runs, spelled for this cluster's files
     */
    public static Decision decide(Plan plan, Automation automation, Instant now, Memory memory, Quorum quorum, Commands commands) {
        if (plan.isRefused()) {
            boolean quorumLost = plan.refusals().stream().anyMatch(r -> r.kind().equals("quorum-lost"));
            Hold refused = new Hold.RefusedPlan(plan.refusals(), quorumLost ? commands.restoreOrPlan() : commands.plan());
            List<Decision.Held> held = List.of(new Decision.Held(SafetyClass.NEVER, List.of(), refused));
            ClusterCondition condition = memory.suspension().<ClusterCondition>map(s -> new ClusterCondition.Suspended(s.by(), s.at(),
                    s.reason())).orElse(new ClusterCondition.Held(refused));
            return new Decision(List.of(), List.of(), held, condition);
        }
        Map<SafetyClass, List<Step>> groups = groups(plan);
        Map<String, Hold> heldStep = new HashMap<>();
        List<Step> run = new ArrayList<>();
        List<Step> later = new ArrayList<>();
        List<Decision.Held> held = new ArrayList<>();
        for (SafetyClass safety : ORDER) {
            List<Step> group = groups.getOrDefault(safety, List.of());
            if (group.isEmpty()) {
                continue;
            }
            Optional<Hold> hold = holdOf(safety, group, plan, automation, now, memory, quorum, commands);
            if (hold.isEmpty()) {
                hold = waitsForHeld(group, heldStep);
            }
            if (hold.isPresent()) {
                held.add(new Decision.Held(safety, group, hold.get()));
                for (Step s : group) {
                    heldStep.put(s.id(), hold.get());
                }
            } else if (run.isEmpty()) {
                run.addAll(group);
            } else {
                later.addAll(group);
            }
        }
        return new Decision(run, later, held, condition(plan, memory, quorum, held));
    }

    /** Each step's effective class (its own, or a stricter one of a step it waits for), steps in plan order. */
    static Map<SafetyClass, List<Step>> groups(Plan plan) {
        Map<String, SafetyClass> effective = new HashMap<>();
        Map<SafetyClass, List<Step>> groups = new EnumMap<>(SafetyClass.class);
        for (Step s : plan.steps()) {
            // Plan order puts every step after the steps it waits for (Plan checks it), so theirs are known.
            SafetyClass c = SafetyClass.strictest(s.after().stream().map(effective::get).toList(), s.safety());
            effective.put(s.id(), c);
            groups.computeIfAbsent(c, k -> new ArrayList<>()).add(s);
        }
        return groups;
    }

    private static Optional<Hold> holdOf(SafetyClass safety, List<Step> group, Plan plan, Automation automation, Instant now,
                                         Memory memory, Quorum quorum, Commands commands) {
        if (memory.suspension().isPresent()) {
            Suspension s = memory.suspension().get();
            return Optional.of(new Hold.Suspended(s.by(), s.at(), s.reason(), commands.resume()));
        }
        if (safety == SafetyClass.NEVER) {
            return Optional.of(new Hold.NeverClass(commands.apply()));
        }
        if (!automation.allows(safety)) {
            return Optional.of(new Hold.NotAllowedClass(safety, commands.apply()));
        }
        for (Step s : group) {
            String digest = Memory.digestOf(plan, s);
            Optional<Memory.FailedStep> failed = memory.failures().stream()
                    .filter(f -> f.stepId().equals(s.id()) && f.digest().equals(digest)).findFirst();
            if (failed.isPresent()) {
                return Optional.of(new Hold.FailedBefore(s.id(), failed.get().at(), failed.get().error(), commands.apply()));
            }
        }
        if (Automation.WINDOWED.contains(safety)) {
            Optional<Hold> window = windows(safety, automation, now, commands);
            if (window.isPresent()) {
                return window;
            }
        }
        if (safety == SafetyClass.REPAIR) {
            return repair(group, automation, now, memory, quorum, commands);
        }
        return Optional.empty();
    }

    /** Deny wins: an open deny window holds; else allow windows for the class, none open, hold until the next. */
    private static Optional<Hold> windows(SafetyClass safety, Automation automation, Instant now, Commands commands) {
        Optional<Automation.Window> deny = automation.windows().stream()
                .filter(w -> w.kind() == Automation.Kind.DENY && w.applies(safety) && w.openedAt(now).isPresent())
                .max(Comparator.comparing(w -> w.endsAfter(now).orElseThrow()));
        if (deny.isPresent()) {
            return Optional.of(new Hold.InDenyWindow(safety, deny.get().schedule(), deny.get().endsAfter(now).orElseThrow(),
                    commands.apply()));
        }
        List<Automation.Window> allow = automation.windows().stream()
                .filter(w -> w.kind() == Automation.Kind.ALLOW && w.applies(safety)).toList();
        if (!allow.isEmpty() && allow.stream().noneMatch(w -> w.openedAt(now).isPresent())) {
            Optional<Instant> next = allow.stream().flatMap(w -> w.nextOpening(now).stream()).min(Comparator.naturalOrder());
            return Optional.of(new Hold.OutsideAllowWindow(safety, allow.stream().map(Automation.Window::schedule).toList(), next,
                    commands.apply()));
        }
        return Optional.empty();
    }

    /**
     * A repair re-joins the members whose host steps it holds (a re-join's cluster steps name no
     * host, its join and files do). Each must have been seen down for repairAfter; a member the loop
     * has not seen down before is down since now. The others must keep a quorum of the voters as they
     * are, and be at least two, with the members repaired left out ({@link Hold.QuorumMargin}).
     */
    private static Optional<Hold> repair(List<Step> group, Automation automation, Instant now, Memory memory, Quorum quorum,
                                         Commands commands) {
        Set<String> repairing = new LinkedHashSet<>();
        group.forEach(s -> s.host().ifPresent(repairing::add));
        for (String host : repairing) {
            Instant down = memory.downSince().getOrDefault(host, now);
            Instant allowed = down.plus(automation.repairAfter());
            if (now.isBefore(allowed)) {
                return Optional.of(new Hold.RepairNotYet(host, down, automation.repairAfter(), allowed, commands.apply()));
            }
        }
        Set<String> healthyOthers = new LinkedHashSet<>(quorum.healthy());
        healthyOthers.removeAll(repairing);
        int needed = Math.max(quorum.needed(), 2);
        if (healthyOthers.size() < needed) {
            return Optional.of(new Hold.QuorumMargin(repairing, healthyOthers, needed, commands.apply()));
        }
        return Optional.empty();
    }

    /** A group whose steps wait for a step of a group already held waits with it. */
    private static Optional<Hold> waitsForHeld(List<Step> group, Map<String, Hold> heldStep) {
        List<String> waits = new ArrayList<>();
        Hold first = null;
        for (Step s : group) {
            for (String id : s.after()) {
                if (heldStep.containsKey(id) && !waits.contains(id)) {
                    waits.add(id);
                    first = first == null ? heldStep.get(id) : first;
                }
            }
        }
        return first == null ? Optional.empty() : Optional.of(new Hold.AfterHeld(waits, first));
    }

    /** The condition, the first that applies: Suspended, Failed, Held, Degraded, Drifted, Healthy. */
    private static ClusterCondition condition(Plan plan, Memory memory, Quorum quorum, List<Decision.Held> held) {
        if (memory.suspension().isPresent()) {
            Suspension s = memory.suspension().get();
            return new ClusterCondition.Suspended(s.by(), s.at(), s.reason());
        }
        for (Decision.Held h : held) {
            if (h.why() instanceof Hold.FailedBefore f) {
                return new ClusterCondition.Failed(f.stepId(), f.error());
            }
        }
        if (!held.isEmpty()) {
            return new ClusterCondition.Held(held.get(0).why());
        }
        if (!quorum.voters().isEmpty() && !quorum.allHealthy()) {
            return new ClusterCondition.Degraded(quorum.healthy().size(), quorum.voters().size());
        }
        if (plan.differs()) {
            return new ClusterCondition.Drifted(plan.steps().size());
        }
        return new ClusterCondition.Healthy();
    }
}
