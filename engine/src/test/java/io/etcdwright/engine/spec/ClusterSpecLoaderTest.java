package io.etcdwright.engine.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.engine.source.Fixtures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterSpecLoaderTest {

    private static final String MINIMAL = """
            cluster:
              name: demo
            etcd:
              version: 3.5.16
            """;

    @TempDir
    Path dir;

    private ClusterSpec load(String yaml) {
        return ClusterSpecLoader.load(Fixtures.write(dir, "specs/demo.yaml", yaml));
    }

    @Test
    void aMinimalSpecGetsEveryDefaultOfTheDocument() {
        ClusterSpec spec = load(MINIMAL);
        assertEquals("demo", spec.name());
        assertEquals(Members.ofGroup("etcd"), spec.members());
        assertEquals(new EtcdSettings("3.5.16", new Ports(2379, 2380, OptionalInt.empty()), "/var/lib/etcd", Map.of()), spec.etcd());
        assertEquals(Artifacts.defaults(), spec.artifacts());
        assertEquals(ArtifactSource.PUSH, spec.artifacts().source());
        assertEquals(Tls.defaults(), spec.tls());
        assertEquals(new Pki(Optional.empty(), Optional.empty(), Optional.empty(), "ecdsa-p256", 365, 30, 3650, List.of()),
                spec.tls().pki());
        assertEquals(Optional.empty(), spec.backup());
    }

    @Test
    void theThreeNodeSampleLoads() {
        ClusterSpec spec = ClusterSpecLoader.load(Fixtures.resource("specs/three-nodes.yaml"));
        assertEquals(OptionalInt.of(2381), spec.etcd().ports().metrics());
        assertEquals(Map.of("heartbeat-interval", 100, "election-timeout", 1000), spec.etcd().settings());
        assertEquals(new BackupPolicy(new BackupStore.Directory("/var/backups/etcd"), 60, BackupPolicy.Retention.defaults(),
                Optional.empty()), spec.backup().orElseThrow());
    }

    @Test
    void defaultTemplatesPointAtUpstreamReleases() {
        Artifacts artifacts = load(MINIMAL).artifacts();
        assertEquals("https://github.com/etcd-io/etcd/releases/download/v3.5.16/etcd-v3.5.16-linux-arm64.tar.gz",
                artifacts.url("3.5.16", "arm64"));
        assertEquals(Optional.of("https://github.com/etcd-io/etcd/releases/download/v3.5.16/SHA256SUMS"),
                artifacts.checksumsUrl("3.5.16", "amd64"));
        assertEquals(Optional.empty(), artifacts.pinnedSha256("3.5.16"));
    }

    @Test
    void pinnedDigestsAndNoChecksumsFile() {
        String digest = "3F1C" + "a".repeat(60);
        Artifacts artifacts = load(MINIMAL + """
                artifacts:
                  source: fetch
                  url: https://mirror.example/etcd/{version}/etcd-{arch}.tgz
                  checksumsUrl: null
                  sha256:
                    3.5.16: %s
                """.formatted(digest)).artifacts();
        assertEquals(ArtifactSource.FETCH, artifacts.source());
        assertEquals("https://mirror.example/etcd/3.5.16/etcd-amd64.tgz", artifacts.url("3.5.16", "amd64"));
        assertEquals(Optional.empty(), artifacts.checksumsUrl("3.5.16", "amd64"));
        assertEquals(Optional.of(digest.toLowerCase()), artifacts.pinnedSha256("3.5.16"));
    }

    @Test
    void membersAsHostsKeepTheirOrder() {
        assertEquals(Members.ofHosts(List.of("h3", "h1", "h2")), load(MINIMAL + "members:\n  hosts: [h3, h1, h2]\n").members());
    }

    @Test
    void pathsAreRelativeToTheSpecFile() {
        Fixtures.write(dir, "specs/ca/my-ca.crt", "cert");
        Fixtures.write(dir, "specs/ca/my-ca.key", "key");
        Fixtures.write(dir, "specs/backup.key", "key");
        ClusterSpec spec = load(MINIMAL + """
                tls:
                  pki:
                    dir: ../pki
                    ca: {cert: ca/my-ca.crt, key: ca/my-ca.key}
                backup:
                  encryption:
                    keyFile: backup.key
                """);
        Pki pki = spec.tls().pki();
        assertEquals(Optional.of(dir.resolve("pki")), pki.dir());
        assertEquals(Optional.of(dir.resolve("specs/ca/my-ca.crt")), pki.caCert());
        assertEquals(Optional.of(dir.resolve("specs/ca/my-ca.key")), pki.caKey());
        assertTrue(pki.bringsOwnCa());
        assertEquals(dir.resolve("specs/backup.key"), spec.backup().orElseThrow().encryption().orElseThrow().keyFile());
    }

    @Test
    void theDefaultPkiDirIsUnderEtcdwrightHome() {
        Pki pki = load(MINIMAL).tls().pki();
        assertEquals(Path.of("/home/op/.etcdwright/clusters/demo/pki"), pki.dirOr(Path.of("/home/op/.etcdwright"), "demo"));
    }

    @Test
    void backupStoresGetTheirDefaults() {
        ClusterSpec s3 = load(MINIMAL + "backup:\n  store: {type: s3, bucket: etcd-backups}\n");
        assertEquals(new BackupStore.S3("etcd-backups", "demo/", Optional.empty(), Optional.empty()),
                s3.backup().orElseThrow().store());
        ClusterSpec sftp = load(MINIMAL + "backup:\n  store: {type: sftp, host: backup1}\n  intervalMinutes: 0\n");
        assertEquals(new BackupStore.Sftp("backup1", "/var/backups/etcd"), sftp.backup().orElseThrow().store());
        assertEquals(0, sftp.backup().orElseThrow().intervalMinutes());
        BackupPolicy directory = load(MINIMAL + "backup:\n  retention: {keepLast: 3}\n").backup().orElseThrow();
        assertInstanceOf(BackupStore.Directory.class, directory.store());
        assertEquals(new BackupPolicy.Retention(3, 7), directory.retention());
    }
}
