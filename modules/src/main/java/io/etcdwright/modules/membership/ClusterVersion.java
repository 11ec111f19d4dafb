package io.etcdwright.modules.membership;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;

import java.io.IOException;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The cluster version: the minor every member agrees to speak, which the leader raises (every few
 * seconds) only once every member runs the newer minor. It is not in the gRPC Status answer, so it
 * is read from a member's {@code GET /version} ({@code {"etcdserver":"3.5.16","etcdcluster":"3.5.0"}}),
 * over the same mutual TLS as everything else.
 */
public final class ClusterVersion {
    private ClusterVersion() {
    }

    /**
     * The cluster version a member reports ("3.5.0"), or empty when it does not answer. A blocking
     * HttpsURLConnection rather than java.net.http: the latter's selector thread would hold every
     * short command (status) 300 ms at JVM exit.
     */
    public static Optional<String> of(Health.Access access, String clientUrl, Duration timeout) {
        try {
            java.net.HttpURLConnection http = (java.net.HttpURLConnection) URI.create(clientUrl + "/version").toURL()
                    .openConnection();
            if (http instanceof javax.net.ssl.HttpsURLConnection https) {
                https.setSSLSocketFactory(sslContext(access).getSocketFactory());
            }
            http.setConnectTimeout((int) timeout.toMillis());
            http.setReadTimeout((int) timeout.toMillis());
            try {
                if (http.getResponseCode() != 200) {
                    return Optional.empty();
                }
                try (java.io.InputStream in = http.getInputStream()) {
                    JsonNode version = new ObjectMapper().readTree(in);
                    return Optional.ofNullable(version.path("etcdcluster").textValue()).filter(v -> !v.isEmpty());
                }
            } finally {
                http.disconnect();
            }
        } catch (IOException e) {
            return Optional.empty();
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

    private static SSLContext sslContext(Health.Access access) {
        TlsMaterial tls = access.tls();
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
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new EtcdAdminException("cannot set up TLS to read the cluster version: " + e.getMessage(), e);
        }
    }
}
