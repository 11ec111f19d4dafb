package io.etcdwright.modules.pki;

import static io.etcdwright.modules.pki.Fixtures.CLOCK;
import static io.etcdwright.modules.pki.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CertificateAuthorityTest {
    private static final Duration YEAR = Duration.ofDays(365);
    private static CertificateAuthority ca;

    @TempDir
    Path dir;

    @BeforeAll
    static void createCa() {
        ca = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), CLOCK);
    }

    static CertificateRequest server(KeyAlgorithm algorithm) {
        return new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of("h1.etcd.example", "localhost"),
                List.of("10.77.0.11", "127.0.0.1", "fd00::11"), algorithm, YEAR);
    }

    @Test
    void aGeneratedCaIsSelfSignedWithCriticalConstraintsAndKeyUsage() throws Exception {
        X509Certificate certificate = ca.certificate();
        assertEquals("CN=etcd-ca demo", certificate.getSubjectX500Principal().getName());
        assertEquals(certificate.getSubjectX500Principal(), certificate.getIssuerX500Principal());
        certificate.verify(certificate.getPublicKey());
        assertEquals(0, certificate.getBasicConstraints(), "CA:TRUE, pathlen 0");
        assertTrue(certificate.getCriticalExtensionOIDs().containsAll(Set.of(
                Extension.basicConstraints.getId(), Extension.keyUsage.getId())));
        boolean[] keyUsage = certificate.getKeyUsage();
        assertTrue(keyUsage[5] && keyUsage[6], "keyCertSign and cRLSign");
        assertFalse(keyUsage[0], "a CA does not sign TLS handshakes");
        assertNotNull(SubjectKeyIdentifier.fromExtensions(new JcaX509CertificateHolder(certificate).getExtensions()));
        assertEquals(NOW.minus(Duration.ofMinutes(5)), certificate.getNotBefore().toInstant());
        assertEquals(NOW.plus(Duration.ofDays(3650)), certificate.getNotAfter().toInstant());
        assertEquals("EC", certificate.getPublicKey().getAlgorithm());
        assertEquals("SHA256withECDSA", certificate.getSigAlgName());
    }

    @ParameterizedTest(name = "{0} CA signs a {1} {2} certificate")
    @CsvSource({
        "ECDSA_P256, ECDSA_P256, SERVER", "ECDSA_P256, ECDSA_P256, PEER", "ECDSA_P256, ECDSA_P256, CLIENT",
        "ECDSA_P256, RSA_2048, SERVER", "RSA_2048, ECDSA_P256, PEER", "RSA_2048, RSA_2048, CLIENT",
    })
    void chainsValidateWithJavasPkixValidator(KeyAlgorithm caAlgorithm, KeyAlgorithm leafAlgorithm, Purpose purpose) throws Exception {
        CertificateAuthority authority = caAlgorithm == KeyAlgorithm.ECDSA_P256 ? ca
                : CertificateAuthority.generate("rsa-ca", caAlgorithm, YEAR, CLOCK);
        List<String> dns = purpose == Purpose.CLIENT ? List.of() : List.of("h1.etcd.example");
        CertificateRequest request = new CertificateRequest(purpose, "h1", List.of(), dns, List.of(), leafAlgorithm, YEAR);
        IssuedCertificate issued = authority.issue(request, CLOCK);
        validate(issued.certificate(), authority.certificate());
    }

    @Test
    void aCertificateFromAnotherCaDoesNotValidate() {
        CertificateAuthority other = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        IssuedCertificate foreign = other.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK);
        assertThrows(CertPathValidatorException.class, () -> validate(foreign.certificate(), ca.certificate()));
    }

    @Test
    void serverAndPeerCertificatesCarryBothAuthUsagesAndTheRequestedSans() throws Exception {
        for (Purpose purpose : List.of(Purpose.SERVER, Purpose.PEER)) {
            CertificateRequest request = new CertificateRequest(purpose, "h1", List.of(), List.of("h1.etcd.example", "localhost"),
                    List.of("10.77.0.11", "127.0.0.1", "fd00::11"), KeyAlgorithm.ECDSA_P256, YEAR);
            X509Certificate certificate = ca.issue(request, CLOCK).certificate();
            assertEquals(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"), certificate.getExtendedKeyUsage(), purpose + " EKU");
            assertEquals(List.of(List.of(2, "h1.etcd.example"), List.of(2, "localhost"), List.of(7, "10.77.0.11"),
                    List.of(7, "127.0.0.1"), List.of(7, "fd00:0:0:0:0:0:0:11")), sans(certificate));
        }
    }

    @Test
    void clientCertificatesCarryClientAuthOnlyAndTheirOrganizations() throws Exception {
        CertificateRequest request = new CertificateRequest(Purpose.CLIENT, "kube-apiserver-etcd-client",
                List.of("system:masters"), List.of(), List.of(), KeyAlgorithm.ECDSA_P256, YEAR);
        X509Certificate certificate = ca.issue(request, CLOCK).certificate();
        assertEquals(List.of("1.3.6.1.5.5.7.3.2"), certificate.getExtendedKeyUsage());
        assertEquals("CN=kube-apiserver-etcd-client,O=system:masters", certificate.getSubjectX500Principal().getName());
        assertEquals(null, certificate.getSubjectAlternativeNames());
    }

    @Test
    void leafCertificatesAreNotCasAndUseKeyEnciphermentOnlyWithRsa() throws Exception {
        X509Certificate ec = ca.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK).certificate();
        X509Certificate rsa = ca.issue(server(KeyAlgorithm.RSA_2048), CLOCK).certificate();
        for (X509Certificate certificate : List.of(ec, rsa)) {
            assertEquals(-1, certificate.getBasicConstraints());
            assertTrue(certificate.getCriticalExtensionOIDs().containsAll(Set.of(
                    Extension.basicConstraints.getId(), Extension.keyUsage.getId())));
            assertTrue(certificate.getKeyUsage()[0], "digitalSignature");
            assertFalse(certificate.getKeyUsage()[5], "no keyCertSign");
            assertEquals("SHA256withECDSA", certificate.getSigAlgName(), "signed with the CA's key");
        }
        assertFalse(ec.getKeyUsage()[2], "an EC key cannot encipher");
        assertTrue(rsa.getKeyUsage()[2], "keyEncipherment for RSA key transport");
        assertEquals("RSA", rsa.getPublicKey().getAlgorithm());
    }

    @Test
    void authorityKeyIdentifierIsTheCasSubjectKeyIdentifier() throws Exception {
        X509Certificate certificate = ca.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK).certificate();
        byte[] caKeyId = SubjectKeyIdentifier.fromExtensions(new JcaX509CertificateHolder(ca.certificate()).getExtensions()).getKeyIdentifier();
        var holder = new JcaX509CertificateHolder(certificate);
        AuthorityKeyIdentifier aki = AuthorityKeyIdentifier.fromExtensions(holder.getExtensions());
        assertArrayEquals(caKeyId, aki.getKeyIdentifierOctets());
        assertEquals(null, aki.getAuthorityCertSerialNumber(), "not tied to the CA certificate's serial, so a renewed CA keeps its children");
        assertNotNull(SubjectKeyIdentifier.fromExtensions(holder.getExtensions()));
    }

    @Test
    void serialsAreRandomPositiveAndAtMost128Bits() {
        List<BigInteger> serials = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            BigInteger serial = ca.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK).certificate().getSerialNumber();
            assertTrue(serial.signum() > 0 && serial.bitLength() <= 128, serial.toString(16));
            serials.add(serial);
        }
        assertEquals(serials.size(), Set.copyOf(serials).size());
        assertTrue(serials.stream().anyMatch(s -> s.bitLength() > 120), "uses the full 128 bits");
    }

    @Test
    void validityStartsFiveMinutesEarlyForClockSkew() {
        X509Certificate certificate = ca.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK).certificate();
        assertEquals(NOW.minus(Duration.ofMinutes(5)), certificate.getNotBefore().toInstant());
        assertEquals(NOW.plus(YEAR), certificate.getNotAfter().toInstant());
    }

    @Test
    void writesCaCertificate0644AndKey0600AndLoadsThemBack() throws Exception {
        Path pki = dir.resolve("clusters/demo/pki");
        ca.writeTo(pki);
        assertEquals("rw-r--r--", SecureFilesTest.mode(pki.resolve("ca.crt")));
        assertEquals("rw-------", SecureFilesTest.mode(pki.resolve("ca.key")));
        assertTrue(Files.readString(pki.resolve("ca.key")).startsWith("-----BEGIN PRIVATE KEY-----\n"));
        CertificateAuthority loaded = CertificateAuthority.load(pki.resolve("ca.crt"), pki.resolve("ca.key"), CLOCK);
        assertEquals(ca.certificate(), loaded.certificate());
        validate(loaded.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK).certificate(), ca.certificate());
    }

    @Test
    void writingTheSameCaAgainIsHarmlessButAnotherCaIsRefused() throws Exception {
        ca.writeTo(dir);
        ca.writeTo(dir);
        String before = Files.readString(dir.resolve("ca.key"));
        CertificateAuthority other = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        PkiException e = assertThrows(PkiException.class, () -> other.writeTo(dir));
        assertEquals("refusing to overwrite " + dir.resolve("ca.key") + ": it holds another CA key, and replacing it would"
                + " orphan every certificate signed with it (move it away yourself to start a new CA)", e.getMessage());
        assertEquals(before, Files.readString(dir.resolve("ca.key")));
    }

    @Test
    void theSameCaKeyInAnotherEncodingIsNotAnotherCa() throws Exception {
        Files.writeString(dir.resolve("ca.key"), Fixtures.sec1Pem(new java.security.KeyPair(ca.certificate().getPublicKey(), ca.privateKey())));
        ca.writeTo(dir);
        assertTrue(Files.readString(dir.resolve("ca.key")).startsWith("-----BEGIN PRIVATE KEY-----\n"));
    }

    @Test
    void issuedCertificatesAreWrittenCertificate0644Key0600() throws Exception {
        IssuedCertificate issued = ca.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK);
        issued.writeTo(dir.resolve("h1/server.crt"), dir.resolve("h1/server.key"));
        assertEquals("rw-r--r--", SecureFilesTest.mode(dir.resolve("h1/server.crt")));
        assertEquals("rw-------", SecureFilesTest.mode(dir.resolve("h1/server.key")));
        assertEquals(issued.certificatePem(), Files.readString(dir.resolve("h1/server.crt")));
        assertArrayEquals(issued.privateKey().getEncoded(),
                Pem.readPrivateKey(Files.readString(dir.resolve("h1/server.key")), "server.key").getEncoded());
    }

    @Test
    void anIssuedCertificatePrintsWithoutItsKey() {
        IssuedCertificate issued = ca.issue(server(KeyAlgorithm.RSA_2048), CLOCK);
        String printed = issued.toString();
        assertTrue(printed.startsWith("IssuedCertificate[CN=h1, serial "), printed);
        assertFalse(printed.toLowerCase().contains("private"), printed);
        assertFalse(printed.contains(((java.security.interfaces.RSAPrivateKey) issued.privateKey()).getPrivateExponent().toString(16)));
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefused() {
        IssuedCertificate issued = ca.issue(server(KeyAlgorithm.ECDSA_P256), CLOCK);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new IssuedCertificate(issued.certificate(), KeyAlgorithm.ECDSA_P256.generateKeyPair().getPrivate()));
        assertEquals("the private key does not belong to certificate CN=h1", e.getMessage());
    }

    @Test
    void anExpiredCaIssuesNothing() {
        PkiException e = assertThrows(PkiException.class,
                () -> ca.issue(server(KeyAlgorithm.ECDSA_P256), Fixtures.daysLater(3651)));
        assertEquals("cannot issue h1: CA CN=etcd-ca demo expired on " + NOW.plus(Duration.ofDays(3650)), e.getMessage());
    }

    static void validate(X509Certificate leaf, X509Certificate root) throws Exception {
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(root, null)));
        parameters.setRevocationEnabled(false);
        parameters.setDate(Date.from(NOW));
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), parameters);
    }

    private static List<List<?>> sans(X509Certificate certificate) throws Exception {
        List<List<?>> result = new ArrayList<>();
        certificate.getSubjectAlternativeNames().forEach(name -> result.add(List.copyOf(name)));
        return result;
    }
}
