package io.etcdwright.modules.cluster;

import io.etcd.jetcd.api.StatusResponse;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.backup.MemberRpc;
import io.etcdwright.modules.membership.Health;
import io.grpc.StatusRuntimeException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the steps of an online minor downgrade ({@link OnlineDowngradePlanner}) require of the
 * members when they run, or wait for once they ran. Each member is asked its own Status over
 * gRPC from the workstation: the storage version and the downgrade under way are etcd 3.6's
 * fields ({@link MemberRpc#storageVersion}, {@link MemberRpc#downgradeTarget}); a member on 3.5
 * says neither.
 */
public sealed interface DowngradeConditions extends Condition
        permits DowngradeConditions.StorageVersionIs, DowngradeConditions.ReadyToSwap, DowngradeConditions.MemberRuns,
        DowngradeConditions.NoDowngradeUnderWay {

    Duration PAUSE = Duration.ofMillis(500);

    /**
     * Every member's storage is at the downgrade's target ("3.5.0"): each member rewrites its own
     * once the leader lowered the cluster version (every 4 s), and an older binary starts on no
     * storage newer than itself. A member already on the target minor counts as there.
     *
     * @param members member name -> client URL, every member of the cluster
     */
    record StorageVersionIs(Health.Access access, Map<String, String> members, Version target, Duration within)
            implements DowngradeConditions {
        @Override
        public String description() {
            return "every member's storage version " + minor(target) + " within " + within.toSeconds() + " s";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            try (Progress waiting = context.waiting("every member's storage version " + minor(target))) {
                while (true) {
                    List<String> behind = new ArrayList<>();
                    for (Map.Entry<String, String> m : members.entrySet()) {
                        String state = ask(access, m.getValue(), status -> {
                            if (onMinor(status.getVersion(), target)) {
                                return "";
                            }
                            String storage = MemberRpc.storageVersion(status).orElse("none");
                            return storage.equals(target.toString()) ? "" : "storage " + storage + ", downgrade "
                                    + MemberRpc.downgradeTarget(status).map(t -> "to " + t).orElse("not enabled");
                        });
                        if (!state.isEmpty()) {
                            behind.add(m.getKey() + " (" + state + ")");
                        }
                    }
                    if (behind.isEmpty()) {
                        context.note("every member's storage is at " + minor(target));
                        return;
                    }
                    waiting.waitingOn(String.join(", ", behind));
                    if (System.nanoTime() > deadline) {
                        throw new ConditionNotMetException("the members' storage did not move to " + minor(target) + " within "
                                + within.toSeconds() + " s: " + String.join(", ", behind) + ". etcd's leader lowers the"
                                + " cluster version and each member its storage every few seconds while the downgrade is"
                                + " enabled; a member that says 'downgrade not enabled' saw it cancelled. No member was"
                                + " swapped. What to do: 'etcdwright status'; apply again to go on, or set etcd.version back"
                                + " to cancel the downgrade.");
                    }
                    Thread.sleep(PAUSE.toMillis());
                }
            }
        }
    }

    /**
     * Asked of a member about to be stopped and started on the older minor: the downgrade to that
     * minor is still under way and this member's storage is there. Otherwise the older binary
     * would refuse to start ("invalid downgrade; server version is lower than determined cluster
     * version", or "version 3.7.0 is not supported") and the member would stay down.
     */
    record ReadyToSwap(Health.Access access, String member, String clientUrl, Version target)
            implements DowngradeConditions {
        @Override
        public String description() {
            return "the downgrade to " + minor(target) + " under way, " + member + "'s storage at " + minor(target);
        }

        @Override
        public void verify(StepContext context) {
            String problem = ask(access, clientUrl, status -> {
                Optional<String> under = MemberRpc.downgradeTarget(status);
                String storage = MemberRpc.storageVersion(status).orElse("none");
                if (under.isEmpty()) {
                    return "no downgrade is under way any more (cancelled?)";
                }
                if (!under.get().equals(target.toString())) {
                    return "the downgrade under way goes to " + under.get() + ", not " + target;
                }
                return storage.equals(target.toString()) ? "" : "its storage version is " + storage;
            });
            if (!problem.isEmpty()) {
                throw new ConditionNotMetException("not moving " + member + " to " + minor(target) + ": " + problem
                        + "; etcd " + minor(target) + " would not start on its data. Nothing was stopped. What to do:"
                        + " 'etcdwright status', then plan and apply again (the plan enables the downgrade again, or"
                        + " cancels it when etcd.version names the newer minor).");
            }
        }
    }

    /** The member answers on exactly this version: the swap took (systemd started the binary the unit names). */
    record MemberRuns(Health.Access access, String member, String clientUrl, Version version)
            implements DowngradeConditions {
        @Override
        public String description() {
            return member + " on etcd " + version;
        }

        @Override
        public void verify(StepContext context) {
            String runs = ask(access, clientUrl, StatusResponse::getVersion);
            if (!runs.equals(version.toString())) {
                throw new ConditionNotMetException(member + " answers on etcd " + runs + ", not " + version + ". What to"
                        + " do: look at its unit ('systemctl cat etcd', 'journalctl -u etcd' on its host), then apply again.");
            }
        }
    }

    /**
     * No downgrade is under way: etcd's leader ended it by itself once every member ran the target
     * minor (or a cancel went through). Members on 3.6 and newer say so in their Status; when none
     * does (every member on 3.5), {@code validateTarget} is asked of etcd's Downgrade VALIDATE, which
     * changes nothing and answers "cluster has a downgrade job in progress" while one is.
     *
     * @param validateTarget the minor below the cluster version ("3.4" once on 3.5), for that question
     */
    record NoDowngradeUnderWay(Health.Access access, List<String> clientUrls, Optional<String> validateTarget,
                               Duration within) implements DowngradeConditions {
        @Override
        public String description() {
            return "no downgrade under way within " + within.toSeconds() + " s";
        }

        @Override
        public void verify(StepContext context) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            try (Progress waiting = context.waiting("etcd to end the downgrade")) {
                while (true) {
                    String under = underWay();
                    if (under.isEmpty()) {
                        return;
                    }
                    waiting.waitingOn(under);
                    if (System.nanoTime() > deadline) {
                        throw new ConditionNotMetException("a downgrade is still under way after " + within.toSeconds()
                                + " s (" + under + "). etcd's leader ends it once every member runs the target minor, and"
                                + " until then keeps the cluster version there. What to do: 'etcdwright status' shows each"
                                + " member's version; apply again.");
                    }
                    Thread.sleep(PAUSE.toMillis());
                }
            }
        }

        /** Why a downgrade still looks under way; empty when none is. */
        private String underWay() {
            boolean anyReports = false;
            for (String url : clientUrls) {
                StatusResponse status;
                try (MemberRpc rpc = MemberRpc.connect(url, access.tls(), Health.ATTEMPT_TIMEOUT)) {
                    status = rpc.status();
                } catch (StatusRuntimeException e) {
                    return url + " does not answer (" + e.getStatus().getCode() + ")";
                }
                if (MemberRpc.reportsDowngrade(status)) {
                    anyReports = true;
                    Optional<String> target = MemberRpc.downgradeTarget(status);
                    if (target.isPresent()) {
                        return url + " reports a downgrade to " + target.get();
                    }
                }
            }
            if (anyReports || validateTarget.isEmpty() || clientUrls.isEmpty()) {
                return "";
            }
            try (MemberRpc rpc = MemberRpc.connect(clientUrls.get(0), access.tls(), Health.ATTEMPT_TIMEOUT)) {
                rpc.downgrade(MemberRpc.DowngradeAction.VALIDATE, validateTarget.get());
                return "";
            } catch (StatusRuntimeException e) {
                String why = String.valueOf(e.getStatus().getDescription());
                return why.contains("downgrade job in progress") ? "etcd says: " + why : "";
            }
        }
    }

    /** What {@code question} makes of the member's Status; a member that does not answer is said so. */
    private static String ask(Health.Access access, String clientUrl, java.util.function.Function<StatusResponse, String> question) {
        try (MemberRpc rpc = MemberRpc.connect(clientUrl, access.tls(), Health.ATTEMPT_TIMEOUT)) {
            return question.apply(rpc.status());
        } catch (StatusRuntimeException e) {
            return "does not answer at " + clientUrl + " (" + e.getStatus().getCode()
                    + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription()) + ")";
        }
    }

    private static boolean onMinor(String version, Version target) {
        return Version.tryParse(version).filter(v -> v.minorLine().equals(target.minorLine())).isPresent();
    }

    /** "3.5" of 3.5.0. */
    static String minor(Version v) {
        return v.minorLine().toString();
    }
}
