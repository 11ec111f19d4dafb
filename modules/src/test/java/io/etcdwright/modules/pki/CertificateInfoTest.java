package io.etcdwright.modules.pki;

import static io.etcdwright.modules.pki.Fixtures.CLOCK;
import static io.etcdwright.modules.pki.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CertificateInfoTest {
    private static final Duration YEAR = Duration.ofDays(365);
    private static CertificateAuthority ca;
    private static IssuedCertificate server;

    @BeforeAll
    static void issue() {
        ca = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), CLOCK);
        server = ca.issue(new CertificateRequest(Purpose.SERVER, "h1", List.of("etcd, members"), List.of("h1.etcd.example"),
                List.of("10.77.0.11", "FD00:0:0::11"), KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
    }

    @Test
    void readsWhatAPlanNeedsFromPem() throws Exception {
        CertificateInfo info = CertificateInfo.parse(server.certificatePem(), "h1:/etc/etcd/pki/server.crt");
        assertEquals("CN=h1,O=etcd\\, members", info.subject());
        assertEquals("h1", info.commonName());
        assertEquals(List.of("etcd, members"), info.organizations(), "unescaped text, not DN syntax");
        assertEquals("CN=etcd-ca demo", info.issuer());
        assertEquals(NOW.minus(Duration.ofMinutes(5)), info.notBefore());
        assertEquals(NOW.plus(YEAR), info.notAfter());
        assertEquals(List.of("h1.etcd.example"), info.dnsNames());
        assertEquals(List.of("10.77.0.11", "fd00::11"), info.ipAddresses());
        assertEquals(List.of("serverAuth", "clientAuth"), info.extKeyUsages());
        assertEquals("EC", info.keyAlgorithm());
        assertEquals(256, info.keyBits());
        assertEquals(server.certificate(), info.certificate());
        assertEquals(server.info(), info);
    }

    @Test
    void serialAndFingerprintAreInOpensslsNotation() throws Exception {
        CertificateInfo info = server.info();
        assertEquals(server.certificate().getSerialNumber(), new java.math.BigInteger(info.serialHex(), 16));
        assertTrue(info.serialHex().matches("([0-9A-F]{2})+"), info.serialHex());
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(server.certificate().getEncoded());
        assertEquals(HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest), info.sha256Fingerprint());
        assertTrue(info.sha256Fingerprint().matches("([0-9A-F]{2}:){31}[0-9A-F]{2}"), info.sha256Fingerprint());
    }

    @Test
    void aClientCertificateHasNoSansAndOnlyClientAuth() {
        CertificateInfo info = ca.issue(new CertificateRequest(Purpose.CLIENT, "admin", List.of(), List.of(), List.of(),
                KeyAlgorithm.RSA_2048, YEAR), CLOCK).info();
        assertEquals(List.of(), info.dnsNames());
        assertEquals(List.of(), info.ipAddresses());
        assertEquals(List.of(), info.organizations());
        assertEquals(List.of("clientAuth"), info.extKeyUsages());
        assertEquals("RSA", info.keyAlgorithm());
        assertEquals(2048, info.keyBits());
    }

    @Test
    void signedByChecksTheSignatureAgainstTheCaKey() {
        CertificateAuthority sameName = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        CertificateInfo info = server.info();
        assertTrue(info.signedBy(ca.certificate()));
        assertFalse(info.signedBy(sameName.certificate()), "same name, other key");
        assertFalse(info.signedBy(CertificateAuthority.generate("rsa", KeyAlgorithm.RSA_2048, YEAR, CLOCK).certificate()));
    }

    @Test
    void namesIssuerKeyOfComparesTheAuthorityKeyIdentifierWithTheCas() {
        CertificateAuthority sameName = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        assertTrue(server.info().namesIssuerKeyOf(ca.certificate()));
        assertFalse(server.info().namesIssuerKeyOf(sameName.certificate()), "same name, other key");
        assertFalse(CertificateInfo.of(ca.certificate()).namesIssuerKeyOf(ca.certificate()),
                "the self-signed CA has no authority key identifier");
    }

    @Test
    void daysUntilExpiryRoundsDownAndGoesNegativeOnceExpired() {
        CertificateInfo info = server.info();
        assertEquals(365, info.daysUntilExpiry(NOW));
        assertEquals(12, info.daysUntilExpiry(NOW.plus(Duration.ofDays(353)).minus(Duration.ofHours(20))));
        assertEquals(0, info.daysUntilExpiry(NOW.plus(YEAR)), "valid until the last second");
        assertEquals(-1, info.daysUntilExpiry(NOW.plus(YEAR).plusSeconds(1)));
        assertEquals(-3, info.daysUntilExpiry(NOW.plus(Duration.ofDays(368))));
    }

    @Test
    void garbageIsAClearErrorNamingTheSource() {
        PkiException empty = assertThrows(PkiException.class, () -> CertificateInfo.parse("", "h1:/etc/etcd/pki/server.crt"));
        assertTrue(empty.getMessage().startsWith("no PEM data in h1:/etc/etcd/pki/server.crt"), empty.getMessage());
        String pem = server.certificatePem();
        String corrupted = pem.substring(0, 100) + "!!!!" + pem.substring(104);
        PkiException damaged = assertThrows(PkiException.class, () -> CertificateInfo.parse(corrupted, "h1:/etc/etcd/pki/server.crt"));
        assertTrue(damaged.getMessage().startsWith("damaged "), damaged.getMessage());
        assertTrue(damaged.getMessage().contains("h1:/etc/etcd/pki/server.crt"), damaged.getMessage());
        PkiException noSource = assertThrows(PkiException.class, () -> CertificateInfo.parse("garbage"));
        assertTrue(noSource.getMessage().startsWith("no PEM data in certificate"), noSource.getMessage());
    }

    @Test
    void printsASummaryNotTheEncoding() {
        String printed = server.info().toString();
        assertTrue(printed.startsWith("CertificateInfo[CN=h1,O=etcd\\, members, issuer CN=etcd-ca demo, serial "), printed);
        assertTrue(printed.length() < 600, printed);
    }
}
