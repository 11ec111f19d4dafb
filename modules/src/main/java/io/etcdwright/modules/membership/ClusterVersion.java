package io.etcdwright.modules.membership;

import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The cluster version: the minor every member agrees to speak, which the leader raises (every few
 * seconds) only once every member runs the newer minor. It is not in the gRPC Status answer, so it
 * is read from a member's {@code GET /version} ({@code {"etcdserver":"3.5.16","etcdcluster":"3.5.0"}}),
 * over the same mutual TLS as everything else.
 */
public final class ClusterVersion {
    private ClusterVersion() {
    }

    /** The cluster version a member reports ("3.5.0"), or empty when it does not answer. */
    public static Optional<String> of(Health.Access access, String clientUrl, Duration timeout) {
        try (EtcdHttp http = EtcdHttp.connect(access, List.of(clientUrl), timeout)) {
            return http.clusterVersion(clientUrl);
        }
    }

    /**
     * Waits until some member reports the cluster version {@code minor} ("3.5"), saying so in the
     * step's notes; gives up after {@code within} with what the members reported last.
     */
    public static void await(StepContext ctx, Health.Access access, List<String> clientUrls, String minor, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        Optional<String> seen = Optional.empty();
        try (Progress waiting = ctx.waiting("cluster version " + minor)) {
            while (System.nanoTime() < deadline) {
                for (String url : clientUrls) {
                    seen = of(access, url, Duration.ofSeconds(2));
                    if (seen.isPresent() && (seen.get().equals(minor) || seen.get().startsWith(minor + "."))) {
                        ctx.note("cluster version is " + seen.get());
                        return;
                    }
                }
                waiting.waitingOn("members report " + seen.orElse("nothing"));
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EtcdAdminException("interrupted", e);
                }
            }
        }
        throw new EtcdAdminException("the cluster version did not become " + minor + " within " + within.toSeconds() + " s (last"
                + " reported: " + seen.orElse("nothing") + "); etcd raises it only when every member runs " + minor
                + " and answers: check 'etcdwright status' for a member still on the older version or down");
    }
}
