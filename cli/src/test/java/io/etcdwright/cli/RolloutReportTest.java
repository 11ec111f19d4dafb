package io.etcdwright.cli;

import io.etcdwright.rollout.ClusterState;
import io.etcdwright.rollout.RolloutRecord;
import io.etcdwright.rollout.RolloutState;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a rollout is reported: its record's JSON against its schema, the JUnit report, the summary, and its options checked. */
class RolloutReportTest {
    static RolloutRecord stoppedInWaveTwo() {
        Instant t = Instant.parse("2026-12-02T10:00:00Z");
        return new RolloutRecord("r1", RolloutState.STOPPED, Optional.of("wave 2: 1 of 2 clusters failed, more than its budget (0)"),
                t, t.plusSeconds(90), "ops@ws1", new RolloutRecord.Settings("1,2", Optional.empty(), 8, "0", 2, Duration.ofSeconds(10),
                Duration.ZERO, false),
                List.of(new RolloutRecord.Cluster("a", "specs/a.yaml", "hosts.yaml", 1, ClusterState.DONE, Optional.empty(), 11, 58.1),
                        new RolloutRecord.Cluster("b", "specs/b.yaml", "hosts.yaml", 2, ClusterState.DONE, Optional.empty(), 11, 70),
                        new RolloutRecord.Cluster("c", "specs/c.yaml", "hosts.yaml", 2, ClusterState.FAILED,
                                Optional.of("health gate, check 1 of 2: h8 is not healthy: <connection refused> & gone"), 12, 71),
                        // Of a saved rollout: the plan of it that was reviewed, kept for its turn.
                        new RolloutRecord.Cluster("d", "specs/d.yaml", "hosts.yaml", 3, ClusterState.WAITING, Optional.empty(), 0, 0,
                                Optional.of(new io.etcdwright.run.ReviewedPlan("ab".repeat(32), Optional.of("d-0123456789ab"))))));
    }

    @Test
    void theRecordsJsonMatchesItsSchemaAndReadsBackTheSame() throws Exception {
        RolloutRecord record = stoppedInWaveTwo();
        String json = RolloutReport.json(record);
        JsonOutputSchemaTest.conforms("rollout", json);
        assertEquals(record, RolloutRecord.parse(record.toJson(), "test"));
        assertTrue(!json.contains("waves_by"), "sized waves name no label: " + json);
        assertTrue(json.contains("\"saved_plan\" : {\n      \"fingerprint\" : \"" + "ab".repeat(32)), json);
    }

    /** --waves-by is kept in the record's settings; a record written before it (no waves_by) still reads, as sized waves. */
    @Test
    void theLabelOfTheWavesIsKeptInTheRecordAndARecordWithoutItStillReads() throws Exception {
        RolloutRecord sized = stoppedInWaveTwo();
        RolloutRecord.Settings s = sized.settings();
        RolloutRecord byLabel = new RolloutRecord(sized.id(), sized.state(), sized.reason(), sized.created(), sized.updated(), sized.by(),
                new RolloutRecord.Settings("by label site", Optional.of("site"), s.parallel(), s.maxFailures(), s.validateCount(),
                        s.validateInterval(), s.soak(), s.pauseAfterWave()), sized.clusters());
        com.fasterxml.jackson.databind.JsonNode settings = JsonOutputSchemaTest.conforms("rollout", RolloutReport.json(byLabel))
                .path("settings");
        assertEquals("site", settings.path("waves_by").asText());
        assertEquals("by label site", settings.path("waves").asText());
        assertEquals(byLabel, RolloutRecord.parse(byLabel.toJson(), "test"));

        String before = """
                {"version": 1, "id": "r0", "state": "done", "created": "2026-11-30T09:00:00Z", "updated": "2026-11-30T09:20:00Z",
                 "by": "ops@ws1", "settings": {"waves": "1,100%", "parallel": 8, "max_failures": "0", "validate_count": 2,
                 "validate_interval_seconds": 10.0, "soak_seconds": 0.0, "pause_after_wave": false},
                 "clusters": [{"name": "a", "spec": "a.yaml", "inventory": "h.yaml", "wave": 1, "state": "done", "steps": 3, "seconds": 40.0}]}
                """;
        JsonOutputSchemaTest.conforms("rollout", before);
        RolloutRecord old = RolloutRecord.parse(before.getBytes(StandardCharsets.UTF_8), "r0.json");
        assertEquals(Optional.empty(), old.settings().wavesBy());
        assertEquals("1,100%", old.settings().waves());
        assertEquals(1, old.waveCount());
    }

