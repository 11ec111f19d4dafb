package io.etcdwright.cli;

import io.etcdwright.modules.monitoring.MemberTextfiles;
import io.etcdwright.watch.WatchMetrics;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.etcdwright.cli.DashboardQueries.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queries of the shipped Grafana dashboard (monitoring/etcdwright-dashboard.json): Prometheus'
 * promtool takes each, and every metric they read is one etcdwright really writes, by the names the
 * code writes them under: the watcher's registry, 'status -o openmetrics', and the members' textfiles
 * as the real timer scripts write them. A metric renamed in the code and not on the dashboard fails here.
 */
class DashboardMetricsTest {
    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");
    // Grafana's variables, as Grafana puts them in before the query reaches Prometheus.
    private static final Pattern RANGE_VARIABLES = Pattern.compile("\\$\\{?(__rate_interval|__range|__interval)}?");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?[A-Za-z0-9_]+(?::[^}]*)?}?");

    @Test
    void promtoolTakesEveryQuery(@TempDir Path dir) throws Exception {
        StringBuilder rules = new StringBuilder("groups:\n  - name: etcdwright-dashboard\n    rules:\n");
        List<DashboardQueries.Query> queries = DashboardQueries.all();
        for (int i = 0; i < queries.size(); i++) {
            rules.append("      - record: dashboard:query_").append(i).append('\n')
                    .append("        expr: ").append(JSON.writeValueAsString(asPrometheusGetsIt(queries.get(i).expr()))).append('\n');
        }
        Files.writeString(dir.resolve("dashboard-queries.yml"), rules);
        Promtool.Result r = Promtool.run(dir, null, "check", "rules", "dashboard-queries.yml");
        assertEquals(0, r.exitCode(), r.output() + "\n" + rules);
        assertTrue(r.output().contains("SUCCESS: " + queries.size() + " rules found"), r.output());
        assertTrue(queries.size() > 30, "the dashboard's queries: " + queries.size());
    }

    /** $__rate_interval and the like as durations, the other variables as the regular expression All stands for. */
    static String asPrometheusGetsIt(String expr) {
        String ranged = RANGE_VARIABLES.matcher(expr).replaceAll(m -> switch (m.group(1)) {
            case "__rate_interval" -> "4m";
            case "__range" -> "1d";
            default -> "1m";
        });
        return VARIABLE.matcher(ranged).replaceAll(".+");
    }

    @Test
    void everyMetricTheDashboardReadsIsOneEtcdwrightWrites(@TempDir Path dir) throws Exception {
        Set<String> written = new TreeSet<>();
        written.addAll(sampleNames(watcherMetrics()));
        // status's metrics are gauges, each a series of the name of its family (StatusMetricsTest: every one
        // is declared by the full document); the sample report leaves some without a sample.
        written.addAll(StatusMetrics.NAMES);
        written.addAll(sampleNames(StatusMetrics.openMetrics(StatusMetricsTest.report(true), StatusMetricsTest.NOW)));
        for (Path textfile : MemberTextfiles.everyFamily(dir)) {
            written.addAll(sampleNames(Files.readString(textfile)));
        }
        Set<String> read = new TreeSet<>();
        for (DashboardQueries.Query q : DashboardQueries.all()) {
            for (String name : DashboardQueries.metricNames(q.expr())) {
                assertTrue(written.contains(name), q.path() + " reads " + name + ", which etcdwright does not write (it writes "
                        + written + ")");
                read.add(name);
            }
        }
        // Each of the four sources is on the dashboard: the watcher, status, backups and certificates.
        for (String prefix : List.of("etcdwright_watch_", "etcdwright_cluster_", "etcdwright_backup_", "etcdwright_certificate_")) {
            assertTrue(read.stream().anyMatch(n -> n.startsWith(prefix)), "no panel reads " + prefix + "*: " + read);
        }
    }

    @Test
    void theNamesReadHereAreThoseOfPrometheusParser() throws Exception {
        Set<String> here = new TreeSet<>();
        for (DashboardQueries.Query q : DashboardQueries.all()) {
            here.addAll(DashboardQueries.metricNames(q.expr()));
        }
        DashboardLinter.Result parsed = DashboardLinter.run("-print-metric-names", DashboardQueries.DASHBOARD.toString());
        assertEquals(0, parsed.exitCode(), parsed.output());
        assertEquals(new TreeSet<>(parsed.output().lines().toList()), here);
        assertFalse(here.isEmpty());
    }

    @Test
    void theReadingOfNamesSkipsFunctionsLabelsAndVariables() {
        assertEquals(Set.of("a_total", "b", "c:rule"), DashboardQueries.metricNames(
                "sum by (cluster, le) (rate(a_total{x=\"y{z}\", cluster=~\"$cluster\"}[$__rate_interval])) / on (cluster) group_left"
                        + " max without (member) (b offset 5m) > bool 1e3 and c:rule"));
    }

    /** Every series the watcher serves, each method of its metrics called once. */
    static String watcherMetrics() {
        try (WatchMetrics metrics = new WatchMetrics()) {
            Instant at = Instant.parse("2026-12-02T03:00:00Z");
            metrics.cycleEnded("prod", "acted", at, true, Duration.ofSeconds(30));
            metrics.action("prod", "routine", "changed");
            metrics.repaired("prod", "routine", Duration.ofSeconds(12));
            metrics.held("prod", Map.of("change", 1), Optional.of(at));
            metrics.condition("prod", "held");
            return PrometheusTextFormatWriter.create().toDebugString(metrics.registry().scrape());
        }
    }

    static Set<String> sampleNames(String exposition) {
        Set<String> names = new TreeSet<>();
        Matcher m = SAMPLE.matcher(exposition);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
