package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of the shipped Grafana dashboard: every panel's queries, and the series selectors of
 * its query variables (label_values(SELECTOR, LABEL)); and the metric names a query reads.
 */
final class DashboardQueries {
    static final Path DASHBOARD = AlertRulesTest.MONITORING.resolve("etcdwright-dashboard.json");
    static final ObjectMapper JSON = new ObjectMapper();

    private DashboardQueries() {
    }

    /** One query, at its path in the dashboard ("panels[3].targets[0].expr"). */
    record Query(String path, String expr) {
    }

    static List<Query> all() throws IOException {
        JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        List<Query> queries = new ArrayList<>();
        panelQueries("panels", dashboard.path("panels"), queries);
        JsonNode variables = dashboard.path("templating").path("list");
        for (int i = 0; i < variables.size(); i++) {
            JsonNode v = variables.get(i);
            if (!v.path("type").asText().equals("query")) {
                continue;
            }
            String query = v.path("query").isTextual() ? v.path("query").asText() : v.path("query").path("query").asText();
            Matcher m = LABEL_VALUES.matcher(query);
            if (!m.matches()) {
                throw new AssertionError("variable " + v.path("name") + ": not label_values(SELECTOR, LABEL): " + query);
            }
            queries.add(new Query("templating.list[" + i + "].query", m.group(1)));
        }
        return queries;
    }

    private static void panelQueries(String path, JsonNode panels, List<Query> into) {
        for (int i = 0; i < panels.size(); i++) {
            JsonNode panel = panels.get(i);
            JsonNode targets = panel.path("targets");
            for (int t = 0; t < targets.size(); t++) {
                into.add(new Query(path + "[" + i + "].targets[" + t + "].expr", targets.get(t).path("expr").asText()));
            }
            panelQueries(path + "[" + i + "].panels", panel.path("panels"), into);
        }
    }

    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\)");

    // What of a query is not a metric name: strings (label values, Grafana's $variables in them),
    // label matchers, ranges, the label lists of by/without/on/ignoring/group_left/group_right.
    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGES = Pattern.compile("\\[[^\\]]*]");
    private static final Pattern LABEL_LISTS = Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern NAME = Pattern.compile("(?<![a-zA-Z0-9_:.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan", "atan2");

    /** The metric names a query reads: each name that is no function, keyword or label. */
    static Set<String> metricNames(String expr) {
        String bare = STRINGS.matcher(expr).replaceAll("\"\"");
        bare = MATCHERS.matcher(bare).replaceAll(" ");
        bare = RANGES.matcher(bare).replaceAll(" ");
        bare = LABEL_LISTS.matcher(bare).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = NAME.matcher(bare);
        while (m.find()) {
            if (m.group(2) == null && !KEYWORDS.contains(m.group(1).toLowerCase(java.util.Locale.ROOT))) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
