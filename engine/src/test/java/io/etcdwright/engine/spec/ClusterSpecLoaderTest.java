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
        return ClusterSpecLoader.load(Fixtures.write(dir, "specs/demo.yaml", yaml), SupportFloorRules.RULES);
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
        ClusterSpec spec = ClusterSpecLoader.load(Fixtures.resource("specs/three-nodes.yaml"), SupportFloorRules.RULES);
        assertEquals(OptionalInt.of(2381), spec.etcd().ports().metrics());
        assertEquals(Map.of("heartbeat-interval", 100, "election-timeout", 1000), spec.etcd().settings());
        assertEquals(new BackupPolicy(List.of(new BackupStore.Directory("local", "/var/backups/etcd")), Optional.empty(),
                Optional.empty(), BackupPolicy.Retention.defaults()), spec.backup().orElseThrow());
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
        Fixtures.write(dir, "specs/ca/my-ca.crt", Fixtures.CA_CERTIFICATE);
        Fixtures.write(dir, "specs/ca/my-ca.key", "key");
        Fixtures.write(dir, "specs/backup.crt", "cert");
        Fixtures.write(dir, "keys/second.pem", "public key");
        Fixtures.write(dir, "specs/s3.env", "AWS_ACCESS_KEY_ID=x");
        ClusterSpec spec = load(MINIMAL + """
                tls:
                  pki:
                    dir: ../pki
                    ca: {cert: ca/my-ca.crt, key: ca/my-ca.key}
                backup:
                  stores: [{name: offsite, type: s3, bucket: b1x}]
                  encryption:
                    recipients: [backup.crt, ../keys/second.pem]
                  schedule:
                    credentialsFile: s3.env
                """);
        Pki pki = spec.tls().pki();
        assertEquals(Optional.of(dir.resolve("pki")), pki.dir());
        assertEquals(Optional.of(dir.resolve("specs/ca/my-ca.crt")), pki.caCert());
        assertEquals(Optional.of(dir.resolve("specs/ca/my-ca.key")), pki.caKey());
        assertTrue(pki.bringsOwnCa());
        assertEquals(List.of(dir.resolve("specs/backup.crt"), dir.resolve("keys/second.pem")),
                spec.backup().orElseThrow().encryption().orElseThrow().recipients());
        assertEquals(Optional.of(dir.resolve("specs/s3.env")), spec.backup().orElseThrow().schedule().orElseThrow().credentialsFile());
    }

    @Test
    void theDefaultPkiDirIsUnderEtcdwrightHome() {
        Pki pki = load(MINIMAL).tls().pki();
        assertEquals(Path.of("/home/op/.etcdwright/clusters/demo/pki"), pki.dirOr(Path.of("/home/op/.etcdwright"), "demo"));
    }

    @Test
    void backupStoresGetTheirDefaults() {
        BackupPolicy s3 = load(MINIMAL + "backup:\n  stores: [{name: offsite, type: s3, bucket: etcd-backups}]\n").backup().orElseThrow();
        assertEquals(List.of(new BackupStore.S3("offsite", "etcd-backups", "demo/", Optional.empty(), Optional.empty(), false)),
                s3.stores());
        assertEquals(Optional.empty(), s3.schedule());
        assertEquals(BackupPolicy.Retention.defaults(), s3.retention());
        BackupStore compatible = load(MINIMAL + "backup:\n  stores: [{name: lab, type: s3, bucket: b1x, endpoint: 'http://10.0.0.1:9000'}]\n")
                .backup().orElseThrow().defaultStore();
        assertEquals(new BackupStore.S3("lab", "b1x", "demo/", Optional.of("http://10.0.0.1:9000"), Optional.empty(), true), compatible);
        BackupPolicy two = load(MINIMAL + """
                backup:
                  stores:
                    - {name: vault, type: sftp, host: backup1}
                    - {name: local, type: directory}
                  schedule: {store: local}
                  retention: {hourlyForDays: 3}
                """).backup().orElseThrow();
        assertEquals(new BackupStore.Sftp("vault", "backup1", "/var/backups/etcd"), two.defaultStore());
        assertEquals(new BackupPolicy.Schedule(15, "local", Optional.empty()), two.schedule().orElseThrow());
        assertEquals(Optional.of(new BackupStore.Directory("local", "/var/backups/etcd")), two.scheduledStore());
        assertEquals(new BackupPolicy.Retention(1, 3, 730), two.retention());
    }
}
