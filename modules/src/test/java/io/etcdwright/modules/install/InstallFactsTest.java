package io.etcdwright.modules.install;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InstallFactsTest {
    @Test
    void parsesVersionsAsTheBinariesReportThem() {
        InstallFacts f = InstallFacts.PROBE.parse("""
                installed=3.4.23
                installed=3.5.16
                active=/opt/etcd/v3.5.16/etcd
                etcd=etcd Version: 3.5.16
                etcdctl=etcdctl version: 3.5.16
                etcdutl=etcdutl version: 3.5.16
                """);
        assertEquals(List.of("3.4.23", "3.5.16"), f.installedVersions());
        assertEquals(Optional.of("3.5.16"), f.activeVersion());
        assertTrue(f.isActive("3.5.16"));
        assertFalse(f.isActive("3.4.23"));
        assertTrue(InstallSteps.plan("h1", f, "3.5.16").isEmpty());
    }

    @Test
    void plansInstallOrActivationWithTheReason() {
        InstallFacts bare = InstallFacts.PROBE.parse("active=\n");
        assertEquals("+ install etcd 3.5.16 (not installed)",
                InstallSteps.plan("h1", bare, "3.5.16").orElseThrow().does(c -> null).line());
        InstallFacts old = InstallFacts.PROBE.parse("installed=3.4.23\ninstalled=3.5.16\nactive=/opt/etcd/v3.4.23/etcd\n"
                + "etcd=etcd Version: 3.4.23\netcdctl=etcdctl version: 3.4.23\n");
        assertEquals("~ activate etcd 3.5.16 (3.4.23 is active)",
                InstallSteps.plan("h1", old, "3.5.16").orElseThrow().does(c -> null).line());
    }

    @Test
    void findsTheTarballInUpstreamsChecksumsFile() {
        ReleaseArtifact a = ReleaseArtifact.of("3.5.16", "amd64",
                "https://example.invalid/v{version}/etcd-v{version}-linux-{arch}.tar.gz", Optional.of("https://example.invalid/v{version}/SHA256SUMS"),
                Optional.empty());
        assertEquals("https://example.invalid/v3.5.16/etcd-v3.5.16-linux-amd64.tar.gz", a.url());
        String sums = "0".repeat(64) + "  etcd-v3.5.16-darwin-amd64.zip\n" + "ab".repeat(32) + "  etcd-v3.5.16-linux-amd64.tar.gz\n";
        assertEquals(Optional.of("ab".repeat(32)), a.digestIn(sums));
        assertTrue(a.digestIn("garbage").isEmpty());
    }
}
