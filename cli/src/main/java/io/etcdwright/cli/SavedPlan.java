package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.run.ReviewedPlan;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A plan saved with {@code plan --out}: what it would do, the inputs it came from (by digest) and
 * the fingerprint of its steps and the facts behind them. Applying it re-gathers facts and
 * re-plans; if anything differs, the saved plan is stale and is refused, as Terraform does
 * ({@link ReviewedPlan}, checked under the cluster's lock).
 */
record SavedPlan(Path inventory, String inventorySha256, Path spec, String specSha256, String fingerprint,
                 List<String> lines, Optional<String> bootstrapToken) {
    static final int FORMAT = 1;
    /** How a damaged or stale plan file is mended. */
    static final String AGAIN = "run 'etcdwright plan --out' again";

    static SavedPlan of(Path inventory, Path spec, Plan plan) {
        ReviewedPlan reviewed = ReviewedPlan.of(plan);
        return new SavedPlan(inventory.toAbsolutePath(), PlanFile.digest(inventory), spec.toAbsolutePath(), PlanFile.digest(spec),
                reviewed.fingerprint(), plan.steps().stream().map(s -> s.target() + ": " + s.line()).toList(),
                reviewed.newClusterToken());
    }

    /** What its apply must find again under the cluster's lock. */
    ReviewedPlan reviewed() {
        return new ReviewedPlan(fingerprint, bootstrapToken);
    }

    void write(Path file) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("format", FORMAT);
        doc.put("created_at", Instant.now().toString());
        doc.put("inventory", inventory.toString());
        doc.put("inventory_sha256", inventorySha256);
        doc.put("spec", spec.toString());
        doc.put("spec_sha256", specSha256);
        doc.put("fingerprint", fingerprint);
        doc.put("steps", lines);
        bootstrapToken.ifPresent(token -> doc.put("bootstrap_token", token));
        PlanFile.write(file, Json.write(doc));
    }

    /**
     * Reads a plan file written by {@link #write}, bounded like every input: a file that is not
     * one (too large, binary, not JSON, another format) is refused as {@code file:line:col: error: ...}.
     *
     * @throws InvalidInputException when the file cannot be read or is not a plan file
     */
    static SavedPlan read(Path file) {
        return from(PlanFile.read(file));
    }

    /** The saved plan in a plan file already read ({@link PlanFile#read}); its inputs proved unchanged. */
    static SavedPlan from(PlanFile.Read read) {
        JsonNode doc = read.root();
        FieldPath format = FieldPath.of("format");
        if (!doc.path("format").isInt() || doc.path("format").asInt() != FORMAT) {
            throw read.problem(format, "is not a plan file this etcdwright can apply (format "
                    + doc.path("format") + ", expected " + FORMAT + ", or \"" + SavedRollout.FORMAT + "\" for a rollout saved with"
                    + " 'etcdwright rollout plan --out'); " + AGAIN);
        }
        String inventory = read.text(FieldPath.of("inventory"), AGAIN);
        String inventorySha256 = read.sha256(FieldPath.of("inventory_sha256"), AGAIN);
        String spec = read.text(FieldPath.of("spec"), AGAIN);
        String specSha256 = read.sha256(FieldPath.of("spec_sha256"), AGAIN);
        String fingerprint = read.text(FieldPath.of("fingerprint"), AGAIN);
        FieldPath steps = FieldPath.of("steps");
        if (!doc.path("steps").isArray()) {
            throw read.problem(steps, "must be an array of steps, each a line of text");
        }
        List<String> lines = new ArrayList<>();
        for (JsonNode step : doc.path("steps")) {
            if (!step.isTextual()) {
                throw read.problem(steps, "must be an array of steps, each a line of text");
            }
            lines.add(step.textValue());
        }
        Path inventoryPath = read.existingInput(FieldPath.of("inventory"), inventory, "the inventory this plan was made from", AGAIN);
        Path specPath = read.existingInput(FieldPath.of("spec"), spec, "the desired state this plan was made from", AGAIN);
        unchanged(read, inventoryPath, "inventory", inventorySha256, "inventory_sha256");
        unchanged(read, specPath, "desired state", specSha256, "spec_sha256");
        Optional<String> bootstrapToken = doc.path("bootstrap_token").isTextual()
                ? Optional.of(doc.path("bootstrap_token").textValue()) : Optional.empty();
        if (bootstrapToken.isPresent() && !ReviewedPlan.TOKEN.matcher(bootstrapToken.get()).matches()) {
            throw read.problem(FieldPath.of("bootstrap_token"), "must be a cluster token as etcdwright writes them (letters, digits, '.', '-')");
        }
        return new SavedPlan(inventoryPath, inventorySha256, specPath, specSha256, fingerprint, lines, bootstrapToken);
    }

    /**
     * ... and unchanged: a plan made from other inputs would apply something nobody reviewed. A stale
     * plan is refused here, before any host is contacted; the fingerprint of the facts is checked
     * after gathering them ({@link #stalenessAgainst}).
     */
    private static void unchanged(PlanFile.Read read, Path input, String what, String sha256, String digestField) {
        if (!PlanFile.digest(input).equals(sha256)) {
            throw read.problem(FieldPath.of(digestField), "the " + what + " " + input + " changed since this plan was made;"
                    + " run 'etcdwright plan --out' again and review the new plan");
        }
    }

    /** Why an input file changed since the plan was read, or empty: checked again when the plan is applied. */
    Optional<String> inputsChanged() {
        if (!PlanFile.digest(inventory).equals(inventorySha256)) {
            return Optional.of("the inventory " + inventory + " changed since the plan was made");
        }
        if (!PlanFile.digest(spec).equals(specSha256)) {
            return Optional.of("the desired state " + spec + " changed since the plan was made");
        }
        return Optional.empty();
    }

    /** Why this saved plan no longer applies, or null when it still does. */
    String stalenessAgainst(Plan fresh) {
        return inputsChanged().or(() -> reviewed().staleness(fresh)).orElse(null);
    }
}
