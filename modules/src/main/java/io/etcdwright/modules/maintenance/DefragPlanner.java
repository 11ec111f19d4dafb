package io.etcdwright.modules.maintenance;

import io.etcd.jetcd.api.AlarmMember;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmType;
import io.etcd.jetcd.api.StatusResponse;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.backup.MemberRpc;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.FactsView;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.restore.WriteFence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code etcdwright defrag}: each member whose database is worth it (its free pages at least the
 * threshold share of the file) is defragmented, one at a time, followers first and the leader last,
 * each only while every member answers and waited healthy again after; then a NOSPACE alarm is
 * disarmed once every database is below the quota (its cause gone). A defragmenting member serves
 * nothing until done, so with all others healthy the cluster keeps its quorum throughout.
 * etcdwright's own write fence (a NOSPACE under {@link WriteFence#MEMBER_ID}) is left to apply.
 */
public final class DefragPlanner {
    public static final int DEFAULT_MIN_FRAGMENTATION_PERCENT = 20;
    /**
     * A NOSPACE's cause is gone when every database is below this share of the quota: etcd raises it
     * when a write would take the file past the quota, so a database just under it would raise it
     * again at the next writes.
     */
    public static final int DISARM_BELOW_PERCENT = 90;

    /**
     * @param clientUrls          every member's client URL, in the members' order
     * @param quotaBytes          the quota etcd enforces ({@link MaintenanceChecks#quotaBytes})
     * @param minFragmentationPercent defragment a member only when at least this share of its file is free pages
     * @param defragTimeout       how long one member's defragmentation may take
     * @param readyTimeout        how long to wait for the members healthy after each
     */
    public record Inputs(String cluster, List<Member> members, List<String> clientUrls, Map<String, EtcdHostFacts> facts,
                         Map<String, String> unreachable, Optional<ClusterStatus> clusterStatus, Health.Access access,
                         long quotaBytes, int minFragmentationPercent, Duration defragTimeout, Duration readyTimeout) {
    }

    /** The plan, and for each member why it is or is not defragmented (shown before the plan). */
    public record Defrag(Plan plan, List<String> assessment) {
    }

    private DefragPlanner() {
    }

