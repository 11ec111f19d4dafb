package io.etcdwright.modules.pki;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The certificate each endpoint actually serves, read from a TLS handshake: what matters for
 * expiry is what etcd presents, not the copy on the workstation or a file etcd has not reloaded.
 */
public final class ServedCertificates {
    private ServedCertificates() {
    }

    public static Map<String, OptionalLong> daysUntilExpiry(List<String> endpoints, Path caCert, Path clientCert,
                                                          Path clientKey, Duration timeout) {
        Map<String, OptionalLong> days = new LinkedHashMap<>();
        SSLContext context;
        try {
            context = context(caCert, clientCert, clientKey);
        } catch (Exception e) {
            endpoints.forEach(ep -> days.put(ep, OptionalLong.empty()));
            return days;
        }
        List<Map.Entry<String, OptionalLong>> results = endpoints.parallelStream()
                .map(ep -> Map.entry(ep, served(context, ep, timeout))).toList();
        results.forEach(e -> days.put(e.getKey(), e.getValue()));
        return days;
    }

    private static OptionalLong served(SSLContext context, String endpoint, Duration timeout) {
        URI uri = URI.create(endpoint);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            socket.startHandshake();
            Certificate[] chain = socket.getSession().getPeerCertificates();
            X509Certificate leaf = (X509Certificate) chain[0];
            return OptionalLong.of(Duration.between(Instant.now(), leaf.getNotAfter().toInstant()).toDays());
        } catch (Exception e) {
            return OptionalLong.empty();
        }
    }

    private static SSLContext context(Path caCert, Path clientCert, Path clientKey) throws Exception {
        X509Certificate ca = Pem.readCertificate(Pem.readFile(caCert, "CA certificate"), caCert.toString());
        X509Certificate cert = Pem.readCertificate(Pem.readFile(clientCert, "client certificate"), clientCert.toString());
        PrivateKey key = Pem.readPrivateKey(Pem.readFile(clientKey, "client key"), clientKey.toString());
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        char[] none = new char[0];
        keys.setKeyEntry("client", key, none, new Certificate[]{cert});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, none);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }
}
