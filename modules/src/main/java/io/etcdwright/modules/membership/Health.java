package io.etcdwright.modules.membership;

import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.modules.EtcdLayout;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Health as etcd itself reports it, asked from the workstation over etcd's own HTTP endpoints
 * ({@link EtcdHttp}) with the cluster's admin certificate (the same path as {@code etcdwright
 * status}): every expected member answers its Status call, a linearizable read proves quorum, and
 * each voting member passes its own readiness check. No command line is built: member addresses
 * never go near a shell.
 */
public final class Health {
    /** What one attempt may take, connecting included. */
    public static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration PAUSE = Duration.ofSeconds(1);

    /**
     * The workstation's way into the cluster: the CA that issued the members' certificates and
     * the admin client certificate and key (PEM files).
     */
    public record Access(Path caCert, Path clientCert, Path clientKey) {
        public Access {
            Objects.requireNonNull(caCert, "caCert");
            Objects.requireNonNull(clientCert, "clientCert");
            Objects.requireNonNull(clientKey, "clientKey");
        }

        /** The CA, certificate and key read and checked, for a gRPC or TLS connection of its own. */
        public TlsMaterial tls() {
            return TlsMaterial.read(caCert, clientCert, clientKey);
        }
    }

    private Health() {
    }

    /**
     * Why the members at {@code clientUrls} are not all healthy, asked once; empty when they are.
     *
     * @throws EtcdAdminException if the certificate or key files cannot be used (no waiting helps)
     */
    public static Optional<String> problem(Access access, List<String> clientUrls, Duration timeout) {
        return problem(access, clientUrls, timeout, false);
    }

    /**
     * The same, with raised alarms counted as healthy when {@code alarmsAllowed}: what maintenance
     * asks (a member with NOSPACE raised answers, serves reads and defragments; the alarm is why it runs).
     */
    public static Optional<String> problem(Access access, List<String> clientUrls, Duration timeout, boolean alarmsAllowed) {
        try (EtcdHttp client = EtcdHttp.connect(access, clientUrls, timeout)) {
            ClusterStatus status;
            try {
                status = client.status();
            } catch (EtcdAdminException e) {
                return Optional.of(e.getMessage());
            }
            Optional<String> problem = problem(status, clientUrls, alarmsAllowed);
            if (problem.isEmpty()) {
                return memberReadProblem(client, status, clientUrls);
            }
            if (status.quorum()) {
                return problem;
            }
            // The cluster-wide read may have gone through the one member that is cut off from the
            // others (FaultsIT: "the cluster has no quorum" while two of three still had one): each
            // member's own read names it, or shows that none of them can serve.
            Optional<String> reads = memberReadProblem(client, status, clientUrls);
            return Optional.of(problem.get() + reads.map(r -> "; " + r).orElse(""));
        }
    }

