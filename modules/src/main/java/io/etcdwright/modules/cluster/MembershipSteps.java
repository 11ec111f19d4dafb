package io.etcdwright.modules.cluster;

import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.EtcdHttp;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipChanges;
import io.etcdwright.modules.membership.MembershipChanges.ClusterMember;
import io.etcdwright.modules.membership.MembershipChanges.Promotion;
import io.etcdwright.modules.membership.MembershipChanges.Removal;
import io.etcdwright.modules.membership.MembershipPlan;
import io.etcdwright.modules.membership.MembershipPlan.Change;
import io.etcdwright.modules.data.DataDirWipe;
import io.etcdwright.modules.service.ServiceSteps;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The steps of a {@link MembershipPlan}, one after another: each waits for the one before it, and
 * each checks again, when it runs, what the plan assumed (the member is still there or not, the
 * cluster still has the healthy voters a removal needs), because minutes may pass between plan and
 * apply. Every step can run again after an interrupted apply and then reports OK.
 */
final class MembershipSteps {
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    /** The output of an add step: the new member's id, which its promotion uses. */
    static final String MEMBER_ID = "member_id";

    private MembershipSteps() {
    }

    /**
     * A joining member's host as the join needs it.
     *
     * @param host      its inventory host (which may be named other than the member)
     * @param prepared  its preparation steps (install, config, unit written) its start waits for
     * @param moveAside the old data that must go first, if any
     */
    record Joiner(String host, List<Step> prepared, Optional<OldData> moveAside) {
    }

    /** Data on a joiner's host that etcd must not start with: why, where, how much. */
    record OldData(String dataDir, String why, long bytes) {
    }

