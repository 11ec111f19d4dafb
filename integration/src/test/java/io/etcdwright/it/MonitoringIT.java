package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics and the shipped alert rules against the real thing (docs/monitoring.md): Debian's
 * prometheus-node-exporter on a member host, and Debian's prometheus on this side scraping it every
 * second with monitoring/etcdwright-alerts.yml loaded, and scraping {@code status -o openmetrics}
 * served as application/openmetrics-text. A scheduled backup's textfiles are read back with
 * promtool, its newest-backup time is the store's newest backup; a schedule made to fail fires
 * EtcdBackupFailing and, its last success two intervals back, EtcdBackupStale; a good run clears both.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MonitoringIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(1);
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final String STORE = "/var/backups/etcd-mon";
    static final String TEXTFILES = "/var/lib/prometheus/node-exporter";
    static String inv;
    static Path spec;
    static Path scratch;
    static Process prometheus;
    static Path prometheusLog;
    static String prometheusUrl;
    static HttpServer statusServer;
    static final AtomicReference<String> STATUS = new AtomicReference<>("# EOF\n");

    @BeforeAll
    static void spec() throws Exception {
        inv = Testbed.INVENTORY.toString();
        scratch = Testbed.scratch("monitoring");
        spec = HOSTS.home().resolve("mon.yaml");
        Files.writeString(spec, Testbed.example("single-node.yaml").replace("name: single", "name: mon") + """
                backup:
                  stores:
                    - name: local
                      type: directory
                      path: %s
                  schedule:
                    intervalMinutes: 60
                    store: local
                monitoring: {}
                """.formatted(STORE));
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (statusServer != null) {
            statusServer.stop(0);
        }
    }

    /** {@code promtool check metrics} on a file of the host: exit 0 and no finding. */
    static String checkedTextfile(String name) throws Exception {
        String text = Testbed.ssh(1, "cat " + TEXTFILES + "/" + name);
        Path local = Files.writeString(scratch.resolve(name), text);
        Process p = new ProcessBuilder("promtool", "check", "metrics").redirectInput(local.toFile()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), name + ": " + said + "\n" + text);
        assertEquals("", said.strip(), name + ": " + said + "\n" + text);
        return text;
    }

    static String sample(String text, String name) {
        return text.lines().filter(l -> l.startsWith(name + "{")).map(l -> l.substring(l.lastIndexOf(' ') + 1)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in:\n" + text));
    }

    @Test
    @Order(1)
    void applyInstallsTheJobsAndTheCertificatesExpiriesAreThere() throws Exception {
        Cli.Run apply = Cli.run("apply", "-i", inv, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertTrue(apply.out().contains("certificate expiry metrics in " + TEXTFILES + "/etcdwright_certificates.prom"), apply.out());
        assertEquals("enabled\n", Testbed.ssh(1, "systemctl is-enabled etcdwright-cert-metrics.timer"));
        String certs = checkedTextfile("etcdwright_certificates.prom");
        long notAfter = Long.parseLong(Testbed.ssh(1, "date -u -d \"$(openssl x509 -in /etc/etcd/pki/server.crt -noout -enddate"
                + " | cut -d= -f2)\" +%s").strip());
        assertTrue(certs.contains("certificate=\"server\",file=\"/etc/etcd/pki/server.crt\""), certs);
        assertTrue(certs.lines().anyMatch(l -> l.contains("certificate=\"server\"") && l.endsWith(" " + notAfter)), certs);
        Cli.Run again = Cli.run("plan", "-i", inv, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "installed and current: " + again.all());
        Testbed.ssh(1, "systemctl start prometheus-node-exporter");
    }

    @Test
    @Order(2)
    void aScheduledBackupsTextfilesReadBackAndNameTheStoresNewestBackup() throws Exception {
        assertEquals(0, Testbed.sshStatus(1, "systemctl start etcdwright-backup.service"));
        for (String file : Testbed.ssh(1, "cd " + TEXTFILES + " && ls -1 *.prom").strip().split("\n")) {
            checkedTextfile(file);
        }
        String backup = checkedTextfile("etcdwright_backup.prom");
        String newest = Testbed.ssh(1, "ls -1 " + STORE + " | grep -v '^control$' | sort | tail -n1").strip();
        assertEquals(Long.toString(Instant.parse(newest.substring(0, 20)).getEpochSecond()),
                sample(backup, "etcdwright_backup_newest_timestamp_seconds"), "the store's newest backup, " + newest);
        assertEquals(Testbed.ssh(1, "stat -c %s " + STORE + "/" + newest + "/etcd.backup.gz").strip(),
                sample(backup, "etcdwright_backup_last_size_bytes"));
    }

    @Test
    @Order(3)
    void prometheusScrapesTheHostAndTheStatusDocument() throws Exception {
        refreshStatus();
        statusServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        statusServer.createContext("/metrics", exchange -> {
            byte[] body = STATUS.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        statusServer.start();
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Files.copy(Testbed.ROOT.resolve("monitoring/etcdwright-alerts.yml"), scratch.resolve("etcdwright-alerts.yml"));
        Path config = Files.writeString(scratch.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: [etcdwright-alerts.yml]
                scrape_configs:
                  - job_name: etcd-hosts
                    static_configs: [{targets: ['%s:9100']}]
                  - job_name: etcdwright-status
                    static_configs: [{targets: ['127.0.0.1:%d']}]
                """.formatted(Testbed.address(1), statusServer.getAddress().getPort()));
        prometheusLog = scratch.resolve("prometheus.log");
        prometheusUrl = "http://127.0.0.1:" + port;
        prometheus = new ProcessBuilder("prometheus", "--config.file=" + config, "--storage.tsdb.path=" + scratch.resolve("tsdb"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(prometheusLog.toFile()).start();
        await("both targets up", () -> query("up").path("data").path("result"),
                r -> r.size() == 2 && r.findValues("value").stream().allMatch(v -> v.get(1).asText().equals("1")));
        JsonNode ok = await("the backup's result", () -> query("etcdwright_backup_last_run_result{result=\"success\"}")
                .path("data").path("result"), r -> r.size() == 1);
        assertEquals("1", ok.get(0).path("value").get(1).asText(), ok.toString());
        assertEquals("mon", ok.get(0).path("metric").path("cluster").asText(), ok.toString());
        // The status document, parsed as OpenMetrics by Prometheus itself.
        JsonNode healthy = await("the cluster's health from status", () -> query("etcdwright_cluster_healthy").path("data")
                .path("result"), r -> r.size() == 1);
        assertEquals("1", healthy.get(0).path("value").get(1).asText(), healthy.toString());
        assertEquals("etcdwright-status", healthy.get(0).path("metric").path("job").asText());
        JsonNode expiry = query("etcdwright_certificate_expiry_timestamp_seconds{certificate=\"server\"}").path("data").path("result");
        assertEquals(1, expiry.size(), expiry.toString());
        assertEquals(List.of(), firing(), "nothing fires on a healthy cluster with a fresh backup");
    }

    @Test
    @Order(4)
    void aFailingScheduleFiresTheAlertsAndAGoodRunClearsThem() throws Exception {
        // The store's directory replaced by a file: the next run cannot write its backup.
        Testbed.ssh(1, "mv " + STORE + " " + STORE + ".away && touch " + STORE);
        assertNotEquals(0, Testbed.sshStatus(1, "systemctl start etcdwright-backup.service"));
        await("EtcdBackupFailing", MonitoringIT::firing, f -> f.contains("EtcdBackupFailing"));
        // Two intervals without a success: the record of the last one moved back three hours, as if the runs had failed since.
        Testbed.ssh(1, "t=$(date -u -d '-3 hours' +%Y-%m-%dT%H:%M:%SZ) && sed -i \"s/\\\"time\\\":\\\"[^\\\"]*\\\"/\\\"time\\\":\\\"$t\\\"/\""
                + " /var/lib/etcdwright/backup/last-success.json && grep -q \"$t\" /var/lib/etcdwright/backup/last-success.json");
        assertNotEquals(0, Testbed.sshStatus(1, "systemctl start etcdwright-backup.service"));
        List<String> both = await("EtcdBackupStale", MonitoringIT::firing, f -> f.contains("EtcdBackupStale"));
        assertTrue(both.contains("EtcdBackupFailing"), both.toString());
        refreshStatus();
        await("status's stale backup", () -> query("etcdwright_cluster_backup_stale").path("data").path("result"),
                r -> r.size() == 1 && r.get(0).path("value").get(1).asText().equals("1"));

        Testbed.ssh(1, "rm -f " + STORE + " && mv " + STORE + ".away " + STORE);
        assertEquals(0, Testbed.sshStatus(1, "systemctl start etcdwright-backup.service"));
        await("the alerts cleared", MonitoringIT::firing,
                f -> !f.contains("EtcdBackupFailing") && !f.contains("EtcdBackupStale"));
        String backup = checkedTextfile("etcdwright_backup.prom");
        assertEquals("2", sample(backup, "etcdwright_backup_failures_total"), backup);
        assertEquals("0", sample(backup, "etcdwright_backup_consecutive_failures"), backup);
    }

    static void refreshStatus() {
        Cli.Run status = Cli.run("status", "-i", inv, "-f", spec.toString(), "-o", "openmetrics");
        assertEquals(0, status.exitCode(), status.all());
        STATUS.set(status.out());
    }

    /** The names of the alerts Prometheus has firing now. */
    static List<String> firing() {
        List<String> names = new ArrayList<>();
        for (JsonNode a : get("/api/v1/alerts").path("data").path("alerts")) {
            if (a.path("state").asText().equals("firing")) {
                names.add(a.path("labels").path("alertname").asText());
            }
        }
        return names;
    }

    static JsonNode query(String promql) {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    static JsonNode get(String path) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(prometheusUrl + path)).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(r.body());
        } catch (IOException e) {
            return JSON.createObjectNode(); // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Asks until {@code done} holds, 60 s at most (scrapes and rule evaluations come every second);
     * a timeout fails with the last answer and Prometheus' own log.
     */
    static <T> T await(String what, java.util.function.Supplier<T> ask, Predicate<T> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        T last = ask.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within 60 s; last answer " + last + "\nprometheus:\n"
                        + (Files.exists(prometheusLog) ? Files.readString(prometheusLog) : ""));
            }
            if (prometheus != null && !prometheus.isAlive()) {
                throw new AssertionError("prometheus exited " + prometheus.exitValue() + ":\n" + Files.readString(prometheusLog));
            }
            Thread.sleep(500);
            last = ask.get();
        }
        return last;
    }
}
