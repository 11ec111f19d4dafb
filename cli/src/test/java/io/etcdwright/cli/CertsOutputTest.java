package io.etcdwright.cli;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.source.YamlDocument;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.modules.pki.CertificateReport;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KeyAlgorithm;
import io.etcdwright.modules.pki.KeyFilesProbe;
import io.etcdwright.modules.pki.Pem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code certs}' JSON is what schemas/certs.schema.json says (every state: present, missing,
 * damaged, keys checked and not, a host not read), and its exit code is 2 only for an expiry in the
 * window and 1 when something could not be read.
 */
class CertsOutputTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final ClusterPki.MemberIdentity H1 = new ClusterPki.MemberIdentity("h1", "h1", "10.80.0.11");

    static ClusterPki pki(Path dir) {
        return new ClusterPki(new ClusterPki.Settings("demo", dir, Optional.empty(), Optional.empty(), KeyAlgorithm.ECDSA_P256,
                Duration.ofDays(365), Duration.ofDays(30), Duration.ofDays(3650), List.of()), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    /** The facts a host holding the workstation's copies answers (what the probes parse), one certificate damaged. */
    static CertificateReport.HostFiles hostWithCopies(ClusterPki pki) throws Exception {
        Map<String, FileState> certs = new LinkedHashMap<>();
        Map<String, KeyFilesProbe.KeyFile> keys = new LinkedHashMap<>();
        String ca = Files.readString(pki.caCertFile());
        certs.put(HostCertificates.certPath("ca"), present(HostCertificates.certPath("ca"), ca));
        ClusterPki.LocalPair server = pki.memberPair(H1, HostCertificates.SERVER);
        certs.put(HostCertificates.certPath("server"), present(HostCertificates.certPath("server"), Files.readString(server.cert())));
        String publicKey = CertificateReport.publicKeySha256(Pem.readCertificate(Files.readString(server.cert()), "server"));
        keys.put(HostCertificates.keyPath("server"), new KeyFilesProbe.KeyFile(HostCertificates.keyPath("server"), true, "0600",
                "etcd", "etcd", Optional.of(publicKey), Optional.empty()));
        certs.put(HostCertificates.certPath("peer"), present(HostCertificates.certPath("peer"), "-----BEGIN CERTIFICATE-----\nAAAA\n"));
        keys.put(HostCertificates.keyPath("peer"), new KeyFilesProbe.KeyFile(HostCertificates.keyPath("peer"), true, "0600",
                "etcd", "etcd", Optional.empty(), Optional.of("openssl is not installed on the host")));
        return new CertificateReport.HostFiles(certs, keys);
    }

    static FileState present(String path, String content) {
        return new FileState(path, true, HostSession.sha256(content.getBytes()), "0644", "root", "etcd", 0, Optional.of(content));
    }

    @Test
    void theJsonMatchesItsSchema(@TempDir Path dir) throws Exception {
        ClusterPki pki = pki(dir.resolve("pki"));
        pki.ensure(pki.memberPair(H1, HostCertificates.SERVER), pki.memberRequest(H1, HostCertificates.SERVER));
        pki.ensure(pki.clientPair(HostCertificates.ADMIN), pki.clientRequest(HostCertificates.ADMIN));
        List<CertificateReport.Entry> entries = new java.util.ArrayList<>(CertificateReport.workstation(pki, List.of(H1)));
        entries.addAll(CertificateReport.host("h1", pki, H1, hostWithCopies(pki)));
        Map<String, Object> doc = CertsCommand.document("demo", entries, Map.of("h2", "connection refused"), NOW,
                Optional.of(Duration.ofDays(400)));
        String json = Json.write(doc);

        List<Problem> problems = SchemaCheck.check(YamlDocument.parse(Path.of("certs.json"), json), "/schemas/certs.schema.json");
        assertEquals(List.of(), problems, json);
        assertEquals(1, doc.get("version"));
        String states = entries.stream().map(e -> e.location() + "/" + e.kind() + "=" + (e.certificate().isPresent() ? "present"
                : e.missing() ? "missing" : "damaged")).toList().toString();
        assertEquals("[workstation/ca=present, workstation/server=present, workstation/peer=missing, workstation/admin=present,"
                + " workstation/kube-apiserver-etcd-client=missing, h1/ca=present, h1/server=present, h1/peer=damaged]", states);
        assertTrue(json.contains("\"matches_certificate\" : true") || json.contains("\"matches_certificate\":true"), json);
        assertTrue(json.contains("openssl is not installed on the host"), json);
        assertTrue(!json.contains("PRIVATE KEY"), "no key material in the output");
        // Within 400 days: the workstation's server and admin certificates and h1's server copy (not the CA).
        assertEquals(3L, doc.get("expiring"));
        // The schema is no formality: a document of another version, or a key that leaked a field, fails it.
        assertEquals(1, SchemaCheck.check(YamlDocument.parse(Path.of("certs.json"), json.replaceFirst("\"version\" ?: ?1", "\"version\": 2")),
                "/schemas/certs.schema.json").size());
    }

    @Test
    void theExitCodeIsTwoOnlyForAnExpiryInTheWindowAndOneWhenSomethingWasNotRead(@TempDir Path dir) throws Exception {
        ClusterPki pki = pki(dir.resolve("pki"));
        pki.ensure(pki.memberPair(H1, HostCertificates.SERVER), pki.memberRequest(H1, HostCertificates.SERVER));
        List<CertificateReport.Entry> entries = CertificateReport.workstation(pki, List.of()).stream()
                .filter(e -> e.certificate().isPresent()).toList();
        entries = new java.util.ArrayList<>(entries);
        entries.addAll(CertificateReport.workstation(pki, List.of(H1)).stream()
                .filter(e -> e.kind().equals("server")).toList());
        assertEquals(Main.OK, CertsCommand.exitCode(entries, Map.of(), NOW, Optional.empty()), "no window: expiry is only shown");
        assertEquals(Main.OK, CertsCommand.exitCode(entries, Map.of(), NOW, Optional.of(Duration.ofDays(364))));
        assertEquals(Main.CHANGES, CertsCommand.exitCode(entries, Map.of(), NOW, Optional.of(Duration.ofDays(365))));
        assertEquals(Main.ERROR, CertsCommand.exitCode(entries, Map.of("h2", "timed out"), NOW, Optional.of(Duration.ofDays(365))),
                "a host not read may hide an expiry");
        List<String> text = CertsCommand.text(entries, Map.of("h2", "timed out"), NOW, Optional.of(Duration.ofDays(365)));
        assertTrue(text.contains("h2: NOT READ: timed out"), String.join("\n", text));
        assertTrue(text.get(text.size() - 1).startsWith("2 certificates; soonest expiry 2027-03-01T12:00:00Z (365 days): workstation "),
                text.get(text.size() - 1));
        assertTrue(text.get(text.size() - 1).endsWith("; 1 expiring within 365 days"), text.get(text.size() - 1));
    }
}
