package io.etcdwright.modules.membership;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;

import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * The CA bundle, client certificate chain and client key, read once from PEM files with errors that
 * name the file and say what is wrong with it. Public for the test harnesses that talk to etcd as
 * independent clients (the write-load harness), so that they use the same TLS set-up.
 */
public record TlsMaterial(X509Certificate[] trustedCas, X509Certificate[] clientChain, PrivateKey clientKey) {

    private static final Pattern PEM_BLOCK =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*(.*?)-----END \\1-----", Pattern.DOTALL);

    public static TlsMaterial read(Path caCert, Path clientCert, Path clientKey) {
        X509Certificate[] cas = certificates(caCert, "CA certificate");
        X509Certificate[] chain = certificates(clientCert, "client certificate");
        PrivateKey key = privateKey(clientKey);
        return new TlsMaterial(cas, chain, key);
    }

    /**
     * A client TLS context for gRPC over HTTP/2, set up as gRPC's {@code GrpcSslContexts} sets it
     * up for the JDK's provider (HTTP/2 ciphers, ALPN "h2"), but without its provider search: that
     * search loads every security provider and probes for OpenSSL, a cost a one-shot command pays
     * on every run for nothing.
     */
    public SslContext clientContext() throws SSLException {
        return SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(new ApplicationProtocolConfig(
                        ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        "h2"))
                .trustManager(trustedCas)
                .keyManager(keyManagerFactory())
                .build();
    }

    /**
     * The client key and chain as a key manager. Netty's own {@code keyManager(PrivateKey, ...)}
     * stores the key in a password-protected PKCS#12 key store, whose PBKDF2 (10,000 HMAC rounds)
     * took about a fifth of the profile samples of a cold status; an in-memory JKS store protects
     * keys with a cheap obfuscation instead, and the JDK's key manager picks the key as before.
     */
    KeyManagerFactory keyManagerFactory() {
        try {
            char[] password = "in-memory".toCharArray();
            KeyStore store = KeyStore.getInstance("JKS");
            store.load(null, null);
            store.setKeyEntry("client", clientKey, password, clientChain);
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory;
        } catch (GeneralSecurityException | IOException e) {
            throw new EtcdAdminException("cannot use the client key with its certificate: " + e.getMessage(), e);
        }
    }

    /**
     * Whether the client key belongs to the client certificate. A wrong pair shows only as a vague
     * TLS alert from the server, so this is asked when a handshake failed, not up front: for an EC
     * key it means signing once, which costs a cold JVM tens of milliseconds.
     */
    boolean keyMatchesCertificate() {
        return matches(clientKey, clientChain[0]);
    }

    static boolean matches(PrivateKey key, X509Certificate certificate) {
        PublicKey publicKey = certificate.getPublicKey();
        if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
            return false;
        }
        if (key instanceof RSAKey rsaKey && publicKey instanceof RSAKey rsaPublic) {
            return rsaKey.getModulus().equals(rsaPublic.getModulus());
        }
        try {
            String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : key.getAlgorithm();
            byte[] probe = "etcdwright key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return true; // cannot tell here; the TLS handshake will
        }
    }

    private static X509Certificate[] certificates(Path file, String what) {
        String text = readText(file, what);
        if (!text.contains("-----BEGIN CERTIFICATE-----")) {
            throw new EtcdAdminException(what + " " + file + " holds no PEM certificate"
                    + " (expected a -----BEGIN CERTIFICATE----- block)");
        }
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            List<? extends Certificate> certs = List.copyOf(factory.generateCertificates(
                    new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII))));
            if (certs.isEmpty()) {
                throw new EtcdAdminException(what + " " + file + " holds no certificate");
            }
            return certs.stream().map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
        } catch (CertificateException e) {
            throw new EtcdAdminException(what + " " + file + " is not a valid PEM certificate: "
                    + e.getMessage(), e);
        }
    }

    /**
     * PKCS#8 ("BEGIN PRIVATE KEY"), EC or RSA, read with the JDK alone. The traditional OpenSSL
     * forms ("BEGIN EC PRIVATE KEY", "BEGIN RSA PRIVATE KEY", as cfssl and older openssl write)
     * are accepted too, through BouncyCastle. Encrypted keys are refused with a hint.
     */
    static PrivateKey privateKey(Path file) {
        String text = readText(file, "client key");
        Matcher m = PEM_BLOCK.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            switch (type) {
                case "PRIVATE KEY":
                    return pkcs8(file, Base64.getMimeDecoder().decode(m.group(2)));
                case "EC PRIVATE KEY":
                case "RSA PRIVATE KEY":
                    return traditional(file, m.group(0));
                case "ENCRYPTED PRIVATE KEY":
                    throw new EtcdAdminException("client key " + file + " is encrypted; etcdwright needs"
                            + " an unencrypted PKCS#8 PEM key (openssl pkcs8 -topk8 -nocrypt)");
                default:
                    // e.g. EC PARAMETERS before the key: keep looking
            }
        }
        throw new EtcdAdminException("client key " + file + " holds no PEM private key"
                + " (expected a -----BEGIN PRIVATE KEY----- block, PKCS#8, EC or RSA)");
    }

    private static PrivateKey pkcs8(Path file, byte[] der) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                // not this algorithm; try the next
            }
        }
        throw new EtcdAdminException("client key " + file + " is not a PKCS#8 EC or RSA private key");
    }

    private static PrivateKey traditional(Path file, String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object parsed = parser.readObject();
            if (parsed instanceof PEMKeyPair pair) {
                return new JcaPEMKeyConverter().getPrivateKey(pair.getPrivateKeyInfo());
            }
            throw new EtcdAdminException("client key " + file + " is not an EC or RSA private key");
        } catch (IOException e) {
            throw new EtcdAdminException("client key " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static String readText(Path file, String what) {
        try {
            // Latin-1 never fails to decode; PEM itself is ASCII, comments around it may not be.
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new EtcdAdminException(what + " " + file + " does not exist", e);
        } catch (IOException e) {
            throw new EtcdAdminException(what + " " + file + " cannot be read: " + e, e);
        }
    }
}