    public static Defrag plan(Inputs in) {
        List<Refusal> refusals = new ArrayList<>();
        List<String> assessment = new ArrayList<>();
        for (int i = 0; i < in.members().size(); i++) {
            Member m = in.members().get(i);
            String host = m.host().name();
            EtcdHostFacts f = in.facts().get(host);
            if (in.unreachable().containsKey(host) || f == null) {
                refusals.add(new Refusal("unreachable-host", host, "unreachable (" + in.unreachable().getOrDefault(host, "no facts")
                        + ")", "bring the host back, then defragment: with a member away, defragmenting another could leave no quorum"));
            } else if (f.member().status().isEmpty()) {
                refusals.add(new Refusal("member-down", host, "etcd does not answer on " + host,
                        "start it ('etcdwright apply', 'journalctl -u etcd' on the host), then defragment: a defragmenting member"
                                + " serves nothing, and with another down that may be quorum"));
            }
        }
        if (!refusals.isEmpty()) {
            return new Defrag(Plan.refused(in.cluster(), refusals, List.of()), assessment);
        }
        List<Member> order = new ArrayList<>();
        Member leader = null;
        // Under NOSPACE a member's "in use" figure can be stale: it counts the pages a compaction
        // released as free only at its next write transaction (bbolt keeps them pending until then),
        // and the alarm refuses writes. So every member whose database is at the disarm threshold is
        // defragmented then, whatever it reports: the space is what the cluster waits for.
        boolean nospaceRaised = MaintenanceChecks.realAlarms(in.clusterStatus()).stream().anyMatch(a -> a.type().equals("NOSPACE"));
        for (Member m : in.members()) {
            MemberFacts.LocalStatus st = in.facts().get(m.host().name()).member().status().orElseThrow();
            long db = st.dbSizeBytes();
            long inUse = st.dbSizeInUseBytes();
            String sizes = "database " + FactsView.bytes(db) + (inUse > 0 ? ", " + FactsView.bytes(inUse) + " in use" : ", in-use size not reported");
            if (inUse <= 0 || db <= 0) {
                assessment.add(m.name() + ": " + sizes + ": not defragmented (nothing says what it would give back)");
                continue;
            }
            long percent = (db - inUse) * 100 / db;
            boolean full = nospaceRaised && in.quotaBytes() > 0 && db * 100 >= in.quotaBytes() * DISARM_BELOW_PERCENT;
            boolean worth = percent >= in.minFragmentationPercent() || full;
            assessment.add(m.name() + ": " + sizes + ", " + percent + "% free pages: "
                    + (percent >= in.minFragmentationPercent() ? "defragmented"
                    : full ? "defragmented (NOSPACE is raised and its database is at " + DISARM_BELOW_PERCENT + "% of the quota or more;"
                    + " what it reports in use may not count pages a compaction freed yet)"
                    : "not worth it (below " + in.minFragmentationPercent() + "%)"));
            if (worth) {
                if (st.isLeader()) {
                    leader = m;
                } else {
                    order.add(m);
                }
            }
        }
        if (leader != null) {
            order.add(leader); // last: its defragmentation may cost an election, once, at the end
        }
        List<Step> steps = new ArrayList<>();
        HealthyAlarmsAside healthy = new HealthyAlarmsAside(in.access(), in.clientUrls(), in.readyTimeout());
        for (Member m : order) {
            MemberFacts.LocalStatus st = in.facts().get(m.host().name()).member().status().orElseThrow();
            String url = in.clientUrls().get(in.members().indexOf(m));
            // Followers first, the leader last, each health-checked: by etcdwright's own rules, nothing of
            // membership or data changes (defragmentation keeps every key): routine.
            Step.Builder b = Step.on(m.host().name(), "maintenance", "defrag").kind(ChangeKind.ACTION).safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE)
                    .summary("defragment member " + m.name() + (st.isLeader() ? " (the leader, last)" : ""))
                    .reason(FactsView.bytes(st.dbSizeBytes() - st.dbSizeInUseBytes()) + " of its "
                            + FactsView.bytes(st.dbSizeBytes()) + " database are free pages")
                    .observed(st.memberId() + ":" + st.dbSizeBytes() + ":" + st.dbSizeInUseBytes())
                    .requires(healthy.once())
                    .readyWhen(healthy);
            if (!steps.isEmpty()) {
                b.after(steps.get(steps.size() - 1));
            }
            steps.add(b.does(ctx -> defragment(ctx, m.name(), url, in.access(), in.defragTimeout())));
        }
        List<MemberFacts.Alarm> nospace = MaintenanceChecks.realAlarms(in.clusterStatus()).stream()
                .filter(a -> a.type().equals("NOSPACE")).toList();
        if (!nospace.isEmpty()) {
            // Only once every database is below the threshold again: the alarm's cause is gone (routine).
            Step.Builder b = Step.cluster("maintenance", "disarm-nospace").kind(ChangeKind.ACTION).safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE)
                    .summary("disarm etcd's NOSPACE alarm once every database is below " + DISARM_BELOW_PERCENT + "% of the quota ("
                            + FactsView.bytes(in.quotaBytes()) + ")")
                    .reason("raised on " + nospace.stream().map(a -> MaintenanceChecks.memberName(in.clusterStatus(), a.memberId())).toList()
                            + ": the cluster refuses writes")
                    .observed("NOSPACE " + nospace.stream().map(MemberFacts.Alarm::memberId).sorted().toList())
                    .requires(healthy.once());
            if (!steps.isEmpty()) {
                b.after(steps.get(steps.size() - 1));
            }
            steps.add(b.does(ctx -> disarm(ctx, in.clientUrls(), in.access(), in.quotaBytes())));
        }
        return new Defrag(new Plan(in.cluster(), steps, List.of(), List.of()), assessment);
    }

    private static Outcome defragment(StepContext ctx, String name, String url, Health.Access access, Duration timeout) {
        try (MemberRpc rpc = MemberRpc.connect(url, access.tls(), timeout)) {
            long before = rpc.status().getDbSize();
            long started = System.nanoTime();
            rpc.defragment();
            StatusResponse after = rpc.status();
            ctx.note(name + ": database " + FactsView.bytes(before) + " -> " + FactsView.bytes(after.getDbSize()) + " in "
                    + (System.nanoTime() - started) / 1_000_000 + " ms");
            return Outcome.CHANGED;
        }
    }

    /**
     * Disarms the NOSPACE alarms (etcdwright's fence aside) once every member's database is below the
     * quota, then proves a write goes through (a lease grant: refused while NOSPACE is raised).
     */
    static Outcome disarm(StepContext ctx, List<String> clientUrls, Health.Access access, long quotaBytes) {
        List<String> over = new ArrayList<>();
        for (String url : clientUrls) {
            try (MemberRpc rpc = MemberRpc.connect(url, access.tls(), Health.ATTEMPT_TIMEOUT)) {
                long db = rpc.status().getDbSize();
                if (db * 100 >= quotaBytes * DISARM_BELOW_PERCENT) {
                    over.add(url + " (" + FactsView.bytes(db) + ")");
                }
            }
        }
        if (!over.isEmpty()) {
            throw new IllegalStateException("NOSPACE not disarmed: the database is still at " + DISARM_BELOW_PERCENT
                    + "% of its quota (" + FactsView.bytes(quotaBytes) + ") or more on " + String.join(", ", over) + ", so etcd would raise it again at the"
                    + " next write. What to do: free space in the database (compact old revisions: 'etcdctl compact REVISION';"
                    + " delete keys no one needs), then run 'etcdwright defrag' again; or raise etcd.settings.quota-backend-bytes"
                    + " and apply (the members restart with it), then defrag.");
        }
        int disarmed = 0;
        try (MemberRpc rpc = MemberRpc.connect(clientUrls.get(0), access.tls(), Health.ATTEMPT_TIMEOUT)) {
            for (AlarmMember alarm : rpc.alarms()) {
                if (alarm.getAlarm() == AlarmType.NOSPACE && alarm.getMemberID() != WriteFence.MEMBER_ID) {
                    rpc.alarm(AlarmRequest.AlarmAction.DEACTIVATE, alarm.getMemberID(), AlarmType.NOSPACE);
                    disarmed++;
                }
            }
            rpc.leaseRoundTrip();
        }
        ctx.note(disarmed == 0 ? "no NOSPACE alarm left to disarm" : "disarmed " + disarmed + " NOSPACE alarm(s); a write went through");
        return disarmed == 0 ? Outcome.OK : Outcome.CHANGED;
    }

    /** Every member answers and the cluster has a quorum, raised alarms counted as healthy (they are why this runs). */
    record HealthyAlarmsAside(Health.Access access, List<String> clientUrls, Duration within) implements Condition {
        @Override
        public String description() {
            return "all " + clientUrls.size() + " members healthy (alarms aside) within " + within.toSeconds() + " s";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            try {
                Health.await(context, access, clientUrls, within, true);
            } catch (IllegalStateException e) {
                throw new ConditionNotMetException(e.getMessage());
            }
        }

        /** Asked once, not waited for: an unhealthy member needs the operator before a member stops serving. */
        Condition once() {
            return new Condition() {
                @Override
                public String description() {
                    return "every member healthy (alarms aside)";
                }

                @Override
                public void verify(StepContext context) {
                    Optional<String> problem = Health.problem(access, clientUrls, Health.ATTEMPT_TIMEOUT, true);
                    if (problem.isPresent()) {
                        throw new ConditionNotMetException("not defragmenting: " + problem.get() + "; a defragmenting member"
                                + " serves nothing, and with another unhealthy that could cost the quorum. Bring it back"
                                + " ('etcdwright status'), then run defrag again.");
                    }
                }
            };
        }
    }
}
