package io.etcdwright.modules.membership;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The order of membership changes that takes a running cluster from the members it has to the
 * members the spec wants, never losing quorum on the way: a pure function of the cluster's view
 * (who is a member, learner, healthy, leader) and the desired members, so every case is a unit
 * test. Installing etcd, certificates and configuration on a new host are the converge planner's
 * steps; this decides only the membership part and its order.
 *
 * <p>The rules, from etcd's documentation and the failures of other tools
 * (../shared/notes/etcd-operations.md §1):
 * <ul>
 * <li>Nothing is changed without quorum: that is disaster recovery (restore), not a resize.</li>
 * <li>Members that are down and leaving go first: they count against quorum and, before the fix
 *     of each line (3.5.30, 3.6.11: the catalogue's adds-while-a-voter-is-down), any voter being
 *     down makes etcd refuse every add.</li>
 * <li>New members join one at a time as learners (etcd 3.4 and 3.5 allow one learner), are
 *     started with the current member list, and are promoted only once in sync.</li>
 * <li>Then healthy members leave, followers first; the leader last, after handing leadership to
 *     another voter (chosen when the step runs, not now), so no election timeout is waited out.</li>
 * <li>A new member that reuses a leaving member's peer URL (the same host rebuilt) can only be
 *     added after that member is removed (etcd: "Peer URLs already exists").</li>
 * <li>Each removal must leave enough healthy voters for the new, smaller quorum; each promotion
 *     needs enough started voters for the new, larger one (etcd's strict reconfiguration check).</li>
 * <li>A member whose host lost its data (same address, empty data directory) is removed and
 *     joins again as a new learner: etcd cannot take it back as it was.</li>
 * <li>A learner already in the cluster for a desired member (an interrupted apply) is resumed,
 *     not added again: one never started is started, one that runs as itself is only promoted
 *     (its data is its own and must not be moved aside); one that was started but does not
 *     answer is removed and joins afresh, which costs nothing, as a learner holds no vote. A
 *     learner for no desired member is removed first, as it blocks every other add.</li>
 * </ul>
 */
public record MembershipPlan(List<Change> changes, List<Refusal> refusals, List<String> warnings) {

    /**
     * A member as the cluster sees it now. {@code dataLost}: its host is in the spec at the same
     * address but holds no data any more (a deleted or replaced disk), so it cannot come back as
     * it was: it is removed and joins afresh.
     */
    public record Current(String id, String name, String peerUrl, boolean learner, boolean healthy, boolean leader,
                          boolean dataLost) {
        public Current(String id, String name, String peerUrl, boolean learner, boolean healthy, boolean leader) {
            this(id, name, peerUrl, learner, healthy, leader, false);
        }

        /** Whether etcd ran as this member: an added member that never started has no name yet. */
        public boolean started() {
            return !name.isEmpty();
        }
    }

    /** A member the spec wants: its name and peer URL. */
    public record Desired(String name, String peerUrl) {
    }

    /** One membership change, in order. */
    public sealed interface Change {
        /** What the plan prints for it. */
        String line();

        /** {@code etcdctl member add --learner}: idempotent by peer URL. */
        record AddLearner(Desired member) implements Change {
            @Override
            public String line() {
                return "add learner " + member.name();
            }
        }

        /** Start etcd on the new host with initial-cluster-state existing and the current member list. */
        record StartJoiner(Desired member) implements Change {
            @Override
            public String line() {
                return "start " + member.name();
            }
        }

        /** Promote once the learner's log is within etcd's 90% of the leader's. */
        record Promote(Desired member) implements Change {
            @Override
            public String line() {
                return "promote " + member.name();
            }
        }

        /** Leadership to another healthy voter, picked when the step runs. */
        record HandOffLeadership(Current from) implements Change {
            @Override
            public String line() {
                return "hand off leadership from " + from.name();
            }
        }

        /** {@code member remove}; its etcd stops itself, and its unit is disabled so it stays stopped. */
        record Remove(Current member, String why) implements Change {
            @Override
            public String line() {
                return "remove " + (member.name().isEmpty() ? member.id() : member.name());
            }
        }
    }

    /** Why the change cannot be made safely now, and what the operator can do. */
    public sealed interface Refusal {
        String what();

        String whatToDo();

        /** Named, so the operator knows which hosts to look at first. */
        record NoQuorum(List<String> healthyVoters, List<String> downVoters) implements Refusal {
            public NoQuorum {
                healthyVoters = List.copyOf(healthyVoters);
                downVoters = List.copyOf(downVoters);
            }

            @Override
            public String what() {
                int voters = healthyVoters.size() + downVoters.size();
                return "only " + healthyVoters.size() + " of " + voters + " voting members are healthy ("
                        + (healthyVoters.isEmpty() ? "none" : String.join(", ", healthyVoters)) + "; down: "
                        + String.join(", ", downVoters) + "): the cluster has no quorum, so no membership change can be"
                        + " agreed on";
            }

            @Override
            public String whatToDo() {
                return "bring " + String.join(", ", downVoters) + " back first (with the spec's members unchanged, apply"
                        + " starts stopped members), then change the membership; if they are lost for good, recover from"
                        + " a backup (restore)";
            }
        }

        /** Names the voters that would remain, healthy and down, so the operator knows which to repair. */
        record RemovalWouldLoseQuorum(String member, List<String> healthyAfter, List<String> downAfter) implements Refusal {
            public RemovalWouldLoseQuorum {
                healthyAfter = List.copyOf(healthyAfter);
                downAfter = List.copyOf(downAfter);
            }

            @Override
            public String what() {
                int votersAfter = healthyAfter.size() + downAfter.size();
                return "removing " + member + " would leave " + healthyAfter.size() + " healthy of " + votersAfter
                        + " voting members (healthy: " + namesOrNone(healthyAfter) + "; down: " + namesOrNone(downAfter)
                        + "), fewer than the " + quorum(votersAfter) + " a quorum needs";
            }

            @Override
            public String whatToDo() {
                return "repair " + (downAfter.isEmpty() ? "the members that are down" : String.join(", ", downAfter))
                        + " first (apply with them in the spec), then remove " + member;
            }
        }

        /** Names every voter that is down and stays, and the members whose add it blocks. */
        record AddBlockedByDownMember(List<String> down, List<String> joining, String version) implements Refusal {
            public AddBlockedByDownMember {
                down = List.copyOf(down);
                joining = List.copyOf(joining);
            }

            @Override
            public String what() {
                return "voting member" + (down.size() == 1 ? " " : "s ") + String.join(", ", down)
                        + (down.size() == 1 ? " is" : " are") + " down and stay" + (down.size() == 1 ? "s" : "")
                        + " in the spec; etcd " + version + " refuses to add members (here " + String.join(", ", joining)
                        + ") while any voting member is down (" + FIX.whereFixedFor(Version.parse(version)) + ")";
            }

            @Override
            public String whatToDo() {
                return "bring " + String.join(", ", down) + " back first, or take " + (down.size() == 1 ? "it" : "them")
                        + " out of the spec so that " + (down.size() == 1 ? "it is" : "they are") + " removed before "
                        + String.join(", ", joining) + (joining.size() == 1 ? " is" : " are") + " added";
            }
        }

        private static String namesOrNone(List<String> names) {
            return names.isEmpty() ? "none" : String.join(", ", names);
        }
    }

    static int quorum(int voters) {
        return voters / 2 + 1;
    }

    /**
     * The changes from {@code current} to {@code desired}; {@code etcdVersion} (X.Y.Z) decides
     * whether a down voter blocks adds.
     */
    public static MembershipPlan plan(List<Current> current, List<Desired> desired, String etcdVersion) {
        List<Change> changes = new ArrayList<>();
        List<Refusal> refusals = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, Desired> wanted = new LinkedHashMap<>();
        desired.forEach(d -> wanted.put(d.name(), d));

        List<Current> voters = new ArrayList<>(current.stream().filter(m -> !m.learner()).toList());
        long healthyVoters = voters.stream().filter(Current::healthy).count();
        if (healthyVoters < quorum(voters.size())) {
            refusals.add(new Refusal.NoQuorum(voters.stream().filter(Current::healthy).map(MembershipPlan::label).toList(),
                    voters.stream().filter(m -> !m.healthy()).map(MembershipPlan::label).toList()));
            return new MembershipPlan(List.of(), refusals, warnings);
        }

        // Who leaves: members not wanted, or wanted at another peer URL (the host was replaced), and
        // learners that were started but do not answer (nothing tells whose data their host holds).
        List<Current> leaving = new ArrayList<>();
        List<Current> resumedLearners = new ArrayList<>();
        for (Current m : current) {
            Desired d = m.name().isEmpty() ? byPeerUrl(desired, m.peerUrl()).orElse(null) : wanted.get(m.name());
            boolean samePlace = d != null && d.peerUrl().equals(m.peerUrl()) && !m.dataLost();
            if (m.learner() && samePlace && (!m.started() || m.healthy())) {
                resumedLearners.add(m);
            } else if (!samePlace || m.learner()) {
                leaving.add(m);
            }
        }
        // Joiners: desired members that are not voters at their peer URL; a resumed learner first,
        // since it already holds the one learner slot.
        List<Desired> joining = desired.stream()
                .filter(d -> current.stream().noneMatch(m -> !m.learner() && !m.dataLost() && d.peerUrl().equals(m.peerUrl())
                        && (m.name().equals(d.name()) || m.name().isEmpty())))
                .sorted(Comparator.comparing((Desired d) -> resumedLearners.stream().noneMatch(m -> m.peerUrl().equals(d.peerUrl()))))
                .toList();

        // 1. Leaving learners (they hold the one learner slot), then leaving members that are down.
        List<Current> state = new ArrayList<>(voters);
        leaving.stream().filter(Current::learner).forEach(m -> changes.add(new Change.Remove(m, whyLearnerLeaves(m, desired))));
        for (Current m : leaving.stream().filter(m -> !m.learner() && !m.healthy()).toList()) {
            String why = m.dataLost() ? "its data directory is gone: it is removed and joins afresh"
                    : samePlaceTaken(m, desired) ? "down, and replaced" : "down, and not in the spec";
            removeSafely(m, why, state, changes, refusals);
        }
        // 2. A down member that stays blocks adds before the fix (3.5.30, 3.6.11).
        List<String> downStaying = state.stream().filter(m -> !m.healthy() && !leaving.contains(m)).map(MembershipPlan::label).toList();
        if (!joining.isEmpty() && !downStaying.isEmpty() && blocksAddsWhileDown(etcdVersion)) {
            refusals.add(new Refusal.AddBlockedByDownMember(downStaying, joining.stream().map(Desired::name).toList(), etcdVersion));
        }
        // 3. Joiners one at a time; a joiner reusing a leaving member's peer URL waits for its removal.
        List<Current> healthyLeaving = new ArrayList<>(leaving.stream().filter(m -> !m.learner() && m.healthy())
                .sorted(Comparator.comparing(Current::leader)).toList());
        for (Desired d : joining) {
            Optional<Current> sameUrl = healthyLeaving.stream().filter(m -> m.peerUrl().equals(d.peerUrl())).findFirst();
            if (sameUrl.isPresent()) {
                if (sameUrl.get().leader()) {
                    changes.add(new Change.HandOffLeadership(sameUrl.get()));
                }
                removeSafely(sameUrl.get(), "replaced by " + d.name() + " at the same peer URL", state, changes, refusals);
                healthyLeaving.remove(sameUrl.get());
            }
            Optional<Current> held = resumedLearners.stream().filter(m -> m.peerUrl().equals(d.peerUrl())).findFirst();
            if (held.isEmpty()) {
                changes.add(new Change.AddLearner(d));
            }
            if (held.isEmpty() || !held.get().started()) {
                // A learner that runs (started, answering as itself) is not started again: its
                // host's data is its own, and its log only has to catch up.
                changes.add(new Change.StartJoiner(d));
            }
            // Promotion needs started voters >= the new quorum: with quorum now (checked above) and
            // the joiner started, that always holds, so there is nothing more to check here.
            changes.add(new Change.Promote(d));
            state.add(new Current("", d.name(), d.peerUrl(), false, true, false));
        }
        // 4. Healthy members leave: followers first, the leader last after handing off leadership.
        for (Current m : healthyLeaving) {
            if (m.leader()) {
                changes.add(new Change.HandOffLeadership(m));
            }
            removeSafely(m, "not in the spec", state, changes, refusals);
        }
        // (An even member count is warned about by the spec's own checks, at the line that lists them.)
        return new MembershipPlan(List.copyOf(changes), List.copyOf(refusals), List.copyOf(warnings));
    }

    private static void removeSafely(Current m, String why, List<Current> state, List<Change> changes, List<Refusal> refusals) {
        List<Current> after = new ArrayList<>(state);
        after.remove(m);
        long healthyAfter = after.stream().filter(Current::healthy).count();
        if (after.isEmpty() || healthyAfter < quorum(after.size())) {
            refusals.add(new Refusal.RemovalWouldLoseQuorum(label(m), after.stream().filter(Current::healthy).map(MembershipPlan::label).toList(),
                    after.stream().filter(x -> !x.healthy()).map(MembershipPlan::label).toList()));
            return;
        }
        changes.add(new Change.Remove(m, why));
        state.remove(m);
    }

    /** A member as the operator knows it: its name, or its id while it has none (added, never started). */
    private static String label(Current m) {
        return m.name().isEmpty() ? m.id() : m.name();
    }

    /** Why a learner is removed; each case but the first is followed by its joining afresh. */
    private static String whyLearnerLeaves(Current m, List<Desired> desired) {
        boolean wantedHere = desired.stream().anyMatch(d -> d.peerUrl().equals(m.peerUrl())
                && (d.name().equals(m.name()) || !m.started()));
        if (!wantedHere) {
            return "a learner that is not in the spec";
        }
        if (m.dataLost()) {
            return "a learner whose data directory is gone: it is removed and joins afresh";
        }
        return "a learner that was started but does not answer: it is removed and joins afresh"
                + " (a learner holds no vote, so this costs no fault tolerance)";
    }

    /** Whether a desired member takes the leaving member's name or peer URL (a replacement). */
    private static boolean samePlaceTaken(Current m, List<Desired> desired) {
        return desired.stream().anyMatch(d -> d.name().equals(m.name()) || d.peerUrl().equals(m.peerUrl()));
    }

    private static Optional<Desired> byPeerUrl(List<Desired> desired, String peerUrl) {
        return desired.stream().filter(d -> d.peerUrl().equals(peerUrl)).findFirst();
    }

    /** Before the fix of its line (3.5.30, 3.6.11; never on 3.4), etcd refuses an add while any voter is not connected. */
    static boolean blocksAddsWhileDown(String version) {
        return !VersionCatalogue.builtIn().fixed(VersionCatalogue.Fix.ADDS_WHILE_A_VOTER_IS_DOWN, Version.parse(version));
    }

    private static final VersionCatalogue.FixNote FIX = VersionCatalogue.builtIn().fix(VersionCatalogue.Fix.ADDS_WHILE_A_VOTER_IS_DOWN);
}