    /**
     * @param after       what the first change waits for (prepared hosts, issued certificates)
     * @param joiners     per joining member (by name), its host
     * @param removed     per removed member (by name, or id while it has none), where its etcd runs
     * @param pending     where a removal notes the host to stop, until the stop is done
     * @param clientUrlOf the client URL of every member by name, leaving ones included
     * @param safety      every step's class, as the membership planner judges the whole change: a member
     *                    whose data was lost re-joined ({@code repair}), or the spec's membership ({@code change})
     */
    static List<Step> steps(MembershipPlan plan, List<Step> after, Map<String, Joiner> joiners,
                            Map<String, RemovedHost> removed, PendingStops pending, Health.Access access,
                            Map<String, String> clientUrlOf, ConvergePlanner.Timeouts timeouts, SafetyClass safety) {
        List<Step> steps = new ArrayList<>();
        Set<String> leaving = new LinkedHashSet<>();
        plan.changes().forEach(c -> {
            if (c instanceof Change.Remove r) {
                leaving.add(r.member().name());
            }
        });
        List<Step> previous = new ArrayList<>(after);
        Map<String, String> addStepOf = new java.util.HashMap<>();
        // Members this apply removed: the leader committed each removal, so a member list that
        // still shows one (read from a member that has not applied it yet, or from the removed
        // member itself while it exits) is stale, and such a member counts as no voter.
        Set<String> removedNow = java.util.concurrent.ConcurrentHashMap.newKeySet();
        int n = 0;
        for (Change change : plan.changes()) {
            n++;
            Step step;
            if (change instanceof Change.AddLearner add) {
                String peerUrl = add.member().peerUrl();
                addStepOf.put(add.member().name(), "cluster/" + n + "-add-" + add.member().name());
                step = Step.cluster("membership", n + "-add-" + add.member().name()).safety(safety).kind(ChangeKind.CREATE)
                        .summary("add " + add.member().name() + " as a learner").reason(peerUrl)
                        .after(previous).does(ctx -> {
                            try (MembershipChanges etcd = connect(access, clientUrlOf)) {
                                boolean there = etcd.members().stream().anyMatch(m -> m.peerUrls().contains(peerUrl));
                                ClusterMember added;
                                try {
                                    added = etcd.addLearner(peerUrl, timeouts.ready());
                                } catch (EtcdAdminException e) {
                                    throw whyNoAdd(e, add.member().name(), etcd, access);
                                }
                                ctx.note("member id " + added.id());
                                ctx.output(MEMBER_ID, added.id());
                                return there ? Outcome.OK : Outcome.CHANGED;
                            }
                        });
            } else if (change instanceof Change.StartJoiner start) {
                String name = start.member().name();
                Joiner joiner = joiners.getOrDefault(name, new Joiner(name, List.of(), Optional.empty()));
                String host = joiner.host();
                List<Step> waitFor = new ArrayList<>(previous);
                waitFor.addAll(joiner.prepared());
                if (joiner.moveAside().isPresent()) {
                    // Here, not with the host's preparation: the member whose data it may be (a
                    // rebuilt host at the same address) is removed by a change before this one.
                    OldData old = joiner.moveAside().get();
                    String peerUrl = start.member().peerUrl();
                    Step aside = Step.on(host, "data", "move-aside").safety(safety).kind(ChangeKind.UPDATE)
                            .summary("stop etcd, move old data in " + old.dataDir() + " aside")
                            .reason(old.why() + "; " + name + " joins afresh")
                            .observed(Long.toString(old.bytes()))
                            .after(waitFor)
                            .does(ctx -> moveAside(ctx, access, clientUrlOf, host, peerUrl, old.dataDir(), timeouts.restart()));
                    steps.add(aside);
                    waitFor = new ArrayList<>(List.of(aside));
                }
                step = Step.on(host, "service", "join").safety(safety).kind(ChangeKind.ACTION)
                        .summary("start etcd, joining the running cluster").reason("initial-cluster-state existing")
                        .after(waitFor).does(ctx -> ServiceSteps.startAndWait(ctx, timeouts.restart()));
            } else if (change instanceof Change.Promote promote) {
                String name = promote.member().name();
                String peerUrl = promote.member().peerUrl();
                step = Step.cluster("membership", n + "-promote-" + name).safety(safety).kind(ChangeKind.UPDATE)
                        .summary("promote " + name + " to a voting member").reason("once its log has caught up with the leader's")
                        .after(previous).does(ctx -> promote(ctx, access, clientUrlOf, name, peerUrl,
                                Optional.ofNullable(addStepOf.get(name)).flatMap(add -> ctx.outputOf(add, MEMBER_ID)), timeouts.ready()));
            } else if (change instanceof Change.HandOffLeadership handOff) {
                String from = handOff.from().name();
                step = Step.cluster("membership", n + "-hand-off-" + from).safety(safety).kind(ChangeKind.ACTION)
                        .summary("hand leadership from " + from + " to another voter").reason(from + " is leaving")
                        .after(previous).does(ctx -> handOff(ctx, access, clientUrlOf, from, leaving));
            } else if (change instanceof Change.Remove remove) {
                String name = remove.member().name().isEmpty() ? remove.member().id() : remove.member().name();
                String id = remove.member().id();
                RemovedHost where = removed.getOrDefault(name, new RemovedHost.NotInInventory(""));
                step = Step.cluster("membership", n + "-remove-" + name).safety(safety).kind(ChangeKind.DELETE)
                        .summary("remove member " + name).reason(remove.why())
                        .after(previous).does(ctx -> remove(ctx, access, clientUrlOf, name, id, where, pending, removedNow, timeouts));
                if (where instanceof RemovedHost.LeftSpec left) {
                    // Beside the changes that follow, not before them: they need nothing from this host.
                    steps.add(step);
                    previous = List.of(step);
                    step = stopRemoved(name, left, List.of(step), pending, timeouts.restart(), safety);
                    steps.add(step);
                    continue;
                }
            } else {
                throw new IllegalStateException("unknown change " + change);
            }
            steps.add(step);
            previous = List.of(step);
        }
        return steps;
    }

    /**
     * The removed member's etcd has exited by itself (or is about to); its unit would start it
     * again, on failure and at boot, against data that etcd refuses. Stopped and disabled, data kept.
     */
    static Step stopRemoved(String name, RemovedHost.LeftSpec left, List<Step> after, PendingStops pending, Duration within,
                            SafetyClass safety) {
        return stopRemoved(left, name + " was removed from the cluster and " + left.host() + " is no member of the spec", after,
                pending, within, safety);
    }

