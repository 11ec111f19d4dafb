package io.etcdwright.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.etcdwright.cli.DashboardQueries.DASHBOARD;
import static io.etcdwright.cli.DashboardQueries.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped Grafana dashboard (monitoring/etcdwright-dashboard.json) as the dashboard linter judges
 * it: not one finding, not even a warning (no rule is turned off, so monitoring/ has no .lint file);
 * and a copy broken in five ways is refused with each, at its line.
 */
class DashboardLintTest {
    @Test
    void theLinterFindsNothingInTheDashboard() throws Exception {
        DashboardLinter.Result r = DashboardLinter.run("-label", "cluster", DASHBOARD.toString());
        assertEquals(0, r.exitCode(), r.output());
        assertEquals("", r.output(), "the linter found something");
    }

    @Test
    void theLinterRefusesABrokenCopy(@TempDir Path dir) throws Exception {
        ObjectNode broken = (ObjectNode) JSON.readTree(DASHBOARD.toFile());
        broken.put("schemaVersion", 36);
        ObjectNode healthy = (ObjectNode) broken.path("panels").get(1);
        assertEquals("Healthy", healthy.path("title").asText(), "the panels this test breaks moved");
        healthy.put("titel", "a field Grafana's schema does not have");
        ((ObjectNode) broken.path("panels").get(2).path("datasource")).put("uid", "P8E80F9AEF21F6940");
        ((ObjectNode) broken.path("panels").get(3).path("targets").get(0)).put("expr", "sum(rate(etcdwright_watch_cycles_total[5m]))");
        ((ObjectNode) broken.path("panels").get(4).path("targets").get(0))
                .put("expr", "max by (cluster) (etcdwright_cluster_alarm{cluster=~\"$cluster\"}");
        Path copy = dir.resolve("broken.json");
        Files.writeString(copy, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(broken));

        DashboardLinter.Result r = DashboardLinter.run("-label", "cluster", copy.toString());
        assertEquals(1, r.exitCode(), r.output());
        int titel = lineOf(copy, "\"titel\"");
        for (String expected : List.of(
                copy + ":" + titel + ":",
                ": error: panels[1].titel: unknown field 'titel' (not in Grafana's dashboard schema) (schema)",
                ": error: schemaVersion: schemaVersion is 36; the dashboard schema these types describe is 42 (schema-version)",
                ": error: panels[2].datasource: the panel does not use the ${datasource} data source (panel-datasource)",
                ": error: panels[3].targets[0].expr: rate() over [5m]: use [$__rate_interval]",
                ": error: panels[3].targets[0].expr: etcdwright_watch_cycles_total does not filter cluster by the variable",
                ": error: panels[4].targets[0].expr: not valid PromQL: ")) {
            assertTrue(r.output().contains(expected), "no '" + expected + "' in:\n" + r.output());
        }
        assertEquals(6, r.output().lines().count(), r.output());
    }

    static int lineOf(Path file, String text) throws Exception {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " is not in " + file);
    }
}
