package io.etcdwright.modules.monitoring;

import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.maintenance.DefragScheduleModule;
import io.etcdwright.modules.monitoring.MemberTextfiles.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.etcdwright.modules.monitoring.MemberTextfiles.FAKE_ETCD;
import static io.etcdwright.modules.monitoring.MemberTextfiles.backup;
import static io.etcdwright.modules.monitoring.MemberTextfiles.certificate;
import static io.etcdwright.modules.monitoring.MemberTextfiles.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The textfile metrics the members' timer jobs write (docs/monitoring.md), from the real scripts
 * run in bash against stand-in etcd tools: what each run leaves in the textfile directory, that
 * Prometheus' own checker accepts it, and that only an atomically replaced *.prom file is ever there.
 */
class TextfileMetricsTest {
    /** The value of the one sample of {@code name} whose labels contain {@code having}. */
    static Optional<String> sample(String text, String name, String having) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$").matcher(text);
        while (m.find()) {
            if (m.group(1).contains(having)) {
                return Optional.of(m.group(2));
            }
        }
        return Optional.empty();
    }

    /** Every family of {@code text} is listed in docs/monitoring.md. */
    static void documented(String text) throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "monitoring.md"));
        Matcher family = Pattern.compile("(?m)^# TYPE (\\S+) ").matcher(text);
        while (family.find()) {
            assertTrue(doc.contains("`" + family.group(1) + "`"), family.group(1) + " is not in docs/monitoring.md");
        }
    }

    static List<String> textfiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aScheduledBackupsMetricsNameTheNewestBackupOfTheStoreAndCountFailures(@TempDir Path dir) throws Exception {
        Path store = dir.resolve("store");
        Run ok = backup(dir, store, Map.of());
        assertEquals(0, ok.exitCode(), ok.stderr());
        Path textfile = dir.resolve("textfiles/etcdwright_backup.prom");
        Promtool.checkMetrics(textfile);
        String text = Files.readString(textfile);
        documented(text);
        String labels = "cluster=\"c1\",member=\"h1\",store=\"local \\\"disk\\\"\",store_type=\"directory\"";
        assertEquals(Optional.of("1"), sample(text, "etcdwright_backup_last_run_result", labels + ",result=\"success\""), text);
        assertEquals(Optional.of("0"), sample(text, "etcdwright_backup_last_run_result", "result=\"failed\""), text);
        assertEquals(Optional.of("900"), sample(text, "etcdwright_backup_interval_seconds", labels), text);
        assertEquals(Optional.of("0"), sample(text, "etcdwright_backup_consecutive_failures", labels), text);
        assertEquals(Optional.of("0"), sample(text, "etcdwright_backup_failures_total", labels), text);
        // The newest backup's time is the store's newest backup's (its name is its time).
        List<String> backups = textfiles(store).stream().filter(n -> !n.equals("control")).toList();
        assertEquals(1, backups.size(), backups.toString());
        long named = Instant.parse(backups.get(0).substring(0, 20)).getEpochSecond();
        assertEquals(Optional.of(Long.toString(named)), sample(text, "etcdwright_backup_newest_timestamp_seconds", labels), text);
        String size = sample(text, "etcdwright_backup_last_size_bytes", labels).orElseThrow();
        assertEquals(Files.size(store.resolve(backups.get(0)).resolve("etcd.backup.gz")), Long.parseLong(size));
        String success = sample(text, "etcdwright_backup_last_success_timestamp_seconds", labels).orElseThrow();
        assertTrue(Math.abs(Long.parseLong(success) - Instant.now().getEpochSecond()) < 60, success);

        // The store goes away: the run fails, is counted, and the last success and newest backup stay as they were.
        Files.delete(store.resolve(backups.get(0)).resolve("_etcd_backup.meta"));
        try (Stream<Path> walk = Files.walk(store)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        Files.writeString(store, "not a directory");
        Run failed = backup(dir, store, Map.of());
        assertNotEquals(0, failed.exitCode());
        text = Files.readString(textfile);
        Promtool.checkMetrics(textfile);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_backup_last_run_result", "result=\"failed\""), text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_backup_consecutive_failures", labels), text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_backup_failures_total", labels), text);
        assertEquals(Optional.of(success), sample(text, "etcdwright_backup_last_success_timestamp_seconds", labels), text);
        assertEquals(Optional.of(Long.toString(named)), sample(text, "etcdwright_backup_newest_timestamp_seconds", labels), text);

        // A follower's run is fine: the failures in a row end, the total stays.
        Run follower = backup(dir, store, Map.of("FAKE_LEADER", "2"));
        assertEquals(0, follower.exitCode(), follower.stderr());
        text = Files.readString(textfile);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_backup_last_run_result", "result=\"not-leader\""), text);
        assertEquals(Optional.of("0"), sample(text, "etcdwright_backup_consecutive_failures", labels), text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_backup_failures_total", labels), text);
        assertEquals(List.of("etcdwright_backup.prom"), textfiles(dir.resolve("textfiles")), "nothing but the replaced file");
    }

    @Test
    void withoutATextfileDirectoryNothingIsWritten(@TempDir Path dir) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.writeString(bin.resolve("etcdctl"), FAKE_ETCD);
        Files.setPosixFilePermissions(bin.resolve("etcdctl"), PosixFilePermissions.fromString("rwx------"));
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("backup.conf"), String.join("\n", "CLUSTER=c1", "MEMBER=h1", "MEMBER_COUNT=3",
                "ENDPOINT=https://10.0.0.11:2379", "CACERT=/x/ca.crt", "CERT=/x/hc.crt", "KEY=/x/hc.key", "ETCD_BIN_DIR=" + bin,
                "STORE_TYPE=directory", "STORE_PATH=" + dir.resolve("store"),
                "ENCRYPT=false", "KEEP_ALL_FOR_HOURS=1", "HOURLY_FOR_DAYS=7", "DAILY_FOR_DAYS=730", ""));
        Path script = dir.resolve("etcd-backup.sh");
        Files.write(script, BackupScheduleModule.script());
        Run r = run(dir, script, conf, "ETCDWRIGHT_BACKUP_STATE", Map.of("FAKE_LEADER", "2"));
        assertEquals(0, r.exitCode(), r.stderr());
        assertFalse(Files.exists(dir.resolve("textfiles")));
        try (Stream<Path> all = Files.walk(dir)) {
            assertTrue(all.noneMatch(p -> p.toString().endsWith(".prom")));
        }
    }

    @Test
    void aDefragmentationRunsMetricsSayItsResultAndSizes(@TempDir Path dir) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        // Not worth it: the question alone, recorded with the database's size.
        Files.writeString(bin.resolve("etcdctl"), """
                #!/bin/bash
                echo '[{"Endpoint":"x","Status":{"header":{"member_id":1},"dbSize":104857600,"leader":2,"dbSizeInUse":94371840}}]'
                """);
        Files.setPosixFilePermissions(bin.resolve("etcdctl"), PosixFilePermissions.fromString("rwx------"));
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("defrag.conf"), String.join("\n", "CLUSTER=c1", "MEMBER=h2", "ENDPOINT=https://10.0.0.12:2379",
                "ENDPOINTS=https://10.0.0.12:2379", "TLS=true", "CACERT=/x/ca.crt", "CERT=/x/hc.crt", "KEY=/x/hc.key", "ETCD_BIN_DIR=" + bin, "LOCK_KEY=/etcdwright/lock/c1",
                "MIN_FRAGMENTATION_PERCENT=20", "MIN_DB_SIZE_BYTES=0", "TEXTFILE_DIR=" + dir.resolve("textfiles"), ""));
        Path script = dir.resolve("etcd-defrag.sh");
        Files.write(script, DefragScheduleModule.script());
        Run r = run(dir, script, conf, "ETCDWRIGHT_DEFRAG_STATE", Map.of());
        assertEquals(0, r.exitCode(), r.stderr());
        Path textfile = dir.resolve("textfiles/etcdwright_defrag.prom");
        Promtool.checkMetrics(textfile);
        String text = Files.readString(textfile);
        documented(text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_defrag_last_run_result", "member=\"h2\",result=\"not-worth-it\""), text);
        assertEquals(Optional.of("0"), sample(text, "etcdwright_defrag_last_run_result", "result=\"failed\""), text);
        assertEquals(Optional.of("104857600"), sample(text, "etcdwright_defrag_last_run_db_size_before_bytes", "member=\"h2\""), text);
        assertEquals(Optional.empty(), sample(text, "etcdwright_defrag_last_run_db_size_after_bytes", ""), text);
        assertEquals(Optional.empty(), sample(text, "etcdwright_defrag_last_success_timestamp_seconds", ""), "never defragmented");
        assertEquals(Optional.of("0"), sample(text, "etcdwright_defrag_consecutive_failures", ""), text);

        // etcd does not answer: a failure, counted.
        Files.writeString(bin.resolve("etcdctl"), "#!/bin/bash\necho 'context deadline exceeded' >&2\nexit 1\n");
        Run failed = run(dir, script, conf, "ETCDWRIGHT_DEFRAG_STATE", Map.of());
        assertNotEquals(0, failed.exitCode());
        text = Files.readString(textfile);
        Promtool.checkMetrics(textfile);
        documented(text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_defrag_last_run_result", "result=\"failed\""), text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_defrag_consecutive_failures", ""), text);
        assertEquals(Optional.of("1"), sample(text, "etcdwright_defrag_failures_total", ""), text);
    }

    @Test
    void theCertificateJobWritesEveryCertificatesExpiryAndSaysWhenItChanged(@TempDir Path dir) throws Exception {
        Path pki = Files.createDirectories(dir.resolve("pki"));
        String server = certificate(dir, "server", 30);
        String ca = certificate(dir, "ca", 3650);
        Files.writeString(pki.resolve("server.crt"), server);
        // A CA file during a rotation: two certificates in one file.
        Files.writeString(pki.resolve("ca.crt"), ca + server);
        Files.writeString(pki.resolve("server.key"), "not a certificate: never read");
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("cert-metrics.conf"), String.join("\n", "CLUSTER=c1", "MEMBER=h1", "PKI_DIR=" + pki,
                "TEXTFILE_DIR=" + dir.resolve("textfiles"), ""));
        Path script = dir.resolve("etcd-cert-metrics.sh");
        Files.write(script, CertificateMetricsModule.script());
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), conf.toString());
        pb.environment().put("ETCDWRIGHT_CERT_METRICS_STATE", dir.resolve("state").toString());
        Process first = pb.start();
        assertEquals("changed", new String(first.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        assertEquals(0, first.waitFor());
        Path textfile = dir.resolve("textfiles/etcdwright_certificates.prom");
        Promtool.checkMetrics(textfile);
        String text = Files.readString(textfile);
        documented(text);
        long serverExpiry = Long.parseLong(sample(text, "etcdwright_certificate_expiry_timestamp_seconds",
                "certificate=\"server\",file=\"" + pki.resolve("server.crt") + "\"").orElseThrow());
        assertTrue(Math.abs(serverExpiry - Instant.now().plusSeconds(30 * 86400L).getEpochSecond()) < 120, text);
        assertEquals(2, text.lines().filter(l -> l.contains("certificate=\"ca\"")).count(), text);
        assertEquals(Optional.of("0"), sample(text, "etcdwright_certificate_files_unreadable", ""), text);
        Process again = pb.start();
        assertEquals("", new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip(), "nothing changed");
        assertEquals(0, again.waitFor());
        assertEquals(List.of("etcdwright_certificates.prom"), textfiles(dir.resolve("textfiles")));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(textfile)), "node_exporter's user reads it");
    }
}