    /** As above, for {@code reason}: why the member on this host is no member of the cluster any more. */
    static Step stopRemoved(RemovedHost.LeftSpec left, String reason, List<Step> after, PendingStops pending, Duration within,
                            SafetyClass safety) {
        String host = left.host();
        return Step.on(host, "service", "stop-removed").safety(safety).kind(ChangeKind.ACTION)
                .summary("stop and disable etcd (its data in " + left.dataDir() + " stays)")
                .reason(reason)
                .after(after)
                .does(ctx -> {
                    try {
                        Outcome outcome = ServiceSteps.stopAndDisable(ctx, within);
                        // Its backup timer would fail at every tick against a stopped member.
                        if (BackupScheduleModule.removeAll(ctx.session()) == Outcome.CHANGED) {
                            outcome = Outcome.CHANGED;
                            ctx.note("its scheduled backups were removed");
                        }
                        if (io.etcdwright.modules.maintenance.DefragScheduleJob.JOB.removeAll(ctx.session()) == Outcome.CHANGED) {
                            outcome = Outcome.CHANGED;
                            ctx.note("its scheduled defragmentation was removed");
                        }
                        if (io.etcdwright.modules.monitoring.CertificateMetricsJob.JOB.removeAll(ctx.session()) == Outcome.CHANGED) {
                            outcome = Outcome.CHANGED;
                            ctx.note("its certificate expiry metrics were removed");
                        }
                        pending.done(host);
                        ctx.note(outcome == Outcome.OK ? "etcd was stopped and disabled already"
                                : "etcd stopped and disabled; delete its data with 'etcdwright destroy --wipe-data' and an"
                                + " inventory listing " + host + ", when it is no longer wanted");
                        return outcome;
                    } catch (SshException e) {
                        // A host that is gone (the reason it was replaced) must not fail the apply,
                        // nor leave every later plan with this step: the note is the record.
                        pending.done(host);
                        ctx.note(host + " cannot be reached (" + e.getMessage() + "): etcd there was NOT stopped or"
                                + " disabled. If the host comes back, run 'systemctl disable --now " + EtcdLayout.UNIT
                                + "' there, or its etcd keeps restarting against the removed member's data");
                        return Outcome.OK;
                    }
                });
    }

    /**
     * @param added the id the add step of this apply reported; empty when the learner was added by
     *              an earlier, interrupted apply, and then found by its peer URL
     */
    private static Outcome promote(StepContext ctx, Health.Access access, Map<String, String> clientUrlOf, String name,
                                   String peerUrl, Optional<String> added, Duration within) {
        try (MembershipChanges etcd = connect(access, clientUrlOf)) {
            String id = added.isPresent() ? added.get() : etcd.members().stream().filter(m -> m.peerUrls().contains(peerUrl)).findFirst()
                    .orElseThrow(() -> new EtcdAdminException(name + " (" + peerUrl + ") is not a member: the add step"
                            + " before this one did not happen; apply again")).id();
            Promotion outcome;
            try (Progress waiting = ctx.waiting(name + " to catch up as a learner")) {
                outcome = etcd.promoteWhenInSync(id, within, notYet -> waiting.waitingOn(notYet instanceof Promotion.NotInSync lag
                        ? "applied index " + lag.learnerIndex() + " of the leader's " + lag.leaderIndex()
                        : "etcd: " + ((Promotion.Refused) notYet).serverSays()));
            }
            if (outcome instanceof Promotion.Promoted) {
                return Outcome.CHANGED;
            }
            if (outcome instanceof Promotion.AlreadyVoter) {
                return Outcome.OK;
            }
            if (outcome instanceof Promotion.NotInSync lag) {
                throw new EtcdAdminException("learner " + name + " has not caught up within " + within.toSeconds()
                        + " s (applied index " + lag.learnerIndex() + " of the leader's " + lag.leaderIndex()
                        + lag.etcdSays().map(says -> "; etcd says: " + says).orElse("") + "); it stays"
                        + " a learner, outside quorum, so nothing is at risk: check its log (journalctl -u etcd on " + name
                        + ") and apply again");
            }
            if (outcome instanceof Promotion.Refused refused) {
                throw new EtcdAdminException("etcd refused to promote " + name + ": " + refused.serverSays()
                        + "; it stays a learner; apply again once the cluster is healthy");
            }
            throw new EtcdAdminException(name + " disappeared from the member list before its promotion; apply again");
        }
    }

