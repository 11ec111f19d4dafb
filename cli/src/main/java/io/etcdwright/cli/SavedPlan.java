package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.ssh.HostSession;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A plan saved with {@code plan --out}: what it would do, the inputs it came from (by digest) and
 * the fingerprint of its steps and the facts behind them. Applying it re-gathers facts and
 * re-plans; if anything differs, the saved plan is stale and is refused, as Terraform does.
 */
record SavedPlan(Path inventory, String inventorySha256, Path spec, String specSha256, String fingerprint,
                 List<String> lines) {
    static final int FORMAT = 1;

    static SavedPlan of(Path inventory, Path spec, Plan plan) {
        return new SavedPlan(inventory.toAbsolutePath(), digest(inventory), spec.toAbsolutePath(), digest(spec),
                plan.fingerprint(), plan.steps().stream().map(s -> s.target() + ": " + s.line()).toList());
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
        try {
            Files.writeString(file, Json.write(doc) + "\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plan file " + file + ": " + e.getMessage(), e);
        }
    }

    static SavedPlan read(Path file) {
        try {
            JsonNode doc = Json.mapper().readTree(Files.readString(file));
            if (doc.path("format").asInt() != FORMAT) {
                throw new IllegalArgumentException(file + " is not a plan file written by this etcdwright");
            }
            List<String> lines = new java.util.ArrayList<>();
            doc.path("steps").forEach(n -> lines.add(n.asText()));
            return new SavedPlan(Path.of(doc.path("inventory").asText()), doc.path("inventory_sha256").asText(),
                    Path.of(doc.path("spec").asText()), doc.path("spec_sha256").asText(),
                    doc.path("fingerprint").asText(), lines);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read plan file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Why this saved plan no longer applies, or null when it still does. */
    String stalenessAgainst(Plan fresh) {
        if (!digest(inventory).equals(inventorySha256)) {
            return "the inventory " + inventory + " changed since the plan was made";
        }
        if (!digest(spec).equals(specSha256)) {
            return "the desired state " + spec + " changed since the plan was made";
        }
        if (!fresh.fingerprint().equals(fingerprint)) {
            return "the hosts changed since the plan was made; now the plan would be:\n  "
                    + String.join("\n  ", fresh.steps().stream().map(s -> s.target() + ": " + s.line()).toList());
        }
        return null;
    }

    private static String digest(Path file) {
        try {
            return HostSession.sha256(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
