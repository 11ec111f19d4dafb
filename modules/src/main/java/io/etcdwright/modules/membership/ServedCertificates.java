package io.etcdwright.modules.membership;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The certificate each endpoint actually serves, read from a TLS handshake: what matters for
 * expiry is what etcd presents, not the workstation's copy or a file etcd has not reloaded.
 */
public final class ServedCertificates {
    private ServedCertificates() {
    }

    /** Days until the served certificate expires, per endpoint; empty where no handshake succeeded. */
    public static Map<String, OptionalLong> daysUntilExpiry(List<String> endpoints, Path caCert, Path clientCert,
                                                          Path clientKey, Duration timeout) {
        Map<String, OptionalLong> days = new LinkedHashMap<>();
        served(endpoints, caCert, clientCert, clientKey, timeout).forEach((ep, leaf) -> days.put(ep, leaf
                .map(c -> OptionalLong.of(Duration.between(Instant.now(), c.getNotAfter().toInstant()).toDays()))
                .orElse(OptionalLong.empty())));
        return days;
    }

    /**
     * The certificate each endpoint presents in a fresh TLS handshake (client or peer URLs alike),
     * per endpoint; empty where no handshake succeeded.
     */
    public static Map<String, Optional<X509Certificate>> served(List<String> endpoints, Path caCert, Path clientCert,
                                                                Path clientKey, Duration timeout) {
        Map<String, Optional<X509Certificate>> served = new LinkedHashMap<>();
        SSLContext context;
        try {
            context = context(TlsMaterial.read(caCert, clientCert, clientKey));
        } catch (Exception e) {
            endpoints.forEach(ep -> served.put(ep, Optional.empty()));
            return served;
        }
        endpoints.parallelStream().map(ep -> Map.entry(ep, served(context, ep, timeout))).toList()
                .forEach(e -> served.put(e.getKey(), e.getValue()));
        return served;
    }

    private static Optional<X509Certificate> served(SSLContext context, String endpoint, Duration timeout) {
        URI uri = URI.create(endpoint);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            socket.startHandshake();
            return Optional.of((X509Certificate) socket.getSession().getPeerCertificates()[0]);
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static SSLContext context(TlsMaterial tls) throws Exception {
        KeyStore trust = KeyStore.getInstance("JKS");
        trust.load(null, null);
        for (int i = 0; i < tls.trustedCas().length; i++) {
            trust.setCertificateEntry("ca" + i, tls.trustedCas()[i]);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(tls.keyManagerFactory().getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }
}
