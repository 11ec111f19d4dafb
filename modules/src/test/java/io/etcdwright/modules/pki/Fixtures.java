package io.etcdwright.modules.pki;

import java.io.StringWriter;
import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.util.io.pem.PemObject;

/** Test fixtures made on the fly: fixed clocks and private keys in the traditional OpenSSL formats. */
final class Fixtures {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private Fixtures() {
    }

    static Clock clockAt(Instant instant) {
        return Clock.fixed(instant, ZoneOffset.UTC);
    }

    static Clock daysLater(long days) {
        return clockAt(NOW.plus(Duration.ofDays(days)));
    }

    /** "BEGIN RSA PRIVATE KEY" (PKCS#1), as {@code openssl genrsa -traditional} writes it. */
    static String pkcs1Pem(KeyPair pair) throws Exception {
        if (!(pair.getPrivate() instanceof RSAPrivateKey)) {
            throw new IllegalArgumentException("not an RSA key");
        }
        String pem = write(pair.getPrivate());
        if (!pem.startsWith("-----BEGIN RSA PRIVATE KEY-----")) {
            throw new IllegalStateException("BouncyCastle no longer writes PKCS#1: " + pem);
        }
        return pem;
    }

    /**
     * "BEGIN EC PRIVATE KEY" (SEC1) with the curve and public key inside, as {@code openssl ec} writes
     * it. Built by hand because BouncyCastle's writer, given a JDK key, leaves out the curve.
     */
    static String sec1Pem(KeyPair pair) throws Exception {
        ECPrivateKey key = (ECPrivateKey) pair.getPrivate();
        SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded());
        var sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, key.getS(), publicKey.getPublicKeyData(),
                publicKey.getAlgorithm().getParameters());
        return write(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
    }

    static String write(Object object) throws Exception {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        }
        return out.toString();
    }
}
