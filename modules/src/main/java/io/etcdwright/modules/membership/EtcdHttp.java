package io.etcdwright.modules.membership;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * etcd's own HTTP endpoints on its client URLs, from the workstation with mutual TLS: the gRPC
 * gateway ({@code /v3/...}, the gRPC messages as JSON, on every etcd since 3.4), {@code /readyz}
 * and {@code /livez} where the version has them, and {@code /version}. What {@code status} and
 * apply's health checks ask, without gRPC, Netty and the etcd client library: those cost a short
 * command most of a second of CPU to start and about 300 ms at its exit. Each request is one
 * blocking HTTPS exchange, bounded by the timeout; the JDK keeps each member's connection open
 * for the next.
 *
 * <p>The answers are read into the same types the rest of etcdwright uses ({@link ClusterStatus},
 * {@link MemberStatus}, {@link MemberFacts.Alarm}) and failures into the same one-line reasons.
 */
public final class EtcdHttp implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The key a linearizable read asks for to prove quorum, base64 as the gateway takes bytes: "health", as etcdctl's. */
    private static final String QUORUM_READ = "{\"key\":\"aGVhbHRo\",\"count_only\":true}";
    /** gRPC's status codes by number, as the gateway reports them. */
    private static final String[] CODES = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
        "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
    private static final int UNAVAILABLE = 14;
    private static final int PERMISSION_DENIED = 7;

    private final List<URI> endpoints;
    private final Duration timeout;
    private final TlsMaterial tls;
    private final SSLSocketFactory sockets;
    private final Path clientCert;
    private final Path clientKey;
    /** The certificate each member presented in this client's first handshake with it, by endpoint. */
    private final Map<String, X509Certificate> served = new java.util.concurrent.ConcurrentHashMap<>();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "etcdwright-etcd-http");
        t.setDaemon(true);
        return t;
    });

    private EtcdHttp(List<URI> endpoints, Duration timeout, TlsMaterial tls, SSLSocketFactory sockets, Path clientCert,
                     Path clientKey) {
        this.endpoints = endpoints;
        this.timeout = timeout;
        this.tls = tls;
        this.sockets = sockets;
        this.clientCert = clientCert;
        this.clientKey = clientKey;
    }

    /**
     * A client for the cluster behind {@code endpoints} ({@code https://HOST:PORT}, or {@code http://}
     * for a plaintext cluster).
     *
     * @throws EtcdAdminException       if a file is missing or not what it should be
     * @throws IllegalArgumentException if an endpoint is not such a URL or the timeout is not positive
     */
    public static EtcdHttp connect(List<String> endpoints, Path caCert, Path clientCert, Path clientKey, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        List<URI> uris = ClientUrls.parse(endpoints);
        TlsMaterial tls = TlsMaterial.read(caCert, clientCert, clientKey);
        return new EtcdHttp(uris, timeout, tls, ClientUrls.plaintext(uris) ? null : socketFactory(tls), clientCert, clientKey);
    }

    public static EtcdHttp connect(Health.Access access, List<String> endpoints, Duration timeout) {
        return connect(endpoints, access.caCert(), access.clientCert(), access.clientKey(), timeout);
    }

    /** The endpoints this client was given, normalized to {@code https://HOST:PORT}. */
    public List<String> endpoints() {
        return endpoints.stream().map(URI::toString).toList();
    }

    public Duration timeout() {
        return timeout;
    }

    // ---- status ----

    /**
     * The member list, and every member's own Status answer, asked of all members in parallel, and
     * a linearizable read (the quorum check): what {@code etcdwright status} shows. Status goes to
     * the configured endpoints at once; the member list and the read then go to the first member
     * that answered (a voter before a learner, which refuses the member list), over the connection
     * its answer came on; then Status to any member client URL the endpoints did not cover. One
     * TLS handshake a member. Every request is bounded by the timeout: a refused or dead member
     * costs next to nothing, a silent one the timeout, and so does a cluster without quorum (the
     * read waits out its time).
     *
     * @throws EtcdUnreachableException if no endpoint answers at all
     * @throws EtcdAdminException       if an endpoint answers but the member list cannot be had, or
     *                                  the servers refused the handshake because the client key is
     *                                  not the certificate's
     */
    public ClusterStatus status() {
        Map<String, CompletableFuture<Answer>> probes = new LinkedHashMap<>();
        for (URI endpoint : endpoints) {
            probes.put(endpoint.toString(), async(() -> statusOf(endpoint)));
        }
        ListAndRead asked = listAndRead(probes);
        JsonNode list = asked.list();
        for (JsonNode member : list.path("members")) {
            for (JsonNode url : member.path("clientURLs")) {
                URI uri = ClientUrls.parseOrNull(url.asText());
                if (uri != null && uri.getScheme().equals(endpoints.get(0).getScheme())) {
                    probes.computeIfAbsent(uri.toString(), k -> async(() -> statusOf(uri)));
                }
            }
        }
        Map<String, Answer> answers = new LinkedHashMap<>();
        probes.forEach((k, f) -> answers.put(k, f.join()));
        String leaderId = leaderId(answers.values());
        List<MemberStatus> members = new ArrayList<>();
        for (JsonNode member : list.path("members")) {
            members.add(memberStatus(member, answers, leaderId));
        }
        String clusterId = hex(list.path("header").path("cluster_id"));
        return new ClusterStatus(members, clusterId.isEmpty() || clusterId.equals("0") ? Optional.empty() : Optional.of(clusterId),
                asked.quorum());
    }

    private record ListAndRead(JsonNode list, boolean quorum) {
    }

    /**
     * The member list and the quorum read from the members whose Status answered, in the order
     * they answered, voters first: a learner refuses the member list; a member that does not answer
     * is never waited on longer than its Status call.
     */
    private ListAndRead listAndRead(Map<String, CompletableFuture<Answer>> probes) {
        List<String> tried = new ArrayList<>();
        String lastWhy = "";
        boolean allRefusedByLearners = true;
        while (true) {
            Optional<String> next = nextAnswered(probes, tried);
            if (next.isEmpty()) {
                break;
            }
            tried.add(next.get());
            URI endpoint = URI.create(next.get());
            Reply list;
            try {
                list = post(endpoint, "/v3/cluster/member/list", "{}");
            } catch (IOException e) {
                lastWhy = describe(e);
                allRefusedByLearners = false;
                continue;
            }
            if (list.ok() && list.json().path("members").isArray()) {
                boolean quorum;
                try {
                    Reply read = post(endpoint, "/v3/kv/range", QUORUM_READ);
                    // Like etcdctl: a refused permission still went through consensus.
                    quorum = read.ok() || read.code() == PERMISSION_DENIED;
                } catch (IOException e) {
                    quorum = false;
                }
                return new ListAndRead(list.json(), quorum);
            }
            lastWhy = list.describe();
            allRefusedByLearners &= list.refusedByLearner();
        }
        if (tried.isEmpty()) {
            Map<String, String> reasons = new LinkedHashMap<>();
            for (URI endpoint : endpoints) {
                reasons.put(endpoint.toString(), probes.get(endpoint.toString()).join().failure().orElse("did not answer"));
            }
            boolean tlsFailed = reasons.values().stream().anyMatch(f -> f.startsWith("TLS handshake"));
            if (tlsFailed && !tls.keyMatchesCertificate()) {
                throw new EtcdAdminException("client key " + clientKey + " does not belong to the certificate "
                        + clientCert + " (" + tls.clientChain()[0].getSubjectX500Principal().getName()
                        + "); the servers refused the TLS handshake");
            }
            throw new EtcdUnreachableException(reasons);
        }
        boolean onlyLearnersAnswered = tried.stream().map(u -> probes.get(u).join())
                .allMatch(a -> a.response().orElseThrow().path("isLearner").asBoolean(false));
        if (onlyLearnersAnswered && allRefusedByLearners) {
            throw new EtcdAdminException("etcd at " + String.join(", ", tried) + " answers, but only as a learner,"
                    + " and learners do not serve the member list: give the endpoint of a voting member too (" + lastWhy + ")");
        }
        throw new EtcdAdminException("etcd answered at " + String.join(", ", tried) + " but the member list failed: " + lastWhy);
    }

    /**
     * The next configured endpoint whose Status answered and that was not tried yet: a voter as soon
     * as one answered, a learner only once every Status is in; empty when none is left.
     */
    private Optional<String> nextAnswered(Map<String, CompletableFuture<Answer>> probes, List<String> tried) {
        while (true) {
            List<CompletableFuture<Answer>> pending = new ArrayList<>();
            Optional<String> learner = Optional.empty();
            for (URI endpoint : endpoints) {
                String key = endpoint.toString();
                CompletableFuture<Answer> probe = probes.get(key);
                if (tried.contains(key)) {
                    continue;
                }
                if (!probe.isDone()) {
                    pending.add(probe);
                    continue;
                }
                Optional<JsonNode> response = probe.join().response();
                if (response.isPresent()) {
                    if (!response.get().path("isLearner").asBoolean(false)) {
                        return Optional.of(key);
                    }
                    if (learner.isEmpty()) {
                        learner = Optional.of(key);
                    }
                }
            }
            if (pending.isEmpty()) {
                return learner;
            }
            CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new)).join();
        }
    }

    /** One endpoint's reply to a request, or why there is none. */
    private record Attempt(Reply reply, String failure, boolean passed) {
        String why() {
            return reply != null ? reply.describe() : failure;
        }

        boolean refusedByLearner() {
            return reply != null && reply.refusedByLearner();
        }
    }

    /**
     * The same request to every endpoint at once, returning as soon as one reply passes
     * {@code good} (the others are left to finish on their own), else when all are in.
     */
    private Map<URI, Attempt> anyOf(String path, String body, java.util.function.Predicate<Reply> good) {
        Map<URI, CompletableFuture<Attempt>> attempts = new LinkedHashMap<>();
        CompletableFuture<Void> first = new CompletableFuture<>();
        for (URI endpoint : endpoints) {
            CompletableFuture<Attempt> attempt = async(() -> {
                try {
                    Reply reply = body == null ? get(endpoint, path) : post(endpoint, path, body);
                    return new Attempt(reply, "", good.test(reply));
                } catch (IOException e) {
                    return new Attempt(null, describe(e), false);
                }
            });
            attempt.thenAccept(a -> {
                if (a.passed()) {
                    first.complete(null);
                }
            });
            attempts.put(endpoint, attempt);
        }
        CompletableFuture.anyOf(first, CompletableFuture.allOf(attempts.values().toArray(CompletableFuture[]::new))).join();
        Map<URI, Attempt> done = new LinkedHashMap<>();
        attempts.forEach((endpoint, attempt) -> done.put(endpoint, attempt.getNow(new Attempt(null, "no answer yet", false))));
        return done;
    }

    private MemberStatus memberStatus(JsonNode member, Map<String, Answer> answers, String leaderId) {
        String id = hex(member.path("ID"));
        String name = member.path("name").asText("");
        boolean learner = member.path("isLearner").asBoolean(false);
        List<String> clientUrls = texts(member.path("clientURLs"));
        List<String> peerUrls = texts(member.path("peerURLs"));
        boolean leader = !leaderId.isEmpty() && id.equals(leaderId);
        if (clientUrls.isEmpty()) {
            return unanswered(name, id, clientUrls, peerUrls, learner, leader,
                    "not started yet: in the member list, but has never joined (no client URLs)");
        }
        String scheme = endpoints.get(0).getScheme();
        List<String> reasons = new ArrayList<>();
        for (String text : clientUrls) {
            URI url = ClientUrls.parseOrNull(text);
            // A member moving to TLS advertises http:// and https://: the one this client speaks is asked.
            if (url == null || !url.getScheme().equals(scheme)) {
                if (clientUrls.stream().map(ClientUrls::parseOrNull).noneMatch(u -> u != null && u.getScheme().equals(scheme))) {
                    reasons.add(text + ": not " + scheme + ", which this client speaks");
                }
                continue;
            }
            Answer answer = answers.get(url.toString());
            if (answer != null && answer.response().isPresent()) {
                JsonNode r = answer.response().get();
                String answeredAs = hex(r.path("header").path("member_id"));
                if (!answeredAs.equals(id)) {
                    reasons.add(text + ": answered as member " + answeredAs + ", not " + id);
                    continue;
                }
                List<String> alarms = texts(r.path("errors"));
                long applied = r.path("raftAppliedIndex").asLong(0);
                long inUse = r.path("dbSizeInUse").asLong(0);
                return new MemberStatus(name, id, clientUrls, peerUrls, learner, leader,
                        Optional.of(r.path("version").asText("")), OptionalLong.of(r.path("dbSize").asLong(0)),
                        OptionalLong.of(r.path("raftIndex").asLong(0)), OptionalLong.of(r.path("raftTerm").asLong(0)), true,
                        alarms.isEmpty() ? Optional.empty() : Optional.of("reports: " + String.join("; ", alarms)),
                        applied > 0 ? OptionalLong.of(applied) : OptionalLong.empty(),
                        inUse > 0 ? OptionalLong.of(inUse) : OptionalLong.empty());
            }
            if (answer != null && answer.refusedByLearner() && learner) {
                // It answered, so it is up; it just will not say more as a learner.
                return new MemberStatus(name, id, clientUrls, peerUrls, true, leader, Optional.empty(), OptionalLong.empty(),
                        OptionalLong.empty(), OptionalLong.empty(), true,
                        Optional.of("learner: etcd serves no Status on this learner (" + answer.failure().orElse("") + ")"));
            }
            reasons.add((clientUrls.size() > 1 ? text + ": " : "") + (answer == null ? "not asked" : answer.failure().orElse("did not answer")));
        }
        return unanswered(name, id, clientUrls, peerUrls, learner, leader, String.join("; ", reasons));
    }

    private static MemberStatus unanswered(String name, String id, List<String> clientUrls, List<String> peerUrls,
                                           boolean learner, boolean leader, String error) {
        return new MemberStatus(name, id, clientUrls, peerUrls, learner, leader, Optional.empty(), OptionalLong.empty(),
                OptionalLong.empty(), OptionalLong.empty(), false, Optional.of(error));
    }

    /** The leader named by the answer with the highest raft term; empty if none names one. */
    private static String leaderId(Iterable<Answer> answers) {
        String leader = "";
        long term = -1;
        for (Answer a : answers) {
            if (a.response().isPresent()) {
                JsonNode r = a.response().get();
                String l = hex(r.path("leader"));
                if (!l.isEmpty() && !l.equals("0") && r.path("raftTerm").asLong(0) > term) {
                    leader = l;
                    term = r.path("raftTerm").asLong(0);
                }
            }
        }
        return leader;
    }

    /** One member's Status; never throws. */
    private Answer statusOf(URI url) {
        try {
            Reply reply = post(url, "/v3/maintenance/status", "{}");
            if (reply.ok() && !reply.json().path("header").isMissingNode()) {
                return new Answer(Optional.of(reply.json()), Optional.empty(), false);
            }
            return new Answer(Optional.empty(), Optional.of(reply.describe()), reply.refusedByLearner());
        } catch (IOException e) {
            return new Answer(Optional.empty(), Optional.of(describe(e)), false);
        }
    }

    // ---- alarms, reads, writes, version ----

    /**
     * The cluster's raised alarms (they are cluster-wide, replicated by raft), member ids in hex.
     *
     * @throws EtcdAdminException when no member gives them within the timeout
     */
    public List<MemberFacts.Alarm> alarms() {
        Map<URI, Attempt> attempts = anyOf("/v3/maintenance/alarm", "{\"action\":\"GET\"}", Reply::ok);
        for (Attempt a : attempts.values()) {
            if (a.passed()) {
                List<MemberFacts.Alarm> alarms = new ArrayList<>();
                for (JsonNode alarm : a.reply().json().path("alarms")) {
                    alarms.add(new MemberFacts.Alarm(hex(alarm.path("memberID")), MemberFacts.alarmType(alarm.path("alarm"))));
                }
                return alarms;
            }
        }
        throw new EtcdAdminException("cannot list the alarms: " + attempts.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue().why()).collect(java.util.stream.Collectors.joining("; ")));
    }

    /**
     * The value of {@code key}, read serializably (any one running member answers from its own
     * store, quorum or not): for records a reader must see even while the cluster has lost its
     * quorum (a watcher's suspension). Empty when the key does not exist.
     *
     * @throws EtcdAdminException when no member answers within the timeout
     */
    public Optional<String> serializableGet(String key) {
        return range(key, true).map(StoredKey::value);
    }

    /** A key as etcd keeps it: its value, the lease it is attached to (0: none) and the revision that last changed it. */
    public record StoredKey(String value, long lease, long modRevision) {
    }

    /**
     * The key {@code key}, read linearizably (through the leader, so what was written before is
     * seen), over the gateway this client already speaks: no gRPC channel to start for one read.
     * Empty when the key does not exist.
     *
     * @throws EtcdAdminException when no member answers within the timeout
     */
    public Optional<StoredKey> get(String key) {
        return range(key, false);
    }

    private Optional<StoredKey> range(String key, boolean serializable) {
        String body = "{\"key\":\"" + java.util.Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8))
                + "\"" + (serializable ? ",\"serializable\":true" : "") + "}";
        Map<URI, Attempt> attempts = anyOf("/v3/kv/range", body, Reply::ok);
        for (Attempt a : attempts.values()) {
            if (a.passed()) {
                JsonNode kvs = a.reply().json().path("kvs");
                if (!kvs.isArray() || kvs.isEmpty()) {
                    return Optional.empty();
                }
                JsonNode kv = kvs.get(0);
                // The gateway writes int64 fields as JSON strings, and leaves out those that are 0.
                return Optional.of(new StoredKey(new String(java.util.Base64.getDecoder().decode(kv.path("value").asText("")),
                        StandardCharsets.UTF_8), kv.path("lease").asLong(0), kv.path("mod_revision").asLong(0)));
            }
        }
        throw new EtcdAdminException("cannot read " + key + ": " + attempts.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue().why()).collect(java.util.stream.Collectors.joining("; ")));
    }

    /** How a member's own read is asked: etcd's readiness or liveness check, or a read of the gateway's. */
    public enum ReadCheck {
        /** {@code GET /readyz}: a linearizable read, a serializable one and no corruption alarm (a learner's is refused from some versions). */
        READYZ("/readyz"),
        /** {@code GET /livez}: a serializable read: the member's store serves. */
        LIVEZ("/livez"),
        /** A linearizable range of one key through the gateway: what {@code etcdctl endpoint health} reads, on every version. */
        LINEARIZABLE_RANGE("/v3/kv/range");

        private final String path;

        ReadCheck(String path) {
            this.path = path;
        }
    }

    /**
     * Why the member at {@code url} does not pass {@code check}, asked of that member alone; empty
     * when it does. A member cut off from its peers still answers Status, but cannot serve a read
     * that needs the leader.
     */
    public Optional<String> readProblem(String url, ReadCheck check) {
        URI uri = ClientUrls.parse(List.of(url)).get(0);
        try {
            Reply reply = check == ReadCheck.LINEARIZABLE_RANGE ? post(uri, check.path, QUORUM_READ) : get(uri, check.path);
            if (reply.ok() || reply.code() == PERMISSION_DENIED) {
                return Optional.empty();
            }
            return Optional.of(check == ReadCheck.LINEARIZABLE_RANGE ? reply.describe()
                    : failedChecks(check, reply.status(), reply.body()));
        } catch (IOException e) {
            return Optional.of(describe(e));
        }
    }

    /** The checks /readyz or /livez names as failed ("[-]linearizable_read failed: ..."), or its status. */
    static String failedChecks(ReadCheck check, int status, String body) {
        List<String> failed = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (line.startsWith("[-]")) {
                failed.add(line.substring(3).strip());
            }
        }
        return check.path + " says " + (failed.isEmpty() ? "HTTP " + status + " " + firstLine(body).strip()
                : String.join(", ", failed));
    }

    /** A refusal etcd answered to a call (the gateway's gRPC status), in one line. */
    public static final class Refused extends Exception {
        private final boolean byLearner;

        Refused(String message, boolean byLearner) {
            super(message);
            this.byLearner = byLearner;
        }

        /** etcd refused it because the member is a learner ("rpc not supported for learner"): it did nothing. */
        public boolean byLearner() {
            return byLearner;
        }
    }

    /**
     * A write proposed through the member at {@code url} commits: a lease granted (a raft proposal)
     * and revoked at once, so the keyspace is not touched.
     *
     * @throws Refused     etcd answered with a refusal
     * @throws IOException the member could not be reached or did not answer in time
     */
    public void leaseRoundTrip(String url) throws Refused, IOException {
        URI uri = ClientUrls.parse(List.of(url)).get(0);
        Reply granted = post(uri, "/v3/lease/grant", "{\"TTL\":10}");
        if (!granted.ok()) {
            throw new Refused(granted.describe(), granted.refusedByLearner());
        }
        String id = granted.json().path("ID").asText("");
        Reply revoked = post(uri, "/v3/lease/revoke", "{\"ID\":\"" + id.replaceAll("[^0-9-]", "") + "\"}");
        if (!revoked.ok()) {
            throw new Refused(revoked.describe(), revoked.refusedByLearner());
        }
    }

    /** The cluster version ({@code "3.5.0"}) the member at {@code url} reports, or empty when it does not answer. */
    public Optional<String> clusterVersion(String url) {
        try {
            Reply reply = get(ClientUrls.parse(List.of(url)).get(0), "/version");
            return reply.ok() ? Optional.ofNullable(reply.json().path("etcdcluster").textValue()).filter(v -> !v.isEmpty())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The certificate the member at {@code url} presented when this client first spoke to it: what
     * matters for expiry is what etcd serves, not the workstation's copy. Empty when it was not
     * reached over TLS.
     */
    public Optional<X509Certificate> servedCertificate(String url) {
        URI uri = ClientUrls.parseOrNull(url);
        return uri == null ? Optional.empty() : Optional.ofNullable(served.get(uri.toString()));
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    // ---- HTTP ----

    private <T> CompletableFuture<T> async(java.util.function.Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, pool);
    }

    private Reply post(URI base, String path, String json) throws IOException {
        return exchange(base, path, json);
    }

    private Reply get(URI base, String path) throws IOException {
        return exchange(base, path, null);
    }

    private Reply exchange(URI base, String path, String json) throws IOException {
        HttpURLConnection http = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
        if (http instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(sockets);
        }
        int millis = (int) Math.max(1, timeout.toMillis());
        http.setConnectTimeout(millis);
        http.setReadTimeout(millis);
        http.setUseCaches(false);
        if (json != null) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            http.setRequestMethod("POST");
            http.setDoOutput(true);
            http.setRequestProperty("Content-Type", "application/json");
            http.setFixedLengthStreamingMode(body.length);
            // Connected (and the TLS handshake done) first, so that a failure to connect is reported as such.
            http.connect();
            try (OutputStream out = http.getOutputStream()) {
                out.write(body);
            } catch (IOException e) {
                // Under TLS 1.3 a server refusing the client's certificate says so after the handshake:
                // the write fails first ("Error writing request body", "Incomplete output stream"),
                // and only reading what the server sent shows the alert that explains it.
                throw sockets == null ? e : alertOf(base).orElse(e);
            }
        }
        int status = http.getResponseCode();
        if (http instanceof HttpsURLConnection https && !served.containsKey(base.toString())
                && https.getServerCertificates().length > 0 && https.getServerCertificates()[0] instanceof X509Certificate leaf) {
            served.put(base.toString(), leaf);
        }
        InputStream in = status < 400 ? http.getInputStream() : http.getErrorStream();
        String text = "";
        if (in != null) {
            try (in) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        return new Reply(status, text);
    }

    /**
     * One HTTP answer. A gRPC error through the gateway is JSON with the gRPC code and etcd's message
     * ({@code {"code":14,"message":"etcdserver: rpc not supported for learner"}}).
     */
    private record Reply(int status, String body) {
        boolean ok() {
            return status == 200;
        }

        JsonNode json() {
            try {
                return body.isBlank() ? MissingNode.getInstance() : JSON.readTree(body);
            } catch (IOException e) {
                return MissingNode.getInstance();
            }
        }

        /** The gRPC code the gateway reported; -1 for an answer that is not the gateway's. */
        int code() {
            JsonNode code = json().path("code");
            return code.isInt() ? code.asInt() : -1;
        }

        String message() {
            JsonNode json = json();
            String message = json.path("message").asText("");
            return message.isEmpty() ? json.path("error").asText("") : message;
        }

        boolean refusedByLearner() {
            return code() == UNAVAILABLE && message().contains("rpc not supported for learner");
        }

        /** One line, as the operator reads it: "unavailable: etcdserver: request timed out". */
        String describe() {
            int code = code();
            if (code < 0) {
                return "HTTP " + status + (body.isBlank() ? "" : ": " + shorten(firstLine(body)));
            }
            String name = code < CODES.length ? CODES[code].toLowerCase(Locale.ROOT).replace('_', ' ') : "code " + code;
            String message = message();
            return shorten(name + (message.isEmpty() ? "" : ": " + message));
        }
    }

    /** A member's Status answer, or why there is none. */
    private record Answer(Optional<JsonNode> response, Optional<String> failure, boolean refusedByLearner) {
    }

    /** One line: "connection refused", "no answer within 2 s", "TLS handshake refused: ...". */
    public String describe(IOException e) {
        if (e instanceof SocketTimeoutException) {
            return "no answer within " + Failures.seconds(timeout);
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof CertificateException || c instanceof SSLException) {
                return Failures.describeTls(c);
            }
            if (c instanceof ConnectException) {
                return "connection refused";
            }
            if (c instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (c instanceof UnknownHostException) {
                return "unknown host " + c.getMessage();
            }
        }
        return shorten(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }

    /**
     * The TLS alert the server at {@code base} sends after a handshake, if it sends one: a fresh
     * handshake, then one read, as a TLS 1.3 server refuses a client's certificate only after it.
     */
    private Optional<IOException> alertOf(URI base) {
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) sockets.createSocket()) {
            int millis = (int) Math.max(1, timeout.toMillis());
            socket.connect(new java.net.InetSocketAddress(base.getHost(), base.getPort()), millis);
            socket.setSoTimeout(millis);
            socket.startHandshake();
            socket.getInputStream().read();
            return Optional.empty();
        } catch (SSLException e) {
            return Optional.of(e);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static SSLSocketFactory socketFactory(TlsMaterial tls) {
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (X509Certificate ca : tls.trustedCas()) {
                trusted.setCertificateEntry("ca" + i++, ca);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(tls.keyManagerFactory().getKeyManagers(), trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException | IOException e) {
            throw new EtcdAdminException("cannot set up TLS with the CA and client certificate: " + e.getMessage(), e);
        }
    }

    // ---- JSON ----

    /** etcd's 64-bit ids, numbers or quoted (the gateway), in lower-case hex as etcdctl prints them. */
    private static String hex(JsonNode number) {
        if (number.isMissingNode() || number.isNull() || number.asText("").isEmpty()) {
            return "";
        }
        try {
            return new java.math.BigInteger(number.asText()).toString(16);
        } catch (NumberFormatException e) {
            return "";
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String shorten(String s) {
        String line = firstLine(s);
        return line.length() <= 200 ? line : line.substring(0, 197) + "...";
    }
}
