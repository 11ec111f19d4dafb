package io.etcdwright.modules.membership;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Test certificates made with BouncyCastle: a CA, a server certificate for the etcd members
 * (SANs 127.0.0.1 and localhost, serverAuth + clientAuth, so it serves as peer certificate too),
 * and client certificates (clientAuth). ECDSA P-256 unless an RSA key is asked for; keys are
 * written as PKCS#8 PEM.
 */
final class TestPki {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A certificate and its key. */
    record Issued(X509Certificate certificate, PrivateKey key) {
        void write(Path certFile, Path keyFile) throws IOException {
            writePem(certFile, certificate);
            writeKey(keyFile, key);
        }
    }

    private TestPki() {
    }

    static KeyPair ecKey() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    static KeyPair rsaKey() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048, RANDOM);
        return g.generateKeyPair();
    }

    static Issued ca(String commonName) throws GeneralSecurityException {
        KeyPair kp = ecKey();
        X500Name name = new X500Name("CN=" + commonName);
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = builder(name, name, kp)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
            return new Issued(sign(b, kp.getPrivate()), kp.getPrivate());
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
    }

    /** A certificate for the etcd members: server and peer, on 127.0.0.1 and localhost. */
    static Issued server(Issued ca, String commonName) throws GeneralSecurityException {
        return issue(ca, commonName, ecKey(), true);
    }

    /** A client certificate (clientAuth only) for the given key. */
    static Issued client(Issued ca, String commonName, KeyPair kp) throws GeneralSecurityException {
        return issue(ca, commonName, kp, false);
    }

    private static Issued issue(Issued ca, String commonName, KeyPair kp, boolean server)
            throws GeneralSecurityException {
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X500Name issuer = X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded());
            X509v3CertificateBuilder b = builder(issuer, new X500Name("CN=" + commonName), kp)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true,
                            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            ext.createAuthorityKeyIdentifier(ca.certificate()));
            if (server) {
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.dNSName, "localhost")}));
            } else {
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            }
            return new Issued(sign(b, ca.key()), kp.getPrivate());
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair kp) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM).add(BigInteger.ONE),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))),
                subject, kp.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
            throws GeneralSecurityException {
        String algorithm = signer.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder(algorithm).build(signer)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    static void writePem(Path file, X509Certificate certificate) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
                JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(certificate);
        }
    }

    /** PKCS#8, unencrypted: "-----BEGIN PRIVATE KEY-----". */
    static void writeKey(Path file, PrivateKey key) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
                JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(new JcaPKCS8Generator(key, null));
        }
    }
}
