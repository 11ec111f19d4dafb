package io.etcdwright.engine.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cluster.labels: read in the order written, each key and value held to Kubernetes' label syntax at
 * its line and column, and the schema's rule the same as the one {@code --waves-by} names a label by.
 */
class ClusterLabelsTest {

    private static final String HEAD = """
            cluster:
              name: demo
            """;
    private static final String TAIL = """
            etcd:
              version: 3.5.16
            """;

    @TempDir
    Path dir;

    private ClusterSpec load(String labels) {
        return ClusterSpecLoader.load(Fixtures.write(dir, "demo.yaml", HEAD + labels + TAIL), SupportFloorRules.RULES);
    }

    private List<String> problems(String labels) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load(labels));
        return e.errors().stream().map(Problem::toString).map(line -> line.replace(dir + "/", "")).toList();
    }

    @Test
    void labelsAreReadInTheOrderWrittenAndNoneIsAnEmptyMap() {
        ClusterSpec spec = load("""
                  labels:
                    site: dc1
                    tier: canary
                    example.com/owner: team-a_2
                    rack: ""
                """);
        assertEquals(List.of("site", "tier", "example.com/owner", "rack"), List.copyOf(spec.labels().keySet()));
        assertEquals(Map.of("site", "dc1", "tier", "canary", "example.com/owner", "team-a_2", "rack", ""), spec.labels());
        assertEquals(Map.of(), load("").labels());
        assertEquals(Map.of(), load("  labels: {}\n").labels());
    }

    @Test
    void aKeyThatIsNoLabelKeyIsRefusedAtTheKey() {
        String rule = "is not " + LabelSyntax.KEY_RULE;
        assertEquals(List.of("demo.yaml:4:5: error: cluster.labels.-site: " + rule), problems("  labels:\n    -site: dc1\n"));
        assertEquals(List.of("demo.yaml:4:5: error: cluster.labels.Example.com/site: " + rule),
                problems("  labels:\n    Example.com/site: dc1\n"), "a prefix is a lower-case DNS subdomain");
        assertEquals(List.of("demo.yaml:4:5: error: cluster.labels.a/b/c: " + rule), problems("  labels:\n    a/b/c: x\n"));
        assertEquals(List.of("demo.yaml:4:5: error: cluster.labels." + "n".repeat(64) + ": " + rule),
                problems("  labels:\n    " + "n".repeat(64) + ": x\n"), "a name is at most 63 characters");
    }

    @Test
    void aValueThatIsNoLabelValueIsRefusedAtTheValue() {
        String rule = "must be a label value: empty, or 1 to 63 letters, digits, '-', '_' or '.' that start and end with a letter or"
                + " digit, like dc1";
        assertEquals(List.of("demo.yaml:4:11: error: cluster.labels.site: " + rule + ", got \"dc 1\""),
                problems("  labels:\n    site: dc 1\n"));
        assertEquals(List.of("demo.yaml:4:11: error: cluster.labels.site: " + rule + ", got \"dc1-\""),
                problems("  labels:\n    site: dc1-\n"));
        assertEquals(List.of("demo.yaml:4:11: error: cluster.labels.site: " + rule + ", got \"" + "v".repeat(64) + "\""),
                problems("  labels:\n    site: " + "v".repeat(64) + "\n"));
        assertEquals(List.of("demo.yaml:4:11: error: cluster.labels.tier: must be a label value, a string: quote a number or"
                + " true/false ('1', 'true'), got integer 1"), problems("  labels:\n    tier: 1\n"));
    }

    @Test
    void labelsThatAreNoMappingAreRefused() {
        String rule = "must be a mapping of label keys to values, like {site: dc1, tier: canary}";
        assertEquals(List.of("demo.yaml:3:11: error: cluster.labels: " + rule + ", got a list"), problems("  labels: [site, dc1]\n"));
        assertEquals(List.of("demo.yaml:3:11: error: cluster.labels: " + rule + ", got string \"site=dc1\""),
                problems("  labels: site=dc1\n"));
    }

    @Test
    void labelKeysFollowKubernetesRules() {
        for (String key : List.of("site", "a", "Tier_2", "x.y-z", "example.com/tier", "a-b.example.com/c", "k8s.io/zone",
                "p".repeat(253) + "/n", "p/" + "n".repeat(63))) {
            assertTrue(LabelSyntax.isKey(key), key);
        }
        for (String key : List.of("", "/site", "site/", "-a", "a-", "a b", "a/b/c", "EXAMPLE.com/x", "ex_ample.com/x", "a..b/c",
                "p".repeat(254) + "/n", "n".repeat(64), "site\n")) {
            assertFalse(LabelSyntax.isKey(key), key);
        }
    }

    @Test
    void theSchemaWritesTheSameRulesAsLabelSyntax() throws Exception {
        JsonNode labels;
        try (InputStream in = ClusterLabelsTest.class.getResourceAsStream("/schemas/cluster.schema.json")) {
            labels = new ObjectMapper().readTree(in).at("/properties/cluster/properties/labels");
        }
        assertEquals(LabelSyntax.KEY_PATTERN, labels.at("/propertyNames/pattern").asText());
        assertEquals(LabelSyntax.VALUE_PATTERN, labels.at("/additionalProperties/pattern").asText());
        assertEquals("is not " + LabelSyntax.KEY_RULE, labels.at("/errorMessage/propertyNames").asText());
    }
}
