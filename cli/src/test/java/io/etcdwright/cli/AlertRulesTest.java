package io.etcdwright.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped alert rules (monitoring/etcdwright-alerts.yml): Prometheus' own checker accepts them,
 * their unit tests (monitoring/etcdwright-alerts.test.yml) pass in {@code promtool test rules}, and
 * every metric they read is one etcdwright writes, listed in docs/monitoring.md.
 */
class AlertRulesTest {
    static final Path MONITORING = Path.of("..", "monitoring");
    static final Path DOC = Path.of("..", "docs", "monitoring.md");

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        Promtool.Result r = Promtool.run(MONITORING, null, "check", "rules", "etcdwright-alerts.yml");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("SUCCESS"), r.output());
    }

    @Test
    void theRulesUnitTestsPass() throws Exception {
        Promtool.Result r = Promtool.run(MONITORING, null, "test", "rules", "etcdwright-alerts.test.yml");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("SUCCESS"), r.output());
    }

    @Test
    void everyAlertIsTestedAndEveryMetricTheRulesReadIsDocumented() throws Exception {
        String rules = Files.readString(MONITORING.resolve("etcdwright-alerts.yml"));
        String tests = Files.readString(MONITORING.resolve("etcdwright-alerts.test.yml"));
        String doc = Files.readString(DOC);
        Matcher alert = Pattern.compile("(?m)^\\s+- alert: (\\S+)$").matcher(rules);
        Set<String> alerts = new TreeSet<>();
        while (alert.find()) {
            alerts.add(alert.group(1));
        }
        assertEquals(14, alerts.size(), alerts.toString());
        for (String a : alerts) {
            assertTrue(tests.contains("alertname: " + a + "\n        exp_alerts:\n          - exp_labels:"),
                    a + " is never seen firing in etcdwright-alerts.test.yml");
            assertTrue(doc.contains("`" + a + "`"), a + " is not in docs/monitoring.md");
        }
        Matcher metric = Pattern.compile("\\betcdwright_[a-z_]+\\b").matcher(rules);
        while (metric.find()) {
            assertTrue(doc.contains("`" + metric.group() + "`"), metric.group() + " is read by a rule but not in docs/monitoring.md");
        }
    }
}
