package io.etcdwright.modules.pki;

import static io.etcdwright.modules.pki.Fixtures.CLOCK;
import static io.etcdwright.modules.pki.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RenewalPolicyTest {
    private static final Duration YEAR = Duration.ofDays(365);
    private static final RenewalPolicy POLICY = RenewalPolicy.renewDaysBeforeExpiry(30);
    private static final CertificateRequest WANTED = new CertificateRequest(Purpose.SERVER, "h1", List.of(),
            List.of("h1.etcd.example"), List.of("10.77.0.11", "10.77.0.12"), KeyAlgorithm.ECDSA_P256, YEAR);

    private static CertificateAuthority ca;
    private static IssuedCertificate matching;

    @BeforeAll
    static void issue() {
        ca = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), CLOCK);
        matching = ca.issue(WANTED, CLOCK);
    }

    @Test
    void aMatchingCertificateIsCurrentSoNothingIsReissuedOnEveryRun() {
        assertEquals(CertificateVerdict.CURRENT, decide(matching, NOW));
        assertEquals(CertificateVerdict.CURRENT, decide(matching, NOW.plus(Duration.ofDays(334))), "31 days left");
        assertFalse(decide(matching, NOW).needsReissue());
    }

    @Test
    void aOneOffEvaluationDecidesTheSame() {
        assertEquals(CertificateVerdict.CURRENT,
                RenewalPolicy.evaluate(Optional.of(matching.info()), WANTED, ca.certificate(), NOW, Duration.ofDays(30)));
        assertReissue("expires in 12 days (renews 30 days before expiry)", RenewalPolicy.evaluate(Optional.of(matching.info()),
                WANTED, ca.certificate(), NOW.plus(Duration.ofDays(353)), Duration.ofDays(30)));
    }

    @Test
    void missing() {
        assertReissue("missing", POLICY.decide(Optional.empty(), WANTED, ca.certificate(), NOW));
    }

    @Test
    void aWantedSanThatIsMissing() {
        assertReissue("SAN 10.77.0.12 missing", decide(issue(WANTED.ipAddresses().subList(0, 1), List.of("h1.etcd.example")), NOW));
        assertReissue("SANs h1.etcd.example, 10.77.0.12 missing", decide(issue(List.of("10.77.0.11"), List.of()), NOW));
    }

    @Test
    void aSanThatIsNoLongerWanted() {
        assertReissue("SAN old.example no longer wanted",
                decide(issue(WANTED.ipAddresses(), List.of("h1.etcd.example", "old.example")), NOW));
    }

    @Test
    void signedByAnotherCa() {
        CertificateAuthority other = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        assertReissue("signed by another CA", decide(other.issue(WANTED, CLOCK), NOW));
    }

    @Test
    void expiringWithinTheRenewalWindow() {
        assertReissue("expires in 12 days (renews 30 days before expiry)", decide(matching, NOW.plus(Duration.ofDays(353))));
        assertReissue("expires in 30 days (renews 30 days before expiry)", decide(matching, NOW.plus(Duration.ofDays(335))));
        assertReissue("expires in 7 hours (renews 30 days before expiry)", decide(matching, NOW.plus(YEAR).minus(Duration.ofHours(7))));
    }

    @Test
    void expired() {
        assertReissue("expired 3 days ago", decide(matching, NOW.plus(Duration.ofDays(368))));
        assertReissue("expired 1 day ago", decide(matching, NOW.plus(Duration.ofDays(366)).plusSeconds(3600)));
        assertReissue("expired 2 minutes ago", decide(matching, NOW.plus(YEAR).plusSeconds(150)));
    }

    @Test
    void notValidYet() {
        IssuedCertificate future = ca.issue(WANTED, Fixtures.daysLater(2));
        assertReissue("not valid until " + NOW.plus(Duration.ofDays(2)).minus(Duration.ofMinutes(5)), decide(future, NOW));
    }

    @Test
    void lacksClientAuthUsage() throws Exception {
        X509Certificate serverAuthOnly = craft(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth}, "h1.etcd.example");
        assertReissue("lacks clientAuth usage", decide(serverAuthOnly, NOW));
        X509Certificate noUsages = craft(null, "h1.etcd.example");
        assertReissue("lacks serverAuth and clientAuth usages", decide(noUsages, NOW));
    }

    @Test
    void aServerCertificateWhereAClientOneIsWanted() {
        CertificateRequest client = new CertificateRequest(Purpose.CLIENT, "h1", List.of(), List.of(), List.of(), KeyAlgorithm.ECDSA_P256, YEAR);
        assertReissue("SANs h1.etcd.example, 10.77.0.11, 10.77.0.12 no longer wanted; has serverAuth usage, not wanted",
                POLICY.decide(Optional.of(matching.info()), client, ca.certificate(), NOW));
    }

    @Test
    void anotherCommonName() {
        IssuedCertificate old = ca.issue(new CertificateRequest(Purpose.SERVER, "h1-old", List.of(), WANTED.dnsNames(),
                WANTED.ipAddresses(), KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
        assertReissue("CN h1-old, want h1", decide(old, NOW));
    }

    @Test
    void otherOrganizations() {
        CertificateRequest wanted = new CertificateRequest(Purpose.CLIENT, "kube", List.of("system:masters", "etcd"),
                List.of(), List.of(), KeyAlgorithm.ECDSA_P256, YEAR);
        IssuedCertificate reordered = ca.issue(new CertificateRequest(Purpose.CLIENT, "kube", List.of("etcd", "system:masters"),
                List.of(), List.of(), KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
        assertEquals(CertificateVerdict.CURRENT, POLICY.decide(Optional.of(reordered.info()), wanted, ca.certificate(), NOW));
        IssuedCertificate none = ca.issue(new CertificateRequest(Purpose.CLIENT, "kube", List.of(), List.of(), List.of(),
                KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
        assertReissue("O (none), want system:masters+etcd", POLICY.decide(Optional.of(none.info()), wanted, ca.certificate(), NOW));
    }

    @Test
    void anotherKeyAlgorithmOrSize() {
        IssuedCertificate rsa = ca.issue(withKey(KeyAlgorithm.RSA_2048), CLOCK);
        assertReissue("key algorithm RSA, want EC", decide(rsa, NOW));
        assertReissue("key size 2048 bits, want 4096",
                POLICY.decide(Optional.of(rsa.info()), withKey(KeyAlgorithm.RSA_4096), ca.certificate(), NOW));
    }

    @Test
    void everyDifferenceIsNamedInOneLine() {
        CertificateAuthority other = CertificateAuthority.generate("other", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        IssuedCertificate wrong = other.issue(new CertificateRequest(Purpose.CLIENT, "h1-old", List.of(), List.of("old.example"),
                List.of(), KeyAlgorithm.RSA_2048, YEAR), CLOCK);
        assertReissue("signed by another CA; expired 3 days ago; CN h1-old, want h1; SANs h1.etcd.example, 10.77.0.11,"
                + " 10.77.0.12 missing; SAN old.example no longer wanted; lacks serverAuth usage; key algorithm RSA, want EC",
                decide(wrong, NOW.plus(Duration.ofDays(368))));
    }

    @Test
    void withoutKeyIdentifiersTheSignatureDecides() throws Exception {
        // craft() writes no authority key identifier, as other tools may not.
        assertEquals(CertificateVerdict.CURRENT, decide(craft(Purpose.SERVER.keyPurposeIds(), "h1.etcd.example"), NOW));
        CertificateAuthority sameName = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        assertReissue("signed by another CA",
                decide(craft(Purpose.SERVER.keyPurposeIds(), "h1.etcd.example", sameName.privateKey()), NOW));
    }

    @Test
    void dnsNamesCompareWithoutCase() throws Exception {
        assertEquals(CertificateVerdict.CURRENT, decide(craft(Purpose.SERVER.keyPurposeIds(), "H1.Etcd.Example"), NOW));
    }

    @Test
    void aReissuedCertificateIsCurrentAtOnce() {
        CertificateAuthority other = CertificateAuthority.generate("other", KeyAlgorithm.ECDSA_P256, YEAR, CLOCK);
        for (IssuedCertificate stale : List.of(other.issue(WANTED, CLOCK), ca.issue(withKey(KeyAlgorithm.RSA_2048), CLOCK),
                issue(List.of("10.77.0.11"), List.of("old.example")))) {
            assertTrue(decide(stale, NOW).needsReissue());
            assertEquals(CertificateVerdict.CURRENT, decide(ca.issue(WANTED, CLOCK), NOW));
        }
        Instant later = NOW.plus(Duration.ofDays(353));
        assertTrue(decide(matching, later).needsReissue());
        assertEquals(CertificateVerdict.CURRENT, decide(ca.issue(WANTED, Fixtures.clockAt(later)), later));
    }

    @Test
    void fromPemText() {
        String source = "h1:/etc/etcd/pki/server.crt";
        assertReissue("missing", POLICY.decideForPem(Optional.empty(), source, WANTED, ca.certificate(), NOW));
        assertEquals(CertificateVerdict.CURRENT,
                POLICY.decideForPem(Optional.of(matching.certificatePem()), source, WANTED, ca.certificate(), NOW));
        CertificateVerdict garbage = POLICY.decideForPem(Optional.of("oops"), source, WANTED, ca.certificate(), NOW);
        assertTrue(garbage instanceof CertificateVerdict.Reissue r
                && r.reason().startsWith("unreadable: no PEM data in h1:/etc/etcd/pki/server.crt"), garbage.toString());
    }

    @Test
    void aRenewalWindowAsLongAsTheValidityIsRefused() {
        RenewalPolicy tooEager = RenewalPolicy.renewDaysBeforeExpiry(365);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> tooEager.decide(Optional.of(matching.info()), WANTED, ca.certificate(), NOW));
        assertEquals("certificate h1: validity 365 days is not longer than renewBefore 365 days, so it would be re-issued"
                + " on every run", e.getMessage());
    }

    private static CertificateRequest withKey(KeyAlgorithm algorithm) {
        return new CertificateRequest(WANTED.purpose(), WANTED.commonName(), WANTED.organizations(), WANTED.dnsNames(),
                WANTED.ipAddresses(), algorithm, YEAR);
    }

    private static IssuedCertificate issue(List<String> ipAddresses, List<String> dnsNames) {
        return ca.issue(new CertificateRequest(Purpose.SERVER, "h1", List.of(), dnsNames, ipAddresses, KeyAlgorithm.ECDSA_P256, YEAR), CLOCK);
    }

    private static CertificateVerdict decide(IssuedCertificate existing, Instant now) {
        return decide(existing.certificate(), now);
    }

    private static CertificateVerdict decide(X509Certificate existing, Instant now) {
        return POLICY.decide(Optional.of(CertificateInfo.of(existing)), WANTED, ca.certificate(), now);
    }

    /** A reissue for {@code reason}: a renewal (the same certificate again, routine) when time is its only reason. */
    private static void assertReissue(String reason, CertificateVerdict verdict) {
        boolean timeOnly = java.util.Arrays.stream(reason.split("; "))
                .allMatch(r -> r.startsWith("expires in ") || r.startsWith("expired ") || r.startsWith("not valid until "));
        assertEquals(new CertificateVerdict.Reissue(reason, timeOnly), verdict);
    }

    /** A certificate from the test CA that {@link CertificateAuthority#issue} would never make. */
    private static X509Certificate craft(KeyPurposeId[] usages, String dnsName) throws Exception {
        return craft(usages, dnsName, ca.privateKey());
    }

    /** As {@link #craft(KeyPurposeId[], String)}, naming the test CA as issuer but signed with {@code signer}. */
    private static X509Certificate craft(KeyPurposeId[] usages, String dnsName, PrivateKey signer) throws Exception {
        KeyPair keys = KeyAlgorithm.ECDSA_P256.generateKeyPair();
        var builder = new JcaX509v3CertificateBuilder(ca.certificate(), CertificateAuthority.randomSerial(),
                Date.from(NOW.minus(Duration.ofMinutes(5))), Date.from(NOW.plus(YEAR)), new X500Name("CN=h1"), keys.getPublic());
        if (usages != null) {
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usages));
        }
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, dnsName),
                new GeneralName(GeneralName.iPAddress, "10.77.0.11"),
                new GeneralName(GeneralName.iPAddress, "10.77.0.12")}));
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    }
}
