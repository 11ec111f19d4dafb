package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.ServedCertificates;
import io.etcdwright.modules.pki.ClusterPki;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a CA rotation proves of every member before it moves to its next phase, and at its end:
 * by TLS handshakes with certificates of the new CA (a probe client of its own) and the old one
 * (the archived old admin), never by the files alone. A member's CA files count only once its
 * running etcd has loaded them, and only a handshake shows that.
 */
final class CaRotationChecks {
    private CaRotationChecks() {
    }

    /** A member: its name, client URL and peer URL. */
    record Target(String name, String clientUrl, String peerUrl) {
    }

    /** Every member accepts a client certificate of the new CA: each loaded the bundle (its client and peer CA files are one file). */
    record NewCaTrusted(Path bundle, ClusterPki.LocalPair probe, List<Target> members, Duration within) implements Condition {
        @Override
        public String description() {
            return "every member accepts a client certificate of the new CA";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            awaitEach(context, members, within, m -> Health.problem(new Health.Access(bundle, probe.cert(), probe.key()),
                    List.of(m.clientUrl()), Health.ATTEMPT_TIMEOUT), "does not accept a client certificate of the new CA",
                    "Phase 1 (trust both CAs) is not in effect on it: its etcd must restart with the bundle as its CA file."
                            + " Apply again (the restart is planned from its facts); 'etcdwright certs' shows its ca.crt.");
        }
    }

    /**
     * Every member's client and peer URLs present a certificate of the new CA alone (the old CA not
     * trusted by this check), and accept the new CA's client: phase 2 is done everywhere.
     */
    record ServeNewCa(Path newCa, ClusterPki.LocalPair probe, List<Target> members, boolean peers, Duration within)
            implements Condition {
        @Override
        public String description() {
            return (members.size() == 1 ? members.get(0).name() + " serves" : "every member serves") + " a certificate of the new CA"
                    + (peers ? " on its client and peer URLs" : "");
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            Health.Access access = new Health.Access(newCa, probe.cert(), probe.key());
            awaitEach(context, members, within, m -> {
                Optional<String> client = Health.problem(access, List.of(m.clientUrl()), Health.ATTEMPT_TIMEOUT);
                if (client.isPresent() || !peers) {
                    return client;
                }
                return peerHandshake(m.peerUrl(), access);
            }, "does not serve a certificate of the new CA", "Its certificate files were not all replaced: apply again"
                    + " (phase 2 reissues them from its facts); 'etcdwright certs' shows which CA signed each.");
        }
    }

    /**
     * Every member serves the new CA's client and refuses the old CA's admin certificate: etcd runs
     * with the new CA alone everywhere. Without an archived old admin (it was already replaced when
     * this rotation was recorded) the refusal cannot be tried, and the note says so.
     */
    record OldCaRefused(Path newCa, ClusterPki.LocalPair probe, ClusterPki.LocalPair oldAdmin, List<Target> members,
                        Duration within) implements Condition {
        @Override
        public String description() {
            return "every member refuses a client certificate of the old CA";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            Health.Access fresh = new Health.Access(newCa, probe.cert(), probe.key());
            boolean canTry = Files.exists(oldAdmin.cert()) && Files.exists(oldAdmin.key());
            if (!canTry) {
                context.note("no admin certificate of the old CA kept: its refusal is not tried");
            }
            awaitEach(context, members, within, m -> {
                Optional<String> served = Health.problem(fresh, List.of(m.clientUrl()), Health.ATTEMPT_TIMEOUT);
                if (served.isPresent() || !canTry) {
                    return served;
                }
                Optional<String> old = Health.problem(new Health.Access(newCa, oldAdmin.cert(), oldAdmin.key()),
                        List.of(m.clientUrl()), Health.ATTEMPT_TIMEOUT);
                return old.isPresent() ? Optional.empty() : Optional.of("it still accepts the old CA's admin certificate");
            }, "still trusts the old CA", "Its etcd must restart with the new CA alone in its ca.crt: apply again.");
        }
    }

    interface Check {
        Optional<String> problem(Target member) throws Exception;
    }

    /**
     * Each member checked until it passes or {@code within} ends: handshakes right after a restart
     * or a certificate swap may fail once while connections settle.
     */
    private static void awaitEach(StepContext context, List<Target> members, Duration within, Check check, String failure,
                                  String whatToDo) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        List<String> left = new ArrayList<>();
        for (Target m : members) {
            while (true) {
                Optional<String> problem;
                try {
                    problem = check.problem(m);
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    problem = Optional.of(String.valueOf(e.getMessage()));
                }
                if (problem.isEmpty()) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    left.add(m.name() + " " + failure + " (" + problem.get() + ")");
                    break;
                }
                Thread.sleep(500);
            }
        }
        if (!left.isEmpty()) {
            throw new ConditionNotMetException(String.join("; ", left) + ". What to do: " + whatToDo);
        }
        context.note(members.size() == 1 ? "checked " + members.get(0).name() : "checked all " + members.size() + " members");
    }

    /** A fresh TLS handshake with a member's peer URL succeeds trusting {@code access}'s CA file alone. */
    static Optional<String> peerHandshake(String peerUrl, Health.Access access) {
        boolean served = ServedCertificates.served(List.of(peerUrl), access.caCert(), access.clientCert(), access.clientKey(),
                Health.ATTEMPT_TIMEOUT).getOrDefault(peerUrl, Optional.empty()).isPresent();
        return served ? Optional.empty() : Optional.of("peer URL " + peerUrl + " presents no certificate of " + access.caCert()
                + " (or does not answer)");
    }
}
