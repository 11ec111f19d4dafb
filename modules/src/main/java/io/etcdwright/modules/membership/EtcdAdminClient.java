package io.etcdwright.modules.membership;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import javax.net.ssl.SSLException;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.cluster.MemberListResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.GetOption;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * An etcd admin client over mutual TLS, for {@code etcdwright status} and the membership module.
 *
 * <p>Every call is bounded by the timeout given to {@link #connect}: each unary gRPC call carries
 * that deadline (so a silent endpoint costs at most the timeout, never jetcd's retry/backoff
 * schedule), TCP connects give up after it, jetcd's own retries are off, and calls fail fast on an
 * endpoint that refuses connections instead of waiting for it to come back.
 *
 * <p>{@link #connect} reads and checks the certificates and key but does no network I/O; the first
 * call that needs the cluster throws {@link EtcdUnreachableException} naming every endpoint tried
 * and why each failed if none answers.
 */
public final class EtcdAdminClient implements AutoCloseable {
    /** The key a linearizable read asks for to prove quorum; the same one etcdctl's health uses. */
    private static final ByteSequence QUORUM_KEY = ByteSequence.from("health", StandardCharsets.UTF_8);
    private static final int DEFAULT_CLIENT_PORT = 2379;
    /** Slack past the gRPC deadline before our own safety net gives up on a future. */
    private static final Duration GRACE = Duration.ofMillis(250);

    private final List<URI> endpoints;
    private final Duration timeout;
    private final Client client;
    private final TlsMaterial tls;
    private final Path clientCert;
    private final Path clientKey;

    private EtcdAdminClient(List<URI> endpoints, Duration timeout, Client client, TlsMaterial tls, Path clientCert,
            Path clientKey) {
        this.endpoints = endpoints;
        this.timeout = timeout;
        this.client = client;
        this.tls = tls;
        this.clientCert = clientCert;
        this.clientKey = clientKey;
    }

    /**
     * A client for the cluster behind {@code endpoints}.
     *
     * @param endpoints  client URLs, {@code https://HOST:PORT} (port 2379 if left out)
     * @param caCert     PEM file with the CA certificate(s) that issued the servers' certificates
     * @param clientCert PEM file with the client certificate (and any intermediates)
     * @param clientKey  PEM file with the client's private key: PKCS#8, EC (P-256) or RSA
     * @param timeout    the most any single call may take, connecting included
     * @throws EtcdAdminException       if a file is missing or not what it should be
     * @throws IllegalArgumentException if an endpoint is not an https URL or the timeout is not positive
     */
    public static EtcdAdminClient connect(List<String> endpoints, Path caCert, Path clientCert, Path clientKey,
            Duration timeout) {
        GrpcLogging.quiet();
        Objects.requireNonNull(endpoints, "endpoints");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        List<URI> uris = parseEndpoints(endpoints);
        TlsMaterial tls = TlsMaterial.read(caCert, clientCert, clientKey);
        Client client;
        try {
            var builder = Client.builder().endpoints(uris.toArray(URI[]::new));
            if (!plaintext(uris)) {
                builder.sslContext(tls.clientContext());
            }
            client = builder
                    // Fail a call at once when its endpoint refuses, rather than wait for it to come back.
                    .waitForReady(false)
                    .connectTimeout(timeout)
                    // jetcd's default: 2 retries with 0.5-2.5 s backoff, each with no deadline.
                    .retryMaxAttempts(0)
                    .interceptor(new UnaryDeadline(timeout))
                    .build();
        } catch (SSLException e) {
            throw new EtcdAdminException("cannot set up TLS with CA " + caCert + ", certificate " + clientCert
                    + " and key " + clientKey + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            // How Netty refuses a key or certificate it cannot use.
            throw new EtcdAdminException("cannot use certificate " + clientCert + " with key " + clientKey
                    + ": " + e.getMessage(), e);
        }
        return new EtcdAdminClient(uris, timeout, client, tls, clientCert, clientKey);
    }

    /** The endpoints this client was given, normalized to {@code https://HOST:PORT}. */
    public List<String> endpoints() {
        return endpoints.stream().map(URI::toString).collect(Collectors.toUnmodifiableList());
    }

    /**
     * The underlying jetcd client, for KV and lease calls (the cluster lock) under the same bounds:
     * each unary call carries the timeout, no retries, no waiting for a refusing endpoint.
     */
    public Client jetcd() {
        return client;
    }

    /**
     * The cluster's raised alarms (they are cluster-wide, replicated by raft), member ids in hex.
     *
     * @throws EtcdAdminException when no member gives them within the timeout
     */
    public List<MemberFacts.Alarm> alarms() {
        try {
            return client.getMaintenanceClient().listAlarms().get(timeout.toMillis() + GRACE.toMillis(), TimeUnit.MILLISECONDS)
                    .getAlarms().stream()
                    .map(a -> new MemberFacts.Alarm(Long.toHexString(a.getMemberId()), a.getAlarmType().name()))
                    .toList();
        } catch (ExecutionException e) {
            throw new EtcdAdminException("cannot list the alarms: " + Failures.describe(e.getCause(), timeout), e.getCause());
        } catch (TimeoutException e) {
            throw new EtcdAdminException("cannot list the alarms: no answer within " + timeout.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EtcdAdminException("interrupted", e);
        }
    }

    /** The bound on every call. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * The member list, and every member's own Status answer, asked of all members in parallel.
     *
     * <p>One MemberList call goes to whichever endpoint answers; Status calls go to every member's
     * client URLs at once, each on its own connection. The configured endpoints are asked for
     * Status together with the MemberList call, since they usually are the members' client URLs:
     * on a healthy cluster the whole status costs one round of connections. A linearizable read
     * (the quorum check) runs alongside; after the member list, Status goes to any member URL the
     * configured endpoints did not cover.
     *
     * <p>Every call is bounded by the timeout. A refused or dead member costs next to nothing; a
     * silent one among the configured endpoints costs one timeout, and so does a cluster without
     * quorum (the read waits out its timeout). A member list or read that ran out of time while
     * the connection was still coming up (a cold JVM on a busy machine can spend a short timeout
     * on its first TLS handshakes) is asked once more on the then open connection, so the worst
     * case is about three timeouts.
     *
     * @throws EtcdUnreachableException if no endpoint answers at all
     * @throws EtcdAdminException       if an endpoint answers but the member list cannot be had, or
     *                                  the servers refused the handshake because the client key is
     *                                  not the certificate's
     */
    public ClusterStatus status() {
        long deadline = System.nanoTime() + timeout.toNanos();
        // The member list first, as everything waits for it; then Status to the configured
        // endpoints and the quorum read, all at once.
        CompletableFuture<MemberListResponse> firstList = client.getClusterClient().listMember();
        Map<String, CompletableFuture<Answer>> probes = new LinkedHashMap<>();
        for (URI endpoint : endpoints) {
            probes.put(key(endpoint), probe(endpoint));
        }
        long readStarted = System.nanoTime();
        BooleanSupplier learnerAmongEndpoints = () -> learnerMayAnswer(probes);
        CompletableFuture<Optional<Throwable>> quorumRead = CompletableFuture.supplyAsync(() -> quorumRead(learnerAmongEndpoints), r -> {
            // A daemon: should the member list fail, a read still waiting must not hold up the JVM's exit.
            Thread t = new Thread(r, "etcdwright-quorum-read");
            t.setDaemon(true);
            t.start();
        });

        MemberListResponse list = memberList(firstList, deadline, probes);
        long listArrived = System.nanoTime();

        List<Member> members = list.getMembers();
        for (Member member : members) {
            for (URI url : member.getClientURIs()) {
                if (url.getScheme().equalsIgnoreCase(endpoints.get(0).getScheme())) {
                    probes.computeIfAbsent(key(url), k -> probe(normalize(url)));
                }
            }
        }
        CompletableFuture.allOf(probes.values().toArray(CompletableFuture[]::new)).join();
        Map<String, Answer> answers = new LinkedHashMap<>();
        probes.forEach((k, f) -> answers.put(k, f.join()));

        long leaderId = leaderId(answers.values());
        List<MemberStatus> result = new ArrayList<>(members.size());
        for (Member member : members) {
            result.add(memberStatus(member, answers, leaderId));
        }
        long clusterId = list.getHeader().getClusterId();
        Optional<Throwable> readFailure = quorumRead.join();
        if (readFailure.isPresent() && Failures.code(readFailure.get()) == Status.Code.DEADLINE_EXCEEDED
                && listArrived - readStarted > timeout.toNanos() / 2) {
            // The connection took most of the read's time to come up (a cold JVM on a busy machine
            // can spend a short timeout on its first TLS handshakes): the read may only have been
            // slow, not refused by a cluster without quorum. Once more, on the open connection.
            readFailure = quorumRead(learnerAmongEndpoints);
        }
        boolean quorum = readFailure.isEmpty();
        return new ClusterStatus(result,
                clusterId == 0 ? Optional.empty() : Optional.of(Long.toHexString(clusterId)), quorum);
    }

    /**
     * The member list, from whichever endpoint gives it. If it ran out of time although some
     * endpoint did answer its Status call, the member list was slow rather than unreachable (a
     * cold JVM on a busy machine spends a good part of a short timeout on its first TLS
     * handshakes), so it is asked once more, with a fresh timeout, on the now open connection.
     */
    private MemberListResponse memberList(CompletableFuture<MemberListResponse> first, long deadline,
            Map<String, CompletableFuture<Answer>> probes) {
        Supplier<CompletableFuture<MemberListResponse>> call = () -> client.getClusterClient().listMember();
        BooleanSupplier learnerAmongEndpoints = () -> learnerMayAnswer(probes);
        try {
            return attempt(first, call, deadline, learnerAmongEndpoints);
        } catch (CallFailed failed) {
            if (Failures.code(failed.getCause()) != Status.Code.DEADLINE_EXCEEDED || answered(probes).isEmpty()) {
                throw memberListFailed(probes, failed.getCause());
            }
        }
        try {
            return attempt(null, call, System.nanoTime() + timeout.toNanos(), learnerAmongEndpoints);
        } catch (CallFailed failed) {
            throw memberListFailed(probes, failed.getCause());
        }
    }

    @Override
    public void close() {
        client.close();
    }

    // ---- Status of one member ----

    private MemberStatus memberStatus(Member member, Map<String, Answer> answers, long leaderId) {
        String id = Long.toHexString(member.getId());
        List<String> clientUrls = member.getClientURIs().stream().map(URI::toString).collect(Collectors.toList());
        List<String> peerUrls = member.getPeerURIs().stream().map(URI::toString).collect(Collectors.toList());
        boolean leader = leaderId != 0 && member.getId() == leaderId;
        if (clientUrls.isEmpty()) {
            return unanswered(member, id, clientUrls, peerUrls, leader,
                    "not started yet: in the member list, but has never joined (no client URLs)");
        }
        List<String> reasons = new ArrayList<>();
        for (URI url : member.getClientURIs()) {
            // A member moving to TLS advertises http:// and https://: the one this client speaks is asked.
            if (!url.getScheme().equalsIgnoreCase(endpoints.get(0).getScheme())) {
                if (member.getClientURIs().stream().noneMatch(u -> u.getScheme().equalsIgnoreCase(endpoints.get(0).getScheme()))) {
                    reasons.add(url + ": not " + endpoints.get(0).getScheme() + ", which this client speaks");
                }
                continue;
            }
            Answer answer = answers.get(key(url));
            if (answer.response() != null) {
                long answeredAs = answer.response().getHeader().getMemberId();
                if (answeredAs != member.getId()) {
                    reasons.add(url + ": answered as member " + Long.toHexString(answeredAs) + ", not " + id);
                    continue;
                }
                StatusResponse r = answer.response();
                List<String> alarms = r.getErrorList();
                return new MemberStatus(member.getName(), id, clientUrls, peerUrls, member.isLearner(), leader,
                        Optional.of(r.getVersion()), OptionalLong.of(r.getDbSize()),
                        OptionalLong.of(r.getRaftIndex()), OptionalLong.of(r.getRaftTerm()), true,
                        alarms.isEmpty() ? Optional.empty() : Optional.of("reports: " + String.join("; ", alarms)),
                        appliedIndex(r), r.getDbSizeInUse() > 0 ? OptionalLong.of(r.getDbSizeInUse()) : OptionalLong.empty());
            }
            if (Failures.isLearnerRefusal(answer.failure(), member.isLearner())) {
                // It answered, so it is up; it just will not say more as a learner.
                return new MemberStatus(member.getName(), id, clientUrls, peerUrls, true, leader, Optional.empty(),
                        OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), true,
                        Optional.of("learner: etcd serves no Status on this learner ("
                                + Failures.description(answer.failure()) + ")"));
            }
            reasons.add((clientUrls.size() > 1 ? url + ": " : "") + Failures.describe(answer.failure(), timeout));
        }
        return unanswered(member, id, clientUrls, peerUrls, leader, String.join("; ", reasons));
    }

    /** etcd 3.4 and later report it; an older server leaves it 0, which says nothing. */
    private static OptionalLong appliedIndex(StatusResponse r) {
        return r.getRaftAppliedIndex() > 0 ? OptionalLong.of(r.getRaftAppliedIndex()) : OptionalLong.empty();
    }

    private static MemberStatus unanswered(Member member, String id, List<String> clientUrls, List<String> peerUrls,
            boolean leader, String error) {
        return new MemberStatus(member.getName(), id, clientUrls, peerUrls, member.isLearner(), leader,
                Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), false,
                Optional.of(error));
    }

    /** The leader named by the answer with the highest raft term; 0 if none names one. */
    private static long leaderId(Iterable<Answer> answers) {
        long leader = 0;
        long term = -1;
        for (Answer a : answers) {
            StatusResponse r = a.response();
            if (r != null && r.getLeader() != 0 && r.getRaftTerm() > term) {
                leader = r.getLeader();
                term = r.getRaftTerm();
            }
        }
        return leader;
    }

    // ---- Calls ----

    /** A Status call to one client URL on a connection of its own; never completes exceptionally. */
    private CompletableFuture<Answer> probe(URI url) {
        CompletableFuture<StatusResponse> call;
        try {
            call = client.getMaintenanceClient().statusMember(url.toString());
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(new Answer(url, null, e));
        }
        return call.handle((response, failure) -> new Answer(url, response, failure))
                // The gRPC deadline ends the call; this only guards against a future nobody completes.
                .completeOnTimeout(new Answer(url, null, new TimeoutException()),
                        timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Why a linearizable read through this client's endpoints did not go through; empty when it
     * did. Connected to one member only, this is etcd's own definition of that member's health
     * ({@code etcdctl endpoint health}): a member cut off from its peers still answers Status,
     * but cannot serve a read that needs the leader.
     */
    public Optional<String> linearizableReadProblem() {
        // Asked of voters only (Health skips learners): no learner refusal to wait out.
        return quorumRead(() -> false).map(failure -> Failures.describe(failure, timeout));
    }

    /** A linearizable read; empty if it went through, else why not. */
    private Optional<Throwable> quorumRead(BooleanSupplier learnerAmongEndpoints) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            attempt(null, () -> client.getKVClient().get(QUORUM_KEY, GetOption.builder().withCountOnly(true).build()),
                    deadline, learnerAmongEndpoints);
            return Optional.empty();
        } catch (CallFailed failed) {
            // Like etcdctl: a refused permission still went through consensus.
            if (Failures.code(failed.getCause()) == Status.Code.PERMISSION_DENIED) {
                return Optional.empty();
            }
            return Optional.of(failed.getCause());
        }
    }

    /**
     * One call through the shared channel ({@code first}, if given, is its first try, already under
     * way), tried again while an endpoint refuses it, say a learner refusing MemberList: the channel
     * balances round robin over the endpoints whose connections are ready, and right after
     * connecting that may be the learner alone, so tries go on, briefly spaced, until another
     * endpoint is ready to take one. Never past the deadline, never again after a timeout.
     *
     * @param learnerAmongEndpoints whether a learner may be among the endpoints, so that an
     *                              UNAVAILABLE etcd sent may be its refusal (the shared channel
     *                              does not say which endpoint answered)
     */
    private <T> T attempt(CompletableFuture<T> first, Supplier<CompletableFuture<T>> call, long deadline,
            BooleanSupplier learnerAmongEndpoints) throws CallFailed {
        Throwable last = null;
        for (int i = 0; ; i++) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            CompletableFuture<T> future = i == 0 && first != null ? first : call.get();
            try {
                return future.get(remaining, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                future.cancel(true);
                last = e;
                break;
            } catch (ExecutionException e) {
                last = e.getCause();
                if (Failures.code(last) == Status.Code.DEADLINE_EXCEEDED) {
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EtcdAdminException("interrupted", e);
            }
            if (i >= endpoints.size() - 1) {
                // Past one try per endpoint, only a learner's refusal proves a live member that
                // another endpoint may answer for; anything else has had its chances.
                if (!Failures.isLearnerRefusal(last, learnerAmongEndpoints.getAsBoolean())) {
                    break;
                }
                pause(Math.min(RETRY_PAUSE_NANOS, deadline - System.nanoTime()));
            }
        }
        throw new CallFailed(last != null ? last : new TimeoutException());
    }

    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static void pause(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EtcdAdminException("interrupted", e);
        }
    }

    /**
     * Whether a configured endpoint is, or may yet turn out to be, a learner: one answered its
     * Status call as a learner, or one has not answered yet. Never waits: a learner's refusal
     * usually arrives before its Status answer, and a silent endpoint would hold up the retries.
     */
    private static boolean learnerMayAnswer(Map<String, CompletableFuture<Answer>> probes) {
        return probes.values().stream().anyMatch(f -> !f.isDone() || answeredAsLearner(f.join()));
    }

    private static boolean answeredAsLearner(Answer answer) {
        return answer.response() != null && answer.response().isLearner();
    }

    /** The configured endpoints that answered their Status call (waiting for them, bounded). */
    private List<String> answered(Map<String, CompletableFuture<Answer>> probes) {
        List<String> answered = new ArrayList<>();
        for (URI endpoint : endpoints) {
            if (probes.get(key(endpoint)).join().response() != null) {
                answered.add(endpoint.toString());
            }
        }
        return answered;
    }

    /** Why the member list could not be had, with each endpoint's own reason. */
    private EtcdAdminException memberListFailed(Map<String, CompletableFuture<Answer>> probes, Throwable cause) {
        List<String> answered = answered(probes);
        if (answered.isEmpty()) {
            Map<String, String> failures = new LinkedHashMap<>();
            for (URI endpoint : endpoints) {
                failures.put(endpoint.toString(), Failures.describe(probes.get(key(endpoint)).join().failure(), timeout));
            }
            boolean tlsFailed = failures.values().stream().anyMatch(f -> f.startsWith("TLS handshake"));
            if (tlsFailed && !tls.keyMatchesCertificate()) {
                return new EtcdAdminException("client key " + clientKey + " does not belong to the certificate "
                        + clientCert + " (" + tls.clientChain()[0].getSubjectX500Principal().getName()
                        + "); the servers refused the TLS handshake");
            }
            return new EtcdUnreachableException(failures);
        }
        String why = Failures.describe(cause, timeout);
        boolean onlyLearnersAnswered = endpoints.stream().map(e -> probes.get(key(e)).join())
                .filter(a -> a.response() != null).allMatch(EtcdAdminClient::answeredAsLearner);
        if (Failures.isLearnerRefusal(cause, onlyLearnersAnswered)) {
            return new EtcdAdminException("etcd at " + String.join(", ", answered) + " answers, but only as a learner,"
                    + " and learners do not serve the member list: give the endpoint of a voting member too ("
                    + why + ")", cause);
        }
        return new EtcdAdminException("etcd answered at " + String.join(", ", answered)
                + " but the member list failed: " + why, cause);
    }

    // ---- Endpoints ----

    static List<URI> parseEndpoints(List<String> endpoints) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no etcd endpoint given");
        }
        LinkedHashSet<URI> uris = new LinkedHashSet<>();
        for (String endpoint : endpoints) {
            uris.add(parseEndpoint(endpoint));
        }
        // One channel for all of them: jetcd speaks TLS to every endpoint or to none.
        if (uris.stream().map(URI::getScheme).distinct().count() > 1) {
            throw new IllegalArgumentException("endpoints " + endpoints + " mix http:// and https://; give one scheme");
        }
        return List.copyOf(uris);
    }

    /** Whether these (parsed) endpoints are plain HTTP: a cluster whose spec says tls.transport.clients plaintext. */
    static boolean plaintext(List<URI> uris) {
        return !isHttps(uris.get(0));
    }

    private static URI parseEndpoint(String endpoint) {
        String text = Objects.requireNonNull(endpoint, "endpoint").trim();
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' is not a URL like https://10.0.0.1:2379");
        }
        if (uri.getScheme() == null || uri.getHost() == null) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' is not a URL like https://10.0.0.1:2379");
        }
        if (!isHttps(uri) && !"http".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' must be https:// (or http:// for a plaintext"
                    + " cluster)");
        }
        boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
                && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
        if (!bare) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' must be just https://HOST:PORT");
        }
        return normalize(uri);
    }

    private static boolean isHttps(URI uri) {
        return "https".equalsIgnoreCase(uri.getScheme());
    }

    private static URI normalize(URI uri) {
        int port = uri.getPort() == -1 ? DEFAULT_CLIENT_PORT : uri.getPort();
        return URI.create(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port);
    }

    private static String key(URI uri) {
        return normalize(uri).toString();
    }

    // ---- Plumbing ----

    private record Answer(URI url, StatusResponse response, Throwable failure) {
    }

    /** A call that failed or ran out of time; the cause says which. */
    private static final class CallFailed extends Exception {
        CallFailed(Throwable cause) {
            super(cause);
        }
    }

    /** Puts the timeout on every unary call, connecting included; streams (watch, snapshot) are left alone. */
    private static final class UnaryDeadline implements ClientInterceptor {
        private final long nanos;

        UnaryDeadline(Duration timeout) {
            this.nanos = timeout.toNanos();
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            if (method.getType() == MethodDescriptor.MethodType.UNARY) {
                Deadline deadline = Deadline.after(nanos, TimeUnit.NANOSECONDS);
                if (options.getDeadline() == null || deadline.isBefore(options.getDeadline())) {
                    options = options.withDeadline(deadline);
                }
            }
            return next.newCall(method, options);
        }
    }
}
