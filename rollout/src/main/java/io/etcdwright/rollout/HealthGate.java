package io.etcdwright.rollout;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.EtcdHttp;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.Layouts;
import io.etcdwright.run.PlanSettings;
import io.etcdwright.run.Pkis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The gate a cluster passes before a rollout goes on: etcd's own health, not a generic "ready".
 * Every member of the spec healthy and on the spec's version, none a learner, a leader, no alarm,
 * a write committed through the leader, and the plan empty (nothing left to apply: the apply is
 * really done). Each reason it does not pass is one line for the operator.
 */
public final class HealthGate {
    /** How long one member is asked: a healthy member answers in milliseconds. */
    public static final Duration ETCD_TIMEOUT = Duration.ofSeconds(10);

    private final ConnectionSettings connection;
    private final PlanSettings planSettings;
    private final Duration timeout;

    public HealthGate(ConnectionSettings connection, PlanSettings planSettings, Duration timeout) {
        this.connection = connection;
        this.planSettings = planSettings;
        this.timeout = timeout;
    }

    /** Why {@code desired}'s cluster does not pass the gate now; empty when it does. */
    public List<String> problems(DesiredState desired) {
        List<String> problems = new ArrayList<>(etcdProblems(desired));
        if (!problems.isEmpty()) {
            return problems;
        }
        try (ClusterRun run = ClusterRun.of(desired, connection)) {
            var plan = run.planned(planSettings).plan();
            if (plan.isRefused()) {
                plan.refusals().forEach(r -> problems.add("plan refused: " + r.line()));
            } else if (plan.hasChanges()) {
                problems.add("the plan is not empty (" + plan.steps().size() + " steps left, first: "
                        + plan.steps().get(0).line() + ")");
            }
        } catch (RuntimeException e) {
            problems.add("cannot plan: " + e.getMessage());
        }
        return problems;
    }

    private List<String> etcdProblems(DesiredState desired) {
        List<String> problems = new ArrayList<>();
        ClusterPki pki = Pkis.of(desired);
        ClusterPki.LocalPair admin = pki.accessPair();
        List<String> endpoints = Endpoints.clientUrls(desired.members(), Layouts.of(desired));
        String version = desired.spec().etcd().version();
        try (EtcdHttp client = EtcdHttp.connect(endpoints, pki.trustedCaFile(), admin.cert(), admin.key(), timeout)) {
            ClusterStatus status = client.status();
            for (Member m : desired.members()) {
                Optional<MemberStatus> seen = status.members().stream().filter(s -> s.name().equals(m.name())).findFirst();
                if (seen.isEmpty()) {
                    problems.add(m.name() + " is not a member of the cluster");
                } else if (!seen.get().healthy()) {
                    problems.add(m.name() + " is not healthy" + seen.get().error().map(e -> ": " + e).orElse(""));
                } else {
                    if (seen.get().learner()) {
                        problems.add(m.name() + " is a learner");
                    }
                    if (seen.get().version().isPresent() && !seen.get().version().get().equals(version)) {
                        problems.add(m.name() + " runs etcd " + seen.get().version().get() + ", the spec says " + version);
                    }
                }
            }
            Optional<MemberStatus> leader = status.leader();
            if (leader.isEmpty()) {
                problems.add("no member is the leader");
            }
            if (status.members().stream().anyMatch(MemberStatus::healthy)) {
                for (MemberFacts.Alarm alarm : client.alarms()) {
                    problems.add("alarm " + alarm.type() + " on member " + alarm.memberId());
                }
            }
            if (leader.isPresent() && !leader.get().clientUrls().isEmpty()) {
                try {
                    client.leaseRoundTrip(leader.get().clientUrls().get(0));
                } catch (EtcdHttp.Refused e) {
                    problems.add("a write through the leader " + leader.get().name() + " was refused: " + e.getMessage());
                } catch (IOException e) {
                    problems.add("a write through the leader " + leader.get().name() + " did not commit: " + client.describe(e));
                }
            }
        } catch (RuntimeException e) {
            problems.add("no member answers: " + e.getMessage());
        }
        return problems;
    }
}
