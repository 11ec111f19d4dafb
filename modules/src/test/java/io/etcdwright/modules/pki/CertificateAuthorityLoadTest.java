package io.etcdwright.modules.pki;

import static io.etcdwright.modules.pki.Fixtures.CLOCK;
import static io.etcdwright.modules.pki.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bringing your own CA: the key formats operators have, and the mistakes they make at 3 a.m. */
class CertificateAuthorityLoadTest {
    private static final Duration YEAR = Duration.ofDays(365);

    @TempDir
    Path dir;

    @Test
    void loadsAnRsaCaWithAPkcs1Key() throws Exception {
        CertificateAuthority original = CertificateAuthority.generate("corp-rsa-ca", KeyAlgorithm.RSA_2048, YEAR, CLOCK);
        Path cert = write("ca.crt", original.certificatePem());
        Path key = write("ca.key", Fixtures.pkcs1Pem(pairOf(original)));
        assertLoadsAndSigns(original, cert, key);
    }

    @Test
    void loadsAnEcCaWithASec1Key() throws Exception {
        CertificateAuthority original = CertificateAuthority.generate("corp-ec-ca", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        Path cert = write("ca.crt", original.certificatePem());
        Path key = write("ca.key", Fixtures.sec1Pem(pairOf(original)));
        assertLoadsAndSigns(original, cert, key);
    }

    @Test
    void loadsAPkcs8KeyAndTheFirstCertificateOfABundle() throws Exception {
        CertificateAuthority original = CertificateAuthority.generate("corp-ca", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        CertificateAuthority root = CertificateAuthority.generate("corp-root", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        Path cert = write("bundle.crt", original.certificatePem() + root.certificatePem());
        Path key = write("ca.key", Pem.privateKey(original.privateKey()));
        assertLoadsAndSigns(original, cert, key);
    }

    @Test
    void refusesACertificateThatIsNotACa() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("corp-ca", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        IssuedCertificate leaf = ca.issue(new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of("h1"), List.of(),
                KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
        Path cert = write("ca.crt", leaf.certificatePem());
        Path key = write("ca.key", leaf.privateKeyPem());
        assertEquals("CA certificate " + cert + " (CN=h1) is not a CA: its basicConstraints do not say CA:TRUE,"
                + " so etcd would not accept certificates it signs", refusal(cert, key));
    }

    @Test
    void refusesACaWhoseKeyUsageForbidsSigningCertificates() throws Exception {
        KeyPair keys = KeyAlgorithm.ECDSA_P256.generateKeyPair();
        X500Name name = new X500Name("CN=tls-only-ca");
        var builder = new JcaX509v3CertificateBuilder(name, BigInteger.TEN, Date.from(NOW.minus(YEAR)), Date.from(NOW.plus(YEAR)),
                name, keys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
        Path cert = write("ca.crt", Pem.certificate(certificate));
        Path key = write("ca.key", Pem.privateKey(keys.getPrivate()));
        assertEquals("CA certificate " + cert + " (CN=tls-only-ca) may not sign certificates: its keyUsage lacks keyCertSign",
                refusal(cert, key));
    }

    @Test
    void refusesAKeyThatIsNotTheCertificates() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("corp-ca", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        CertificateAuthority other = CertificateAuthority.generate("corp-ca", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        Path cert = write("ca.crt", ca.certificatePem());
        Path key = write("ca.key", Pem.privateKey(other.privateKey()));
        assertEquals("CA key " + key + " does not match CA certificate " + cert + " (CN=corp-ca): the certificate holds"
                + " another public key; give the key it was made with", refusal(cert, key));

        Path rsaKey = write("rsa.key", Fixtures.pkcs1Pem(KeyAlgorithm.RSA_2048.generateKeyPair()));
        assertEquals("CA key " + rsaKey + " does not match CA certificate " + cert + " (CN=corp-ca): the certificate holds"
                + " another public key; give the key it was made with", refusal(cert, rsaKey));
    }

    @Test
    void refusesAnExpiredCa() throws Exception {
        CertificateAuthority old = CertificateAuthority.generate("old-ca", KeyAlgorithm.ECDSA_P256, YEAR,
                Fixtures.clockAt(NOW.minus(Duration.ofDays(400))));
        Path cert = write("ca.crt", old.certificatePem());
        Path key = write("ca.key", Pem.privateKey(old.privateKey()));
        assertEquals("CA certificate " + cert + " (CN=old-ca) expired on " + NOW.minus(Duration.ofDays(35))
                + ": nothing it signed verifies any more; renew it with the same key (its certificates then verify again)"
                + " or replace it", refusal(cert, key));
    }

    @Test
    void refusesACaThatIsNotValidYet() throws Exception {
        CertificateAuthority future = CertificateAuthority.generate("future-ca", KeyAlgorithm.ECDSA_P256, YEAR, Fixtures.daysLater(2));
        Path cert = write("ca.crt", future.certificatePem());
        Path key = write("ca.key", Pem.privateKey(future.privateKey()));
        assertEquals("CA certificate " + cert + " (CN=future-ca) is not valid until "
                + NOW.plus(Duration.ofDays(2)).minus(Duration.ofMinutes(5)) + " (is this machine's clock right?)", refusal(cert, key));
    }

    @Test
    void namesMissingAndSwappedFiles() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("corp-ca", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        Path cert = write("ca.crt", ca.certificatePem());
        Path key = write("ca.key", Pem.privateKey(ca.privateKey()));
        Path missing = dir.resolve("nope.key");
        assertEquals("CA key " + missing + " does not exist", refusal(cert, missing));
        assertEquals(key + " holds a private key, not a certificate (are the certificate and key paths swapped?)", refusal(key, cert));
    }

    private void assertLoadsAndSigns(CertificateAuthority original, Path cert, Path key) throws Exception {
        CertificateAuthority loaded = CertificateAuthority.load(cert, key, CLOCK);
        assertEquals(original.certificate(), loaded.certificate());
        IssuedCertificate issued = loaded.issue(new CertificateRequest(Purpose.PEER, "h1", List.of(), List.of("h1"),
                List.of("10.0.0.1"), KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
        CertificateAuthorityTest.validate(issued.certificate(), original.certificate());
    }

    private String refusal(Path cert, Path key) {
        return assertThrows(PkiException.class, () -> CertificateAuthority.load(cert, key, CLOCK)).getMessage();
    }

    private Path write(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content);
    }

    private static KeyPair pairOf(CertificateAuthority ca) {
        return new KeyPair(ca.certificate().getPublicKey(), ca.privateKey());
    }
}