    @Test
    void theJunitReportHasASuiteAWaveAndTheFailureWithItsError() throws Exception {
        Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(
                RolloutReport.junit(stoppedInWaveTwo(), Instant.parse("2026-12-02T10:01:30Z")).getBytes(StandardCharsets.UTF_8)));
        assertEquals(3, xml.getElementsByTagName("testsuite").getLength());
        assertEquals(4, xml.getElementsByTagName("testcase").getLength());
        assertEquals(1, xml.getElementsByTagName("failure").getLength());
        Element failure = (Element) xml.getElementsByTagName("failure").item(0);
        assertEquals("c", ((Element) failure.getParentNode()).getAttribute("name"));
        assertEquals("health gate, check 1 of 2: h8 is not healthy: <connection refused> & gone", failure.getAttribute("message"));
        Element wave3 = (Element) xml.getElementsByTagName("testsuite").item(2);
        assertEquals("1", wave3.getAttribute("skipped"));
        assertEquals("waiting", ((Element) wave3.getElementsByTagName("skipped").item(0)).getAttribute("message"));
    }

    @Test
    void theSummaryHasARowAClusterAndSaysWhyItStopped() {
        StringWriter text = new StringWriter();
        RolloutReport.summary(stoppedInWaveTwo(), new PrintWriter(text, true));
        List<String> lines = text.toString().lines().toList();
        assertEquals("CLUSTER  WAVE  RESULT      STEPS     TIME", lines.get(1));
        assertEquals("c           2  failed         12    71.0s", lines.get(4));
        assertTrue(text.toString().contains("Rollout r1 stopped: wave 2: 1 of 2 clusters failed"), text.toString());
    }

    @Test
    void everyRolloutOptionIsCheckedBeforeAnyHost() {
        assertRefused("--waves", "1,,5");
        assertRefused("--waves", "0");
        assertRefused("--waves", "150%");
        assertRefused("--max-failures", "-1");
        assertRefused("--soak", "ten minutes");
        assertRefused("--validate-interval", "5x");
        assertRefused("--rollout", "Not_A_Name");
        RolloutOptions ok = options();
        ok.waves = "1,3,25%";
        ok.soak = "1h30m";
        RolloutRecord.Settings s = ok.settings(4);
        assertEquals(Duration.ofMinutes(90), s.soak());
        assertEquals("1,3,25%", s.waves());
        assertEquals(Optional.empty(), s.wavesBy());
        assertEquals(4, s.parallel());

        RolloutOptions byLabel = options();
        byLabel.wavesBy = "site";
        assertEquals(new io.etcdwright.run.rollout.LabelWaves("site"), byLabel.grouping());
        assertEquals(Optional.of("site"), byLabel.settings(8).wavesBy());
        assertEquals("by label site", byLabel.settings(8).waves());
        assertTrue(byLabel.asked(), "--waves-by makes one spec's apply a rollout, as --waves does");
        byLabel.waves = "1,3";
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> byLabel.settings(8));
        assertEquals("--waves 1,3 and --waves-by site: give one, the sizes of the waves or the label whose values are the waves",
                both.getMessage());
        RolloutOptions badLabel = options();
        badLabel.wavesBy = "Site Name";
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> badLabel.settings(8));
        assertTrue(bad.getMessage().startsWith("--waves-by Site Name: not a label key"), bad.getMessage());
    }

    private static RolloutOptions options() {
        RolloutOptions o = new RolloutOptions();
        o.maxFailures = "0";
        o.validateCount = 2;
        o.validateInterval = "10s";
        o.soak = "0";
        return o;
    }

    private static void assertRefused(String option, String value) {
        RolloutOptions o = options();
        switch (option) {
            case "--waves" -> o.waves = value;
            case "--max-failures" -> o.maxFailures = value;
            case "--soak" -> o.soak = value;
            case "--validate-interval" -> o.validateInterval = value;
            default -> o.name = value;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            o.settings(8);
            o.id();
        });
        assertTrue(e.getMessage().contains(option.equals("--rollout") ? "rollout name" : option), option + " " + value + ": " + e.getMessage());
    }

    @Test
    void theShardsReportsJoinIntoOneWithEveryClusterOnceAndTheWorstState() throws Exception {
        Instant t = Instant.parse("2026-12-02T10:00:00Z");
        RolloutRecord.Settings settings = new RolloutRecord.Settings("2,8", Optional.empty(), 8, "0", 2, Duration.ofSeconds(10),
                Duration.ZERO, false);
        RolloutRecord one = new RolloutRecord("r3-wave2-shard1of2", RolloutState.DONE, Optional.empty(), t, t.plusSeconds(40), "ci@a",
                settings, List.of(new RolloutRecord.Cluster("f05", "f05.yaml", "h.yaml", 2, ClusterState.DONE, Optional.empty(), 4, 30),
                new RolloutRecord.Cluster("f03", "f03.yaml", "h.yaml", 2, ClusterState.DONE, Optional.empty(), 4, 31)));
        RolloutRecord two = new RolloutRecord("r3-wave2-shard2of2", RolloutState.STOPPED, Optional.of("wave 2: 1 of 1 failed"), t,
                t.plusSeconds(50), "ci@b", settings, List.of(new RolloutRecord.Cluster("f04", "f04.yaml", "h.yaml", 2,
                ClusterState.FAILED, Optional.of("refused"), 0, 3)));
        RolloutRecord merged = RolloutCommand.Report.merge(List.of(one, two), List.of(java.nio.file.Path.of("1.json"),
                java.nio.file.Path.of("2.json")));
        assertEquals("r3", merged.id());
        assertEquals(RolloutState.STOPPED, merged.state());
        assertEquals(Optional.of("r3-wave2-shard2of2: wave 2: 1 of 1 failed"), merged.reason());
        assertEquals(List.of("f03", "f04", "f05"), merged.clusters().stream().map(RolloutRecord.Cluster::name).toList());
        assertEquals(t.plusSeconds(50), merged.updated());
        JsonOutputSchemaTest.conforms("rollout", RolloutReport.json(merged));
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> RolloutCommand.Report.merge(List.of(one, one),
                List.of(java.nio.file.Path.of("1.json"), java.nio.file.Path.of("1b.json"))));
        assertTrue(twice.getMessage().contains("cluster f05 is also in 1.json"), twice.getMessage());
    }
}
