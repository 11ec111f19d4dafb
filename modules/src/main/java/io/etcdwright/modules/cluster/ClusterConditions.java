package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.membership.ClusterVersion;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.EtcdHttp;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** What a step may require of the cluster when it runs, or wait for once it ran. */
public sealed interface ClusterConditions extends Condition
        permits ClusterConditions.AllHealthy, ClusterConditions.OthersHealthy, ClusterConditions.ClusterVersionIs,
        ClusterConditions.WritesCommitThrough {

    /** Every member at these client URLs answers healthy and the cluster serves linearizable reads. */
    record AllHealthy(Health.Access access, List<String> clientUrls, Duration within) implements ClusterConditions {
        @Override
        public String description() {
            return "all " + clientUrls.size() + " member" + (clientUrls.size() == 1 ? "" : "s") + " healthy within "
                    + within.toSeconds() + " s";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            try {
                Health.await(context, access, clientUrls, within);
            } catch (IllegalStateException e) {
                throw new ConditionNotMetException(e.getMessage());
            }
        }
    }

    /**
     * Every member but one is healthy: restarting or stopping that one then leaves a quorum.
     * Asked once, not waited for; an unhealthy peer needs the operator.
     */
    record OthersHealthy(Health.Access access, String self, List<String> otherClientUrls, int memberCount)
            implements ClusterConditions {
        @Override
        public String description() {
            return "every member other than " + self + " healthy";
        }

        @Override
        public void verify(StepContext context) {
            if (otherClientUrls.isEmpty()) {
                context.note("single-member cluster: unavailable for the few seconds of the restart");
                return;
            }
            Optional<String> problem = Health.problem(access, otherClientUrls, Health.ATTEMPT_TIMEOUT);
            if (problem.isPresent()) {
                throw new ConditionNotMetException("not restarting " + self + ": " + problem.get() + "; with " + memberCount
                        + " members a restart now could lose quorum. What to do: bring the unhealthy member back (look at"
                        + " 'journalctl -u " + EtcdLayout.UNIT + "' on its host; 'etcdwright status' shows every member),"
                        + " then apply again.");
            }
        }
    }

    /** The cluster version (what the leader set once every member runs it) is this minor. */
    record ClusterVersionIs(Health.Access access, List<String> clientUrls, String minor, Duration within)
            implements ClusterConditions {
        @Override
        public String description() {
            return "cluster version " + minor + " within " + within.toSeconds() + " s";
        }

        @Override
        public void verify(StepContext context) {
            try {
                ClusterVersion.await(context, access, clientUrls, minor, within);
            } catch (EtcdAdminException e) {
                throw new ConditionNotMetException(e.getMessage());
            }
        }
    }

    /**
     * A write proposed through this member commits: health says the member answers reads, this says
     * the cluster takes writes again through it after its restart (a lease granted and revoked, so
     * the keyspace is not touched). Waited for, like health, within the readiness timeout.
     */
    record WritesCommitThrough(Health.Access access, String member, String clientUrl, Duration within)
            implements ClusterConditions {
        @Override
        public String description() {
            return "a write commits through " + member + " within " + within.toSeconds() + " s";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            String last = "";
            try (EtcdHttp etcd = EtcdHttp.connect(access, List.of(clientUrl), Health.ATTEMPT_TIMEOUT);
                 Progress waiting = context.waiting("a write to commit through " + member)) {
                while (true) {
                    long started = System.nanoTime();
                    try {
                        etcd.leaseRoundTrip(clientUrl);
                        context.note("a write committed through " + member + " in "
                                + (System.nanoTime() - started) / 1_000_000 + " ms");
                        return;
                    } catch (EtcdHttp.Refused e) {
                        last = e.getMessage();
                        waiting.waitingOn(last);
                        if (e.byLearner()) {
                            // A learner takes no client writes at all; health already proved it serves.
                            context.note(member + " is a learner: it forwards no writes, so none is tried through it");
                            return;
                        }
                    } catch (java.io.IOException e) {
                        last = etcd.describe(e);
                        waiting.waitingOn(last);
                    }
                    if (System.nanoTime() > deadline) {
                        throw new ConditionNotMetException("no write committed through " + member + " (" + clientUrl
                                + ") within " + within.toSeconds() + " s; last answer: " + last + ". The cluster may not"
                                + " be taking writes: 'etcdwright status' shows every member; do not go on until it does.");
                    }
                    Thread.sleep(200);
                }
            }
        }
    }
}
