package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.FilesProbe;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CertificatesReadEarlyTest {
    private static final String CERT = "/etc/etcd/pki/server.crt";
    private static final String DAMAGED = "/etc/etcd/pki/peer.crt";
    private static final String CONFIG = "/etc/etcd/etcd.conf.yml";

    @Test
    void theHostsCertificatesAreParsedWithItsFactsAndTheFilesAreTheProbesOwn() {
        String pem = Pem.certificate(CertificateAuthority.generate("read early", KeyAlgorithm.ECDSA_P256,
                Duration.ofDays(30), Fixtures.CLOCK).certificate());
        String damaged = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        FilesProbe files = new FilesProbe("etcd_files", List.of(CONFIG, CERT, DAMAGED), Set.of(CONFIG, CERT, DAMAGED));
        CertificatesReadEarly early = new CertificatesReadEarly(files, Set.of(CERT, DAMAGED));
        assertEquals(files.name(), early.name());
        assertEquals(files.script(), early.script());
        assertEquals(files.arguments(), early.arguments());

        String output = file(0, "name: h1\n") + file(1, pem) + file(2, damaged);
        assertFalse(CertificateInfo.alreadyRead(pem));
        Map<String, FileState> parsed = early.parse(output);
        assertEquals(files.parse(output), parsed, "the files as the probe itself reads them");
        assertTrue(CertificateInfo.alreadyRead(pem), "the certificate was parsed with the facts");
        assertFalse(CertificateInfo.alreadyRead(damaged), "a damaged one is left to the check that reads it");
        assertFalse(CertificateInfo.alreadyRead("name: h1\n"), "only certificate paths are parsed");
    }

    private static String file(int index, String content) {
        return "@file " + index + "\nmeta=644 root root 1795297500.520641\n@file " + index + "\ncontent="
                + Base64.getEncoder().encodeToString(content.getBytes(StandardCharsets.UTF_8)) + "\n";
    }
}
