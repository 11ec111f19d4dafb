package io.etcdwright.modules.monitoring;

import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.maintenance.DefragScheduleModule;
import io.etcdwright.modules.maintenance.DefragScriptTest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.etcdwright.modules.maintenance.DefragScriptTest.MIB;

/**
 * The textfile metrics of a member's timer jobs (docs/monitoring.md), written by the real scripts run
 * in bash against stand-in etcd tools and certificates from the real openssl: the runs of
 * TextfileMetricsTest, and {@link #everyFamily} for the tests outside this module that need the names
 * the jobs really write (cli's DashboardTest checks each metric the Grafana dashboard reads against
 * them). Shared through modules' test jar.
 */
public final class MemberTextfiles {
    private MemberTextfiles() {
    }

    /** etcdctl and etcdutl as a leader (FAKE_LEADER=1) or a follower answers; a snapshot with a real sha256 trailer. */
    public static final String FAKE_ETCD = """
            #!/bin/bash
            args=(); for a in "$@"; do case $a in --*) ;; *) args+=("$a") ;; esac; done
            case "${args[0]} ${args[1]:-}" in
              "endpoint status") printf '[{"Endpoint":"x","Status":{"header":{"cluster_id":7,"member_id":1},"version":"3.5.16","dbSize":4096,"leader":%s}}]\\n' "${FAKE_LEADER:-1}" ;;
              "snapshot save") printf 'a bbolt database of the test' >"${args[2]}"
                h=$(sha256sum <"${args[2]}" | cut -c1-64); printf "$(printf '%s' "$h" | sed 's/../\\\\x&/g')" >>"${args[2]}" ;;
              "snapshot status") echo '{"hash":1,"revision":42,"totalKey":3,"totalSize":4096}' ;;
              "get ") echo '{"header":{"revision":42},"count":3}' ;;
              *) echo "unexpected call: $*" >&2; exit 2 ;;
            esac
            """;

    public record Run(int exitCode, String stderr) {
    }

    /** One scheduled backup run of member h1 of cluster c1 into a directory store, its textfile in dir/textfiles. */
    public static Run backup(Path dir, Path store, Map<String, String> env) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String tool : List.of("etcdctl", "etcdutl")) {
            Files.writeString(bin.resolve(tool), FAKE_ETCD);
            Files.setPosixFilePermissions(bin.resolve(tool), PosixFilePermissions.fromString("rwx------"));
        }
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("backup.conf"), String.join("\n", "CLUSTER=c1", "MEMBER=h1", "MEMBER_COUNT=3",
                "ENDPOINT=https://10.0.0.11:2379", "CACERT=/x/ca.crt", "CERT=/x/hc.crt", "KEY=/x/hc.key", "ETCD_BIN_DIR=" + bin,
                "STORE_TYPE=directory", "STORE_PATH=" + store, "ENCRYPT=false", "KEEP_ALL_FOR_HOURS=1", "HOURLY_FOR_DAYS=7",
                "DAILY_FOR_DAYS=730", "STORE_NAME=local \"disk\"", "INTERVAL_SECONDS=900", "TEXTFILE_DIR=" + dir.resolve("textfiles"), ""));
        Path script = dir.resolve("etcd-backup.sh");
        Files.write(script, BackupScheduleModule.script());
        return run(dir, script, conf, "ETCDWRIGHT_BACKUP_STATE", env);
    }

    /** One run of a job's script with its configuration directory, its state in dir/state. */
    public static Run run(Path dir, Path script, Path conf, String stateVariable, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), conf.toString()).directory(dir.toFile());
        pb.environment().put(stateVariable, dir.resolve("state").toString());
        pb.environment().putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the script did not finish");
        }
        return new Run(p.exitValue(), err);
    }

    /** A self-signed certificate valid for {@code days}, from the real openssl. */
    public static String certificate(Path dir, String name, int days) throws Exception {
        Path out = dir.resolve(name + ".pem");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "/dev/null", "-subj", "/CN=" + name, "-days", Integer.toString(days), "-out", out.toString())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) {
            throw new AssertionError("openssl could not make a certificate");
        }
        return Files.readString(out);
    }

    /**
     * The three files a member writes, each from a run that writes every family its job has: a
     * successful backup (the last success, size and newest backup are written only after one), a
     * defragmentation that defragments (the size after and the last success likewise), and the
     * certificate job over a server certificate and a CA.
     */
    public static List<Path> everyFamily(Path dir) throws Exception {
        Path backups = Files.createDirectories(dir.resolve("backup"));
        expectSuccess("backup", backup(backups, backups.resolve("store"), Map.of()));

        Path defrag = Files.createDirectories(dir.resolve("defrag"));
        Path bin = Files.createDirectories(defrag.resolve("bin"));
        Files.writeString(bin.resolve("etcdctl"), DefragScriptTest.FAKE_ETCDCTL);
        Files.setPosixFilePermissions(bin.resolve("etcdctl"), PosixFilePermissions.fromString("rwx------"));
        Path defragConf = Files.createDirectories(defrag.resolve("conf"));
        Files.writeString(defragConf.resolve("defrag.conf"), String.join("\n", "CLUSTER=c1", "MEMBER=h1",
                "ENDPOINT=https://10.0.0.11:2379", "ENDPOINTS=https://10.0.0.11:2379,https://10.0.0.12:2379", "TLS=true",
                "CACERT=/x/ca.crt", "CERT=/x/hc.crt", "KEY=/x/hc.key", "ETCD_BIN_DIR=" + bin, "LOCK_KEY=/etcdwright/lock/c1",
                "MIN_FRAGMENTATION_PERCENT=20", "MIN_DB_SIZE_BYTES=0", "TEXTFILE_DIR=" + defrag.resolve("textfiles"), ""));
        Path defragScript = Files.write(defrag.resolve("etcd-defrag.sh"), DefragScheduleModule.script());
        expectSuccess("defragmentation", run(defrag, defragScript, defragConf, "ETCDWRIGHT_DEFRAG_STATE", Map.of("FAKE_DIR", defrag.toString(),
                "FAKE_LEADER", "2", "FAKE_SIZE", Long.toString(100 * MIB), "FAKE_INUSE", Long.toString(10 * MIB))));

        Path certs = Files.createDirectories(dir.resolve("certificates"));
        Path pki = Files.createDirectories(certs.resolve("pki"));
        Files.writeString(pki.resolve("server.crt"), certificate(certs, "server", 30));
        Files.writeString(pki.resolve("ca.crt"), certificate(certs, "ca", 3650));
        Path certConf = Files.createDirectories(certs.resolve("conf"));
        Files.writeString(certConf.resolve("cert-metrics.conf"), String.join("\n", "CLUSTER=c1", "MEMBER=h1",
                "PKI_DIR=" + pki, "TEXTFILE_DIR=" + certs.resolve("textfiles"), ""));
        Path certScript = Files.write(certs.resolve("etcd-cert-metrics.sh"), CertificateMetricsModule.script());
        expectSuccess("certificate metrics", run(certs, certScript, certConf, "ETCDWRIGHT_CERT_METRICS_STATE", Map.of()));

        List<Path> files = List.of(backups.resolve("textfiles/etcdwright_backup.prom"), defrag.resolve("textfiles/etcdwright_defrag.prom"),
                certs.resolve("textfiles/etcdwright_certificates.prom"));
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                throw new AssertionError(f + " was not written");
            }
        }
        return files;
    }

    private static void expectSuccess(String job, Run r) {
        if (r.exitCode() != 0) {
            throw new AssertionError("the " + job + " job failed (" + r.exitCode() + "): " + r.stderr());
        }
    }
}