    /**
     * Stops the host's etcd (it may run, or crash-loop, on the old data) and moves the data aside,
     * never deleting it. Checked again now: no voting member may have the joiner's peer URL, for
     * then the etcd stopped here would be that voter.
     */
    private static Outcome moveAside(StepContext ctx, Health.Access access, Map<String, String> clientUrlOf, String host,
                                     String peerUrl, String dataDir, Duration within) {
        Optional<MemberStatus> voterHere = status(access, clientUrlOf).members().stream()
                .filter(m -> !m.learner() && m.peerUrls().contains(peerUrl)).findFirst();
        if (voterHere.isPresent()) {
            throw new EtcdAdminException("not stopping etcd on " + host + ": voting member " + voterHere.get().name()
                    + " (" + voterHere.get().id() + ") still has its peer URL " + peerUrl + "; it must be removed first."
                    + " Nothing was changed; apply again");
        }
        Outcome stopped = ServiceSteps.stop(ctx, within);
        Outcome moved = DataDirWipe.moveAside(ctx.session(), dataDir, "before-join-" + Instant.now().getEpochSecond());
        return stopped == Outcome.CHANGED || moved == Outcome.CHANGED ? Outcome.CHANGED : Outcome.OK;
    }

    /** Leadership moves only if {@code from} leads now; the transferee is a healthy voter that stays. */
    private static Outcome handOff(StepContext ctx, Health.Access access, Map<String, String> clientUrlOf, String from,
                                   Set<String> leaving) {
        ClusterStatus status = status(access, clientUrlOf);
        Optional<MemberStatus> leader = status.leader();
        if (leader.isEmpty() || !leader.get().name().equals(from)) {
            ctx.note(from + " does not lead now" + leader.map(l -> " (" + l.name() + " does)").orElse(""));
            return Outcome.OK;
        }
        MemberStatus to = status.members().stream()
                .filter(m -> m.healthy() && !m.learner() && !leaving.contains(m.name()))
                .findFirst().orElseThrow(() -> new EtcdAdminException("no healthy voting member that stays could take"
                        + " over leadership from " + from + "; nothing was changed"));
        try (MembershipChanges etcd = connect(access, clientUrlOf)) {
            etcd.moveLeader(to.id());
        }
        ctx.note("leadership moved from " + from + " to " + to.name());
        return Outcome.CHANGED;
    }

    /**
     * Checked again now: removing the member must leave enough healthy voters for the smaller
     * quorum, whatever happened since the plan was made.
     */
    private static Outcome remove(StepContext ctx, Health.Access access, Map<String, String> clientUrlOf, String name, String id,
                                  RemovedHost where, PendingStops pending, Set<String> removedNow,
                                  ConvergePlanner.Timeouts timeouts) {
        removalRefusal(name, id, status(access, clientUrlOf), removedNow).ifPresent(why -> {
            throw new EtcdAdminException(why);
        });
        if (where instanceof RemovedHost.LeftSpec left) {
            // Before the removal: an apply stopped right after it still leaves the stop to the next one.
            pending.add(left.host(), name);
        }
        try (MembershipChanges etcd = connect(access, clientUrlOf)) {
            Removal outcome = etcd.remove(id, timeouts.ready());
            removedNow.add(id);
            if (outcome instanceof Removal.AlreadyGone) {
                return Outcome.OK;
            }
        }
        ctx.note(name + " removed; " + afterRemoval(where));
        return Outcome.CHANGED;
    }