    /**
     * Each member's own health, asked of that member alone and all at once ({@link #readCheck}): a
     * voter's linearizable read, a learner's liveness. A member cut off from its peers still
     * answers Status (and may still name the old leader for a while), and the cluster-wide read
     * goes through the others; only a read through that member shows it cannot reach the leader.
     */
    private static Optional<String> memberReadProblem(EtcdHttp client, ClusterStatus status, List<String> clientUrls) {
        List<java.util.concurrent.CompletableFuture<Optional<String>>> reads = new ArrayList<>();
        for (String url : clientUrls) {
            Optional<MemberStatus> member = status.members().stream()
                    .filter(m -> m.clientUrls().stream().map(Health::key).anyMatch(key(url)::equals)).findFirst();
            boolean learner = member.isPresent() && member.get().learner();
            Optional<EtcdHttp.ReadCheck> check = readCheck(member.flatMap(MemberStatus::version), learner);
            if (check.isEmpty()) {
                continue;
            }
            // Named as status knows it, so the operator reads which member, not only an address.
            String name = member.map(MemberStatus::name).filter(n -> !n.isEmpty()).map(n -> "member " + n).orElse("member");
            String what = learner ? " is not live: " : " cannot serve a linearizable read (cut off from the leader?): ";
            reads.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> client.readProblem(url, check.get())
                    .map(why -> name + " at " + url + what + why)));
        }
        List<String> problems = reads.stream().map(java.util.concurrent.CompletableFuture::join)
                .flatMap(Optional::stream).toList();
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    /**
     * How a member's own health is asked, by the version it reported, as the catalogue says that
     * version serves it: a voter's readiness ({@code /readyz}: a linearizable read, no corruption)
     * where it has one, else a linearizable read through its gateway; a learner's liveness
     * ({@code /livez}: its store serves) where it has one (its /readyz refuses learners from 3.5.19),
     * else nothing beyond its Status answer, since a learner serves no linearizable reads.
     */
    static Optional<EtcdHttp.ReadCheck> readCheck(Optional<String> version, boolean learner) {
        boolean livezAndReadyz = version.flatMap(Version::tryParse)
                .map(v -> VersionCatalogue.builtIn().health(v).livezAndReadyz()).orElse(false);
        if (learner) {
            return livezAndReadyz ? Optional.of(EtcdHttp.ReadCheck.LIVEZ) : Optional.empty();
        }
        return Optional.of(livezAndReadyz ? EtcdHttp.ReadCheck.READYZ : EtcdHttp.ReadCheck.LINEARIZABLE_RANGE);
    }

    /**
     * Why {@code status} does not show every member at {@code clientUrls} healthy with a quorum
     * behind the cluster; empty when it does. Pure, for tests.
     */
    static Optional<String> problem(ClusterStatus status, List<String> clientUrls) {
        return problem(status, clientUrls, false);
    }

    static Optional<String> problem(ClusterStatus status, List<String> clientUrls, boolean alarmsAllowed) {
        List<String> problems = new ArrayList<>();
        for (String url : clientUrls) {
            String key = key(url);
            Optional<MemberStatus> member = status.members().stream()
                    .filter(m -> m.clientUrls().stream().map(Health::key).anyMatch(key::equals)).findFirst();
            if (member.isEmpty()) {
                problems.add(url + ": no member of the cluster advertises this client URL (not started, or not a member)");
            } else if (!member.get().healthy()) {
                MemberStatus m = member.get();
                problems.add("member " + (m.name().isEmpty() ? m.id() : m.name()) + " at " + url + ": "
                        + m.error().orElse("did not answer"));
            } else if (member.get().error().isPresent() && !member.get().learner() && !alarmsAllowed) {
                // It answered, but reports alarms (NOSPACE, CORRUPT): not healthy either.
                problems.add("member " + member.get().name() + " at " + url + " " + member.get().error().get());
            }
        }
        if (!status.quorum()) {
            problems.add("the cluster has no quorum (a linearizable read did not go through)");
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    /**
     * Waits until every member at {@code clientUrls} answers healthy and the cluster has quorum.
     * Bootstrap needs a quorum of members up before any reports healthy, so the first seconds of
     * "unhealthy" are normal, not failures; the wait is shown as it goes, with what it waits on.
     */
    public static void await(StepContext context, Access access, List<String> clientUrls, Duration timeout)
            throws InterruptedException {
        await(context, access, clientUrls, timeout, false);
    }

    /** {@link #await}, with raised alarms counted as healthy when {@code alarmsAllowed} (maintenance). */
    public static void await(StepContext context, Access access, List<String> clientUrls, Duration timeout, boolean alarmsAllowed)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Optional<String> problem;
        try (Progress waiting = context.waiting(clientUrls.size() + " member(s) to report healthy")) {
            while (true) {
                // Each attempt gets its full time, even the last: a shortened one would only report
                // "no answer within 0 ms" instead of what is really wrong.
                problem = problem(access, clientUrls, ATTEMPT_TIMEOUT, alarmsAllowed);
                if (problem.isEmpty()) {
                    return;
                }
                waiting.waitingOn(problem.get());
                long now = System.nanoTime();
                if (now >= deadline) {
                    break;
                }
                Thread.sleep(Math.min(PAUSE.toMillis(), Math.max(1, (deadline - now) / 1_000_000)));
            }
        }
        throw new IllegalStateException("etcd did not become healthy within " + timeout.toSeconds() + " s: "
                + problem.get() + "\nLook at 'journalctl -u " + EtcdLayout.UNIT + "' on the hosts of the members named"
                + " above and at 'etcdwright status'; once they are healthy, apply again.");
    }

    /** https://HOST:PORT in lower case, as etcd and this project write client URLs. */
    private static String key(String url) {
        try {
            URI uri = new URI(url.trim());
            String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
            return host + ":" + (uri.getPort() == -1 ? 2379 : uri.getPort());
        } catch (URISyntaxException e) {
            return url;
        }
    }
}
