package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.ssh.HostSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A saved rollout given to {@code apply} is input like any other: bounded, strict, checked against its
 * schema (schemas/saved-rollout.schema.json) and refused as {@code file:line:col: error: field: message},
 * every problem at once, before any host is contacted.
 */
class SavedRolloutReadTest {
    private static final String FINGERPRINT = "f".repeat(64);

    @TempDir
    Path dir;

    private Path input(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private static String sha256(String text) {
        return HostSession.sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A saved rollout of clusters a (wave 1) and b (wave 2), its inputs in {@link #dir}; {@code edit} changes its text. */
    private String rollout(java.util.function.UnaryOperator<String> edit) throws Exception {
        Path hosts = input("hosts.yaml", "all: {}\n");
        Path a = input("a.yaml", "cluster: {name: a}\n");
        Path b = input("b.yaml", "cluster: {name: b}\n");
        return edit.apply("""
                {
                  "format" : "etcdwright-rollout",
                  "version" : 1,
                  "created_at" : "2026-12-02T10:00:00Z",
                  "id" : "r1",
                  "planned_from" : "hosts",
                  "settings" : {
                    "waves" : "1,100%%",
                    "parallel" : 8,
                    "max_failures" : "0",
                    "validate_count" : 2,
                    "validate_interval_seconds" : 10.0,
                    "soak_seconds" : 0.0,
                    "pause_after_wave" : false
                  },
                  "waves" : [ {
                    "wave" : 1,
                    "clusters" : [ {
                      "name" : "a",
                      "spec" : "%s",
                      "spec_sha256" : "%s",
                      "inventory" : "%s",
                      "inventory_sha256" : "%s",
                      "fingerprint" : "%s",
                      "steps" : [ "h1: > start etcd (not running)" ]
                    } ]
                  }, {
                    "wave" : 2,
                    "clusters" : [ {
                      "name" : "b",
                      "spec" : "%s",
                      "spec_sha256" : "%s",
                      "inventory" : "%s",
                      "inventory_sha256" : "%s",
                      "fingerprint" : "%s",
                      "bootstrap_token" : "b-0123456789ab",
                      "steps" : [ ]
                    } ]
                  } ]
                }
                """.formatted(a, sha256("cluster: {name: a}\n"), hosts, sha256("all: {}\n"), FINGERPRINT,
                b, sha256("cluster: {name: b}\n"), hosts, sha256("all: {}\n"), FINGERPRINT));
    }

    private Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    /** Every problem of reading {@code file} as {@code apply} does, each as it is printed. */
    private static List<String> refusals(Path file) {
        InvalidInputException e = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> assertThrows(InvalidInputException.class, () -> {
                    PlanFile.Read read = PlanFile.read(file);
                    assertTrue(read.isRollout(), "read as a saved rollout");
                    SavedRollout.from(read);
                }));
        return e.problems().stream().map(Problem::toString).toList();
    }

    @Test
    void aSavedRolloutIsReadWithItsWavesSettingsAndReviewedPlans() throws Exception {
        Path file = file("ok.json", rollout(t -> t));
        JsonOutputSchemaTest.conforms("saved-rollout", Files.readString(file));
        SavedRollout saved = SavedRollout.from(PlanFile.read(file));
        assertEquals("r1", saved.id());
        assertEquals(Map.of("a", 1, "b", 2), saved.waveOf());
        assertEquals(dir.resolve("b.yaml"), saved.inputs().get(1).spec());
        assertEquals(Optional.of("b-0123456789ab"), saved.reviewed().get("b").newClusterToken());
        assertEquals(FINGERPRINT, saved.reviewed().get("a").fingerprint());
        assertEquals(Duration.ofSeconds(10), saved.settings().validateInterval());
        assertFalse(saved.offline());
        assertEquals(Optional.empty(), saved.backupWithin());
        // What it writes is what it reads.
        Path again = dir.resolve("again.json");
        saved.write(again);
        assertEquals(saved, SavedRollout.from(PlanFile.read(again)));
    }

    @Test
    void notJsonIsRefusedAtItsPosition() throws Exception {
        Path file = file("bad.json", "{\"format\": \"etcdwright-rollout\",\n  oops}\n");
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> PlanFile.read(file));
        assertTrue(e.problems().get(0).toString().startsWith(file + ":2:3: error: not a plan file: invalid JSON: Unexpected character"),
                e.getMessage());
    }

    @Test
    void aWrongFormatIsRefusedAtItsFieldSayingWhatIsExpected() throws Exception {
        Path file = file("format.json", rollout(t -> t.replace("\"etcdwright-rollout\"", "\"etcdwright-rolout\"")));
        PlanFile.Read read = PlanFile.read(file);
        assertFalse(read.isRollout());
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SavedPlan.from(read));
        assertEquals(file + ":2:14: error: format: is not a plan file this etcdwright can apply (format \"etcdwright-rolout\","
                + " expected 1, or \"etcdwright-rollout\" for a rollout saved with 'etcdwright rollout plan --out'); run"
                + " 'etcdwright plan --out' again", e.problems().get(0).toString());
    }

