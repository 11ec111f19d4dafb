package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.FilesProbe;
import io.etcdwright.engine.ssh.LocalHost;
import io.etcdwright.engine.ssh.RemoteCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The certificate inventory from a real PKI directory, and a "host" that is a directory here read by
 * the probes' own shell code in a real /bin/sh with the real openssl: the key's public half is
 * derived where the key is, and compared with the certificate's.
 */
class CertificateReportTest {
    static final ClusterPki.MemberIdentity H1 = new ClusterPki.MemberIdentity("h1", "h1", "10.80.0.11");

    static ClusterPki pki(Path dir, java.time.Clock clock) {
        return new ClusterPki(new ClusterPki.Settings("demo", dir, Optional.empty(), Optional.empty(), KeyAlgorithm.ECDSA_P256,
                Duration.ofDays(365), Duration.ofDays(30), Duration.ofDays(3650), List.of()), clock);
    }

    /** Issues everything a member holds and copies it into {@code host}, as an apply would. */
    static Map<String, Path> issueAndCopy(ClusterPki pki, Path host) throws Exception {
        pki.ensureCa();
        Map<String, Path> onHost = new LinkedHashMap<>();
        Files.createDirectories(host);
        Files.copy(pki.caCertFile(), host.resolve("ca.crt"));
        onHost.put(HostCertificates.certPath(HostCertificates.CA), host.resolve("ca.crt"));
        for (String role : HostCertificates.KEYED) {
            ClusterPki.LocalPair pair = role.equals(HostCertificates.ADMIN) || role.equals(HostCertificates.APISERVER)
                    ? pki.clientPair(role) : pki.memberPair(H1, role);
            pki.ensure(pair, role.equals(HostCertificates.ADMIN) || role.equals(HostCertificates.APISERVER)
                    ? pki.clientRequest(role) : pki.memberRequest(H1, role));
            Files.copy(pair.cert(), host.resolve(role + ".crt"));
            Files.copy(pair.key(), host.resolve(role + ".key"));
            Files.setPosixFilePermissions(host.resolve(role + ".key"), PosixFilePermissions.fromString("rw-------"));
            onHost.put(HostCertificates.certPath(role), host.resolve(role + ".crt"));
            onHost.put(HostCertificates.keyPath(role), host.resolve(role + ".key"));
        }
        return onHost;
    }

    /** Runs both probes over the local copies and files the answers under the paths a host has. */
    static CertificateReport.HostFiles read(Path work, Map<String, Path> onHost) throws Exception {
        List<String> certs = HostCertificates.certPaths().stream().map(p -> onHost.getOrDefault(p, Path.of("/nonexistent" + p)).toString()).toList();
        List<String> keys = HostCertificates.keyPaths().stream().map(p -> onHost.getOrDefault(p, Path.of("/nonexistent" + p)).toString()).toList();
        FilesProbe certProbe = new FilesProbe("certificate-files", certs, new LinkedHashSet<>(certs));
        KeyFilesProbe keyProbe = new KeyFilesProbe("key-files", keys);
        LocalHost sh = new LocalHost(work);
        LocalHost.Run certRun = sh.run(new RemoteCommand.Script(certProbe.script(), certProbe.arguments()), new byte[0], false);
        LocalHost.Run keyRun = sh.run(new RemoteCommand.Script(keyProbe.script(), keyProbe.arguments()), new byte[0], false);
        assertEquals(0, keyRun.exitCode(), keyRun.stderr());
        Map<String, FileState> certFiles = new LinkedHashMap<>();
        certProbe.parse(certRun.stdout()).forEach((local, state) ->
                certFiles.put(HostCertificates.certPaths().get(certs.indexOf(local)), state));
        Map<String, KeyFilesProbe.KeyFile> keyFiles = new LinkedHashMap<>();
        keyProbe.parse(keyRun.stdout()).forEach((local, state) -> {
            String hostPath = HostCertificates.keyPaths().get(keys.indexOf(local));
            keyFiles.put(hostPath, new KeyFilesProbe.KeyFile(hostPath, state.exists(), state.mode(), state.owner(), state.group(),
                    state.publicKeySha256(), state.notChecked()));
        });
        return new CertificateReport.HostFiles(certFiles, keyFiles);
    }

    @Test
    void aConvergedHostsCopiesAreTheWorkstationsAndEachKeyBelongsToItsCertificate(@TempDir Path dir) throws Exception {
        ClusterPki pki = pki(dir.resolve("pki"), Fixtures.CLOCK);
        Map<String, Path> onHost = issueAndCopy(pki, dir.resolve("host"));
        List<CertificateReport.Entry> entries = CertificateReport.host("h1", pki, H1, read(dir, onHost));

        assertEquals(List.of("ca", "server", "peer", "admin", "kube-apiserver-etcd-client"),
                entries.stream().map(CertificateReport.Entry::kind).toList());
        for (CertificateReport.Entry e : entries) {
            assertEquals(Optional.of(true), e.matchesWorkstation(), e.toString());
            if (!e.kind().equals("ca")) {
                CertificateReport.Key key = e.key().orElseThrow();
                assertEquals(Optional.of(true), key.matchesCertificate(), e.kind() + ": " + key);
                assertEquals("0600", key.mode());
            }
        }
        CertificateInfo server = entries.get(1).certificate().orElseThrow();
        assertTrue(server.ipAddresses().contains("10.80.0.11"), server.toString());
        assertEquals(Optional.of("h1"), entries.get(1).member());
    }

