package io.etcdwright.modules.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificateRequestTest {
    private static final Duration YEAR = Duration.ofDays(365);

    @Test
    void namesAreCanonicalSoEqualRequestsCompareEqual() {
        CertificateRequest request = new CertificateRequest(Purpose.SERVER, " h1 ", List.of(),
                List.of("H1.Example", "h1.example", "localhost"), List.of("2001:DB8::0:1", "10.0.0.1", "10.0.0.1"),
                KeyAlgorithm.ECDSA_P256, YEAR);
        assertEquals("h1", request.commonName());
        assertEquals(List.of("h1.example", "localhost"), request.dnsNames());
        assertEquals(List.of("2001:db8::1", "10.0.0.1"), request.ipAddresses());
    }

    @Test
    void mixedSubjectAltNamesAreSortedIntoDnsNamesAndAddresses() {
        CertificateRequest request = CertificateRequest.ofSubjectAltNames(Purpose.PEER, "h1", List.of(),
                List.of("h1.example", "10.77.0.12", "::1", "*.etcd.example"), KeyAlgorithm.ECDSA_P256, YEAR);
        assertEquals(List.of("h1.example", "*.etcd.example"), request.dnsNames());
        assertEquals(List.of("10.77.0.12", "::1"), request.ipAddresses());
        assertEquals(request, CertificateRequest.of(Purpose.PEER, "h1", List.of(), List.of("h1.example", "*.etcd.example"),
                List.of("10.77.0.12", "0:0:0:0:0:0:0:1"), KeyAlgorithm.ECDSA_P256, YEAR));
    }

    @Test
    void refusalsSayWhichValueIsWrong() {
        assertEquals("ipAddresses: 'h1.example' is not an IPv4 or IPv6 address", refusal(() ->
                new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of(), List.of("h1.example"), KeyAlgorithm.DEFAULT, YEAR)));
        assertEquals("dnsNames: '10.0.0.1' is an IP address; put it in ipAddresses, where TLS clients look for addresses", refusal(() ->
                new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of("10.0.0.1"), List.of(), KeyAlgorithm.DEFAULT, YEAR)));
        assertEquals("dnsNames: 'h 1' is not a DNS name (letters, digits, '-', '_' and '.', optionally starting with '*.')", refusal(() ->
                new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of("h 1"), List.of(), KeyAlgorithm.DEFAULT, YEAR)));
        assertEquals("server certificate h1 needs at least one DNS name or IP address: etcd ignores the common name when checking hosts",
                refusal(() -> new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of(), List.of(), KeyAlgorithm.DEFAULT, YEAR)));
        assertEquals("certificate admin: validity must be positive, not PT0S", refusal(() ->
                new CertificateRequest(Purpose.CLIENT, "admin", List.of(), List.of(), List.of(), KeyAlgorithm.DEFAULT, Duration.ZERO)));
        assertEquals("a certificate needs a common name", refusal(() ->
                new CertificateRequest(Purpose.CLIENT, " ", List.of(), List.of(), List.of(), KeyAlgorithm.DEFAULT, YEAR)));
    }

    @Test
    void aClientCertificateNeedsNoSubjectAltNames() {
        CertificateRequest request = new CertificateRequest(Purpose.CLIENT, "kube-apiserver-etcd-client",
                List.of("system:masters"), List.of(), List.of(), KeyAlgorithm.DEFAULT, YEAR);
        assertEquals(List.of("system:masters"), request.organizations());
    }

    private static String refusal(org.junit.jupiter.api.function.Executable construction) {
        return assertThrows(IllegalArgumentException.class, construction).getMessage();
    }
}
