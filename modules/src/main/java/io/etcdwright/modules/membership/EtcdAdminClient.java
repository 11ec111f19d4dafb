package io.etcdwright.modules.membership;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import javax.net.ssl.SSLException;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;

/**
 * The etcd client library (jetcd) over mutual TLS, for what only gRPC does: the cluster's lock
 * (KV and leases), and through {@link MembershipChanges} the membership changes. What is only
 * looked at (status, health, alarms, the cluster version) goes over etcd's own HTTP endpoints
 * instead ({@link EtcdHttp}), without starting gRPC.
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

    private final List<URI> endpoints;
    private final Duration timeout;
    private final Client client;

    private EtcdAdminClient(List<URI> endpoints, Duration timeout, Client client) {
        this.endpoints = endpoints;
        this.timeout = timeout;
        this.client = client;
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
        return new EtcdAdminClient(uris, timeout, client);
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

    /** The bound on every call. */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public void close() {
        client.close();
    }

    // ---- Endpoints ----

    static List<URI> parseEndpoints(List<String> endpoints) {
        return ClientUrls.parse(endpoints);
    }

    /** Whether these (parsed) endpoints are plain HTTP: a cluster whose spec says tls.transport.clients plaintext. */
    static boolean plaintext(List<URI> uris) {
        return ClientUrls.plaintext(uris);
    }

    private static URI normalize(URI uri) {
        return ClientUrls.normalize(uri);
    }

    // ---- Plumbing ----

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
