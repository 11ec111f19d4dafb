package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MembershipChanges;
import io.etcdwright.modules.membership.MembershipChanges.ClusterMember;
import io.etcdwright.modules.service.ServiceSteps;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Restarts running members that must pick up a change, one at a time: each only while every other
 * member is healthy, and done only once all are healthy again. The order is planned followers
 * first from the facts, but who leads is decided when a restart runs: a member that leads then
 * hands leadership to a member already restarted (or any healthy voter) first, so the cluster
 * never waits out an election and leadership moves once at most.
 */
final class RollingRestart {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private RollingRestart() {
    }

    /**
     * @param ordered  the members to restart, in the planned order
     * @param causes   why each must restart, by host
     * @param prepared each host's preparation steps a restart waits for
     * @param first    what the first restart waits for
     * @param safety   each member's restart's class: that of the changes it picks up (a restart for a
     *                 config file edited on the host is as routine as writing it back)
     */
    static List<Step> steps(List<Member> ordered, java.util.Map<String, List<String>> causes,
                            java.util.Map<String, List<Step>> prepared, List<Step> first, ConvergePlanner.Context c,
                            java.util.function.Function<Member, io.etcdwright.engine.plan.SafetyClass> safety) {
        return steps("restart", ordered, causes, prepared, first, c, safety);
    }

    /** As above, each step's id {@code host/idSuffix}: a plan that rolls twice (a CA rotation) names each roll. */
    static List<Step> steps(String idSuffix, List<Member> ordered, java.util.Map<String, List<String>> causes,
                            java.util.Map<String, List<Step>> prepared, List<Step> first, ConvergePlanner.Context c,
                            java.util.function.Function<Member, io.etcdwright.engine.plan.SafetyClass> safety) {
        return steps(idSuffix, "restart etcd", ordered, causes, (m, previous) -> prepared.getOrDefault(m.host().name(), List.of()),
                first, c, restart -> { }, safety);
    }

    /**
     * As above, each member's restart waiting for what {@code prepare} plans for it, given the step
     * before its turn (the previous restart): files written just before the member's own restart, so
     * that an apply stopped anywhere leaves every other member's files matching the release it runs.
     * Each restart is handed to {@code planned} as soon as it is made, so that a plan lists it before
     * the next member's files, which wait for it.
     */
    static List<Step> steps(String idSuffix, String summary, List<Member> ordered, java.util.Map<String, List<String>> causes,
                            java.util.function.BiFunction<Member, List<Step>, List<Step>> prepare, List<Step> first,
                            ConvergePlanner.Context c, java.util.function.Consumer<Step> planned,
                            java.util.function.Function<Member, io.etcdwright.engine.plan.SafetyClass> safety) {
        List<Step> steps = new ArrayList<>();
        List<Step> previous = first;
        List<String> restartedBefore = new ArrayList<>();
        for (Member m : ordered) {
            String host = m.host().name();
            List<String> others = c.members().stream().filter(o -> o != m).map(o -> Endpoints.clientUrl(o, c.layout())).toList();
            List<String> before = List.copyOf(restartedBefore);
            // One member at a time, only while every other is healthy: quorum-safe, so as careful as what it picks up.
            Step.Builder builder = Step.on(host, "service", idSuffix).kind(ChangeKind.ACTION).safety(safety.apply(m)).summary(summary)
                    .reason(String.join(", ", causes.get(host)))
                    .after(previous)
                    .requires(new ClusterConditions.OthersHealthy(c.access(), m.name(), others, c.members().size()))
                    .readyWhen(new ClusterConditions.AllHealthy(c.access(), c.clientUrls(), c.timeouts().ready()))
                    .readyWhen(new ClusterConditions.WritesCommitThrough(c.access(), m.name(),
                            Endpoints.clientUrl(m, c.layout()), c.timeouts().ready()));
            builder.after(prepare.apply(m, previous));
            Step restart = builder.does(ctx -> restart(ctx, c, m.name(), before));
            planned.accept(restart);
            steps.add(restart);
            previous = List.of(restart);
            restartedBefore.add(m.name());
        }
        return steps;
    }

    private static Outcome restart(StepContext ctx, ConvergePlanner.Context c, String self, List<String> restartedBefore)
            throws InterruptedException {
        if (c.members().size() > 1) {
            handOffIfLeading(ctx, c, self, restartedBefore);
        }
        return ServiceSteps.restart(ctx, c.layout().dataDir(), c.timeouts().restart());
    }

    /** Asked now, not when planned: leadership may have moved since. */
    static void handOffIfLeading(StepContext ctx, ConvergePlanner.Context c, String self, List<String> restartedBefore) {
        try (MembershipChanges etcd = MembershipChanges.connect(c.clientUrls(), c.access().caCert(), c.access().clientCert(),
                c.access().clientKey(), CALL_TIMEOUT)) {
            Optional<ClusterMember> leader = etcd.leader();
            if (leader.isEmpty() || !leader.get().name().equals(self)) {
                return;
            }
            List<ClusterMember> voters = etcd.members().stream().filter(m -> !m.learner() && !m.name().equals(self)).toList();
            Optional<ClusterMember> to = voters.stream().filter(m -> restartedBefore.contains(m.name())).findFirst()
                    .or(() -> voters.stream().findFirst());
            if (to.isPresent()) {
                etcd.moveLeader(to.get().id());
                ctx.note(self + " leads: handed leadership to " + to.get().name() + " before its restart");
            }
        } catch (EtcdAdminException e) {
            // etcd hands leadership over by itself when a leader stops; this only saves an election.
            ctx.note("could not hand leadership over before the restart (" + e.getMessage() + "); etcd will on stop");
        }
    }

    /** Followers first by what the facts said: usually the leader still leads when its turn comes. */
    static List<Member> order(List<Member> members, java.util.function.Predicate<Member> ledWhenPlanned) {
        List<Member> followers = members.stream().filter(m -> !ledWhenPlanned.test(m)).toList();
        List<Member> ordered = new ArrayList<>(followers);
        members.stream().filter(ledWhenPlanned).forEach(ordered::add);
        return ordered;
    }

}