    @Test
    void anotherVersionIsRefusedAtItsField() throws Exception {
        assertEquals(List.of(dir.resolve("v2.json") + ":3:15: error: version: must be 1, the saved rollouts this etcdwright applies"
                        + " (run 'etcdwright rollout plan --out' again), got 2"),
                refusals(file("v2.json", rollout(t -> t.replace("\"version\" : 1", "\"version\" : 2")))));
    }

    @Test
    void everyProblemOfTheFileIsReportedAtItsPlace() throws Exception {
        Path file = file("damaged.json", rollout(t -> t.replace("\"planned_from\" : \"hosts\",", "\"planned_from\" : \"hosts\", \"extra\" : 1,")
                .replace("\"fingerprint\" : \"" + FINGERPRINT + "\",\n      \"bootstrap_token\"", "\"bootstrap_token\"")
                .replace("\"max_failures\" : \"0\"", "\"max_failures\" : 0")));
        List<String> problems = refusals(file);
        assertTrue(problems.contains(file + ":6:29: error: extra: unknown field 'extra' (allowed: format, version, created_at, id,"
                + " planned_from, note, backup_within_seconds, settings, waves)"), problems.toString());
        assertTrue(problems.contains(file + ":10:22: error: settings.max_failures: must be a string, got integer 0"), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(file + ":29:") && p.contains("waves[1].clusters[0].fingerprint:"
                + " required field 'fingerprint' is missing")), problems.toString());
    }

    @Test
    void wavesOutOfOrderAClusterTwiceAndABadBudgetAreRefused() throws Exception {
        Path file = file("order.json", rollout(t -> t.replace("\"wave\" : 2", "\"wave\" : 3").replace("\"name\" : \"b\"", "\"name\" : \"a\"")
                .replace("\"max_failures\" : \"0\"", "\"max_failures\" : \"lots\"")));
        assertEquals(List.of(file + ":10:22: error: settings.max_failures: must be a count or a percentage, as --max-failures takes them",
                file + ":28:14: error: waves[1].wave: is 3, expected 2: the waves are numbered 1, 2, ... in order; the file is damaged;"
                        + " run 'etcdwright rollout plan --out' again",
                file + ":30:16: error: waves[1].clusters[0].name: cluster a is also at waves[0].clusters[0]: a cluster is in one wave"
                        + " of a rollout; the file is damaged; run 'etcdwright rollout plan --out' again"), refusals(file));
    }

    @Test
    void aKeyGivenTwiceAnywhereIsRefusedAtIt() throws Exception {
        Path file = file("dup.json", rollout(t -> t.replace("\"name\" : \"b\",", "\"name\" : \"b\", \"name\" : \"c\",")));
        assertEquals(List.of(file + ":30:21: error: waves[1].clusters[0].name: is given twice (a duplicate key): the plan file is"
                + " damaged; run 'etcdwright rollout plan --out' again"), refusals(file));
    }

    @Test
    void everyChangedInputIsNamedAtItsDigest() throws Exception {
        Path file = file("changed.json", rollout(t -> t));
        Files.writeString(dir.resolve("hosts.yaml"), "all: {hosts: {h9: {}}}\n");
        assertEquals(List.of(
                file + ":23:28: error: waves[0].clusters[0].inventory_sha256: the inventory " + dir.resolve("hosts.yaml")
                        + " of cluster a changed since the rollout was saved; run 'etcdwright rollout plan --out' again and review it",
                file + ":34:28: error: waves[1].clusters[0].inventory_sha256: the inventory " + dir.resolve("hosts.yaml")
                        + " of cluster b changed since the rollout was saved; run 'etcdwright rollout plan --out' again and review it"),
                refusals(file));
    }

    @Test
    void applyPrintsTheProblemsAndExitsOne() throws Exception {
        Path file = file("v2.json", rollout(t -> t.replace("\"version\" : 1", "\"version\" : 2")));
        FactsFileTest.Result r = FactsFileTest.run("apply", file.toString());
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith(file + ":3:15: error: version: must be 1, the saved rollouts this etcdwright applies"), r.err());
        assertTrue(r.err().contains("No host was contacted"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    /** The settings are the rollout record's: one subschema, kept the same in both schemas. */
    @Test
    void theSettingsAreDescribedAsTheRecordDescribesThem() throws Exception {
        JsonNode saved = JsonOutputSchemaTest.MAPPER.readTree(Path.of("../schemas/saved-rollout.schema.json").toFile());
        JsonNode record = JsonOutputSchemaTest.MAPPER.readTree(Path.of("../schemas/rollout.schema.json").toFile());
        JsonNode ours = saved.path("properties").path("settings").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) ours).remove("description");
        assertEquals(record.path("properties").path("settings"), ours);
    }
}
