package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.rollout.RolloutPlan;
import io.etcdwright.rollout.RolloutRecord;
import io.etcdwright.run.FleetRun;
import io.etcdwright.run.ReviewedPlan;
import io.etcdwright.run.rollout.FailureBudget;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A rollout saved with {@code rollout plan --out} (schemas/saved-rollout.schema.json): what the person
 * reviewed, so that {@code apply FILE} rolls out exactly that or nothing. Its settings, its waves, and
 * each cluster's inputs by sha256 digest and its plan's fingerprint ({@link ReviewedPlan}). Reading it
 * proves every input unchanged before any host is contacted; the rollout layer then refuses the whole
 * rollout before wave 1 if any cluster's plan changed ({@link RolloutPlan.Making#reviewing}), and each
 * cluster's apply compares its plan again under its lock.
 *
 * @param id           the rollout's name, which its record gets when it is applied
 * @param offline      planned from recorded facts ({@code --facts DIR}): see {@link #OFFLINE_NOTE}
 * @param backupWithin the backup precondition asked for, checked again when it is applied
 */
record SavedRollout(String id, RolloutRecord.Settings settings, boolean offline, Optional<Duration> backupWithin, List<Wave> waves) {
    static final String FORMAT = "etcdwright-rollout";
    static final int VERSION = 1;
    static final String SCHEMA = "/schemas/saved-rollout.schema.json";
    /** How a damaged or stale saved rollout is mended. */
    static final String AGAIN = "run 'etcdwright rollout plan --out' again";
    /**
     * What a rollout planned from recorded facts cannot promise, said in the file itself: the offline
     * plan is the live plan of the same facts except where the live one asks more than the hosts
     * (run/ConvergeRun.live; OfflineAndLivePlansTest).
     */
    static final String OFFLINE_NOTE = "Planned from recorded facts: the hosts were not asked, and neither was the artifact"
            + " source. A cluster whose plan from the hosts first moves its members to a newer patch the source offers before a"
            + " minor upgrade is refused as changed when this rollout is applied (plan such a rollout from the hosts); locks,"
            + " quorum and backups are checked when it is applied.";

    SavedRollout {
        waves = List.copyOf(waves);
    }

    /** One wave: its number from 1, the label value that makes it (with {@code --waves-by}) and its clusters. */
    record Wave(int number, Optional<String> label, List<Cluster> clusters) {
        Wave {
            clusters = List.copyOf(clusters);
        }
    }

    /** One cluster: its inputs (absolute paths) and their digests, and the plan of it that was reviewed. */
    record Cluster(String name, Path spec, String specSha256, Path inventory, String inventorySha256, ReviewedPlan reviewed,
                   List<String> steps) {
        Cluster {
            steps = List.copyOf(steps);
        }
    }

    /** The rollout {@code plan} shows, which must be ready (every precondition met): what {@code apply} of it must find again. */
    static SavedRollout of(RolloutPlan plan, Optional<Duration> backupWithin) {
        if (!plan.ready()) {
            throw new IllegalStateException("a rollout whose preconditions do not all hold is not saved");
        }
        List<Wave> waves = new ArrayList<>();
        for (RolloutPlan.Wave w : plan.waves()) {
            List<Cluster> clusters = new ArrayList<>();
            for (RolloutPlan.Entry e : w.clusters()) {
                var p = e.plan().orElseThrow();
                clusters.add(new Cluster(e.name(), e.input().spec().toAbsolutePath(), PlanFile.digest(e.input().spec()),
                        e.input().inventory().toAbsolutePath(), PlanFile.digest(e.input().inventory()), ReviewedPlan.of(p),
                        p.steps().stream().map(s -> s.target() + ": " + s.line()).toList()));
            }
            waves.add(new Wave(w.number(), w.label(), clusters));
        }
        return new SavedRollout(plan.id(), plan.settings(), plan.offline(), backupWithin, waves);
    }

    /** Every cluster's input, in the rollout's order. */
    List<FleetRun.Input> inputs() {
        return clusters().stream().map(c -> new FleetRun.Input(c.spec(), c.inventory())).toList();
    }

    /** Each cluster's wave, by name. */
    Map<String, Integer> waveOf() {
        Map<String, Integer> waveOf = new LinkedHashMap<>();
        waves.forEach(w -> w.clusters().forEach(c -> waveOf.put(c.name(), w.number())));
        return waveOf;
    }

    /** The label value of each wave that has one, by wave number. */
    Map<Integer, String> labelOf() {
        Map<Integer, String> labelOf = new LinkedHashMap<>();
        waves.forEach(w -> w.label().ifPresent(l -> labelOf.put(w.number(), l)));
        return labelOf;
    }

    /** Each cluster's reviewed plan, by name. */
    Map<String, ReviewedPlan> reviewed() {
        Map<String, ReviewedPlan> reviewed = new LinkedHashMap<>();
        clusters().forEach(c -> reviewed.put(c.name(), c.reviewed()));
        return reviewed;
    }

    private List<Cluster> clusters() {
        return waves.stream().flatMap(w -> w.clusters().stream()).toList();
    }

    String toJson() {
        ObjectNode root = Json.mapper().createObjectNode();
        root.put("format", FORMAT);
        root.put("version", VERSION);
        root.put("created_at", Instant.now().toString());
        root.put("id", id);
        root.put("planned_from", offline ? "recorded facts" : "hosts");
        if (offline) {
            root.put("note", OFFLINE_NOTE);
        }
        backupWithin.ifPresent(d -> root.put("backup_within_seconds", d.toMillis() / 1000.0));
        settings.writeTo(root.putObject("settings"));
        ArrayNode list = root.putArray("waves");
        for (Wave w : waves) {
            ObjectNode wave = list.addObject();
            wave.put("wave", w.number());
            w.label().ifPresent(l -> wave.put("label", l));
            ArrayNode clusters = wave.putArray("clusters");
            for (Cluster c : w.clusters()) {
                ObjectNode n = clusters.addObject();
                n.put("name", c.name());
                n.put("spec", c.spec().toString());
                n.put("spec_sha256", c.specSha256());
                n.put("inventory", c.inventory().toString());
                n.put("inventory_sha256", c.inventorySha256());
                n.put("fingerprint", c.reviewed().fingerprint());
                c.reviewed().newClusterToken().ifPresent(t -> n.put("bootstrap_token", t));
                ArrayNode steps = n.putArray("steps");
                c.steps().forEach(steps::add);
            }
        }
        return Json.write(root);
    }

    void write(Path file) {
        PlanFile.write(file, toJson());
    }

    /**
     * The saved rollout in a plan file already read ({@link PlanFile#read}, {@link PlanFile.Read#isRollout}):
     * checked against its schema, then every input file read again. Every problem is reported at once,
     * each at its place: a changed or missing spec or inventory names the file and its cluster.
     *
     * @throws InvalidInputException before any host is contacted, when the file is not a saved rollout
     *                               this etcdwright applies or an input changed since it was saved
     */
    static SavedRollout from(PlanFile.Read read) {
        List<Problem> problems = SchemaCheck.check(read.document(), SCHEMA);
        if (!problems.isEmpty()) {
            throw new InvalidInputException(problems);
        }
        JsonNode root = read.root();
        List<Problem> found = new ArrayList<>();
        FieldPath maxFailures = FieldPath.of("settings", "max_failures");
        try {
            FailureBudget.parse(root.path("settings").path("max_failures").asText());
        } catch (IllegalArgumentException e) {
            found.add(read.error(maxFailures, "must be a count or a percentage, as --max-failures takes them"));
        }
        Map<String, FieldPath> seen = new HashMap<>();
        List<Wave> waves = new ArrayList<>();
        for (int i = 0; i < root.path("waves").size(); i++) {
            FieldPath wavePath = FieldPath.of("waves").index(i);
            JsonNode wave = root.path("waves").path(i);
            if (wave.path("wave").asInt() != i + 1) {
                found.add(read.error(wavePath.key("wave"), "is " + wave.path("wave").asInt() + ", expected " + (i + 1)
                        + ": the waves are numbered 1, 2, ... in order; the file is damaged; " + AGAIN));
            }
            List<Cluster> clusters = new ArrayList<>();
            for (int j = 0; j < wave.path("clusters").size(); j++) {
                FieldPath at = wavePath.key("clusters").index(j);
                try {
                    Cluster cluster = cluster(read, at, found);
                    FieldPath first = seen.putIfAbsent(cluster.name(), at);
                    if (first != null) {
                        found.add(read.error(at.key("name"), "cluster " + cluster.name() + " is also at " + first
                                + ": a cluster is in one wave of a rollout; the file is damaged; " + AGAIN));
                    }
                    clusters.add(cluster);
                } catch (InvalidInputException e) {
                    found.addAll(e.problems());
                }
            }
            waves.add(new Wave(i + 1, wave.has("label") ? Optional.of(wave.path("label").asText()) : Optional.empty(), clusters));
        }
        if (!found.isEmpty()) {
            throw new InvalidInputException(found);
        }
        Optional<Duration> backupWithin = root.has("backup_within_seconds")
                ? Optional.of(Duration.ofMillis(Math.round(root.path("backup_within_seconds").asDouble() * 1000))) : Optional.empty();
        return new SavedRollout(root.path("id").asText(), RolloutRecord.Settings.of(root.path("settings")),
                "recorded facts".equals(root.path("planned_from").asText()), backupWithin, waves);
    }

    /**
     * One cluster of the file, its inputs still there and unchanged; a changed digest is added to
     * {@code found} (every cluster's, not only the first), a gone file thrown.
     */
    private static Cluster cluster(PlanFile.Read read, FieldPath at, List<Problem> found) {
        String name = read.text(at.key("name"), AGAIN);
        Path spec = read.existingInput(at.key("spec"), read.text(at.key("spec"), AGAIN), "the spec of cluster " + name, AGAIN);
        Path inventory = read.existingInput(at.key("inventory"), read.text(at.key("inventory"), AGAIN),
                "the inventory of cluster " + name, AGAIN);
        String specSha256 = read.sha256(at.key("spec_sha256"), AGAIN);
        String inventorySha256 = read.sha256(at.key("inventory_sha256"), AGAIN);
        // Not silently applied as something nobody reviewed: every file read again before any host is contacted.
        if (!PlanFile.digest(spec).equals(specSha256)) {
            found.add(read.error(at.key("spec_sha256"), "the spec " + spec + " of cluster " + name
                    + " changed since the rollout was saved; " + AGAIN + " and review it"));
        }
        if (!PlanFile.digest(inventory).equals(inventorySha256)) {
            found.add(read.error(at.key("inventory_sha256"), "the inventory " + inventory + " of cluster " + name
                    + " changed since the rollout was saved; " + AGAIN + " and review it"));
        }
        JsonNode node = read.root().at(at.pointer());
        Optional<String> token = node.has("bootstrap_token") ? Optional.of(node.path("bootstrap_token").asText()) : Optional.empty();
        List<String> steps = new ArrayList<>();
        node.path("steps").forEach(s -> steps.add(s.asText()));
        return new Cluster(name, spec, specSha256, inventory, inventorySha256,
                new ReviewedPlan(read.text(at.key("fingerprint"), AGAIN), token), steps);
    }
}