    @Test
    void aRenewedWorkstationCopyAndAKeyOfAnotherCertificateAreCalledOut(@TempDir Path dir) throws Exception {
        ClusterPki pki = pki(dir.resolve("pki"), Fixtures.CLOCK);
        Map<String, Path> onHost = issueAndCopy(pki, dir.resolve("host"));
        // The peer key on the host is swapped for the server's; the server certificate is renewed
        // on the workstation (340 days on, within renewBefore) but not yet copied.
        Files.copy(onHost.get(HostCertificates.keyPath(HostCertificates.SERVER)),
                onHost.get(HostCertificates.keyPath(HostCertificates.PEER)), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        ClusterPki later = pki(dir.resolve("pki"), Fixtures.daysLater(340));
        assertTrue(later.ensure(later.memberPair(H1, HostCertificates.SERVER), later.memberRequest(H1, HostCertificates.SERVER)));

        List<CertificateReport.Entry> entries = CertificateReport.host("h1", later, H1, read(dir, onHost));
        CertificateReport.Entry server = entries.get(1);
        CertificateReport.Entry peer = entries.get(2);
        assertEquals(Optional.of(false), server.matchesWorkstation(), "the host still has the old server certificate");
        assertEquals(Optional.of(true), server.key().orElseThrow().matchesCertificate(), "its key is still its own");
        assertEquals(Optional.of(true), peer.matchesWorkstation());
        assertEquals(Optional.of(false), peer.key().orElseThrow().matchesCertificate(), "the peer key is the server's");
        List<String> text = CertificateReport.text(peer, Fixtures.NOW, Optional.empty());
        assertTrue(String.join("\n", text).contains("DOES NOT MATCH the certificate"), String.join("\n", text));
        // The old host copy is 25 days from expiry at day 340: within 30 days, not within 20.
        assertTrue(server.expiresWithin(Fixtures.NOW.plus(Duration.ofDays(340)), Duration.ofDays(30)));
        assertFalse(server.expiresWithin(Fixtures.NOW.plus(Duration.ofDays(340)), Duration.ofDays(20)));
    }

    @Test
    void missingRequiredFilesAreListedAndAKeyOpensslCannotReadIsNotChecked(@TempDir Path dir) throws Exception {
        ClusterPki pki = pki(dir.resolve("pki"), Fixtures.CLOCK);
        Map<String, Path> onHost = issueAndCopy(pki, dir.resolve("host"));
        Files.delete(onHost.remove(HostCertificates.certPath(HostCertificates.PEER)));
        Files.delete(onHost.remove(HostCertificates.certPath(HostCertificates.ADMIN)));
        Files.writeString(onHost.get(HostCertificates.keyPath(HostCertificates.SERVER)), "not a key\n");

        List<CertificateReport.Entry> entries = CertificateReport.host("h1", pki, H1, read(dir, onHost));
        assertEquals(List.of("ca", "server", "peer", "kube-apiserver-etcd-client"),
                entries.stream().map(CertificateReport.Entry::kind).toList(), "a client certificate a host lacks is no gap");
        assertTrue(entries.get(2).missing());
        assertFalse(entries.get(2).damaged());
        CertificateReport.Key serverKey = entries.get(1).key().orElseThrow();
        assertEquals(Optional.empty(), serverKey.matchesCertificate());
        assertEquals(Optional.of("openssl on the host could not read the key"), serverKey.notChecked());
    }

    @Test
    void theWorkstationListsCaMembersAndClientsWithTheirKeysCheckedHere(@TempDir Path dir) throws Exception {
        ClusterPki pki = pki(dir.resolve("pki"), Fixtures.CLOCK);
        issueAndCopy(pki, dir.resolve("host"));
        List<CertificateReport.Entry> entries = CertificateReport.workstation(pki, List.of(H1,
                new ClusterPki.MemberIdentity("h2", "h2", "10.80.0.12")));
        assertEquals(List.of("ca", "server", "peer", "server", "peer", "admin", "kube-apiserver-etcd-client"),
                entries.stream().map(CertificateReport.Entry::kind).toList());
        assertEquals(Optional.of(true), entries.get(0).key().orElseThrow().matchesCertificate(), "ca.key belongs to ca.crt");
        assertEquals("0600", entries.get(0).key().orElseThrow().mode());
        assertTrue(entries.get(3).missing(), "h2 was never issued anything");
        assertEquals(3650, entries.get(0).certificate().orElseThrow().daysUntilExpiry(Fixtures.NOW));
    }
}