    /** What becomes of the removed member's etcd, for the removal's note. */
    static String afterRemoval(RemovedHost where) {
        if (where instanceof RemovedHost.LeftSpec left) {
            return "etcd on " + left.host() + " exits by itself and is stopped and disabled next";
        }
        if (where instanceof RemovedHost.StaysInSpec stays) {
            return "etcd on " + stays.where() + " exits by itself; the host stays in the spec and joins again";
        }
        String at = ((RemovedHost.NotInInventory) where).address();
        return "no host of the inventory has its name or address" + (at.isEmpty() ? "" : " (" + at + ")")
                + ", so etcd there was not stopped: it exits by itself, but systemd restarts it every few seconds against"
                + " the removed member's data. If that host runs, run 'systemctl disable --now " + EtcdLayout.UNIT
                + "' there (its data stays)";
    }

    /**
     * Why voter {@code id} must not be removed now, naming the voters that would remain (healthy
     * and down); empty when enough healthy voters stay, or it is a learner (outside quorum).
     *
     * @param removedNow members already removed by this apply, whatever a stale member list says
     */
    static Optional<String> removalRefusal(String name, String id, ClusterStatus status, Set<String> removedNow) {
        boolean isVoter = status.members().stream().anyMatch(m -> m.id().equals(id) && !m.learner());
        List<MemberStatus> votersAfter = status.members().stream()
                .filter(m -> !m.learner() && !m.id().equals(id) && !removedNow.contains(m.id())).toList();
        List<String> healthy = votersAfter.stream().filter(MemberStatus::healthy).map(MembershipSteps::label).toList();
        List<String> down = votersAfter.stream().filter(m -> !m.healthy()).map(MembershipSteps::label).toList();
        if (!isVoter || healthy.size() >= votersAfter.size() / 2 + 1) {
            return Optional.empty();
        }
        return Optional.of("not removing " + name + ": " + healthy.size() + " healthy of " + votersAfter.size()
                + " voting members would remain (healthy: " + (healthy.isEmpty() ? "none" : String.join(", ", healthy))
                + "; down: " + String.join(", ", down) + "), fewer than a quorum: members went down since the plan was"
                + " made. Bring " + String.join(", ", down) + " back, then apply again");
    }

    private static String label(MemberStatus m) {
        return m.name().isEmpty() ? m.id() : m.name();
    }

    private static ClusterStatus status(Health.Access access, Map<String, String> clientUrlOf) {
        try (EtcdHttp client = EtcdHttp.connect(access, List.copyOf(clientUrlOf.values()), CALL_TIMEOUT)) {
            return client.status();
        }
    }

    /**
     * An add etcd kept refusing: when a voting member is down (a host that crashed after the plan),
     * that is why (etcd before its line's fix, 3.5.30 or 3.6.11, refuses every add while any voter is down, with nothing but
     * "unhealthy cluster"), and the operator is told which member and what to do. Otherwise etcd's
     * own refusal, as it was.
     */
    private static RuntimeException whyNoAdd(EtcdAdminException refused, String joiner, MembershipChanges etcd,
                                             Health.Access access) {
        List<String> voterUrls;
        try {
            voterUrls = etcd.members().stream().filter(m -> !m.learner() && !m.clientUrls().isEmpty())
                    .map(m -> m.clientUrls().get(0)).toList();
        } catch (RuntimeException e) {
            refused.addSuppressed(e);
            return refused;
        }
        Optional<String> down = Health.problem(access, voterUrls, Health.ATTEMPT_TIMEOUT);
        return down.isEmpty() ? refused : new EtcdAdminException(addBlockedMessage(joiner, refused.getMessage(), down.get()), refused);
    }

    static String addBlockedMessage(String joiner, String etcdSaid, String votersProblem) {
        return "not adding " + joiner + ": " + etcdSaid + ", and a voting member is not healthy: " + votersProblem
                + ". etcd before " + VersionCatalogue.builtIn().fix(VersionCatalogue.Fix.ADDS_WHILE_A_VOTER_IS_DOWN).fixedInText()
                + " refuses every add while any voting member is down. What to do: bring that member"
                + " back (its host up, etcd running: 'etcdwright status' shows every member), or take it out of the spec"
                + " so that it is removed before " + joiner + " is added; then apply again.";
    }

    private static MembershipChanges connect(Health.Access access, Map<String, String> clientUrlOf) {
        return MembershipChanges.connect(List.copyOf(clientUrlOf.values()), access.caCert(), access.clientCert(),
                access.clientKey(), CALL_TIMEOUT);
    }
}
