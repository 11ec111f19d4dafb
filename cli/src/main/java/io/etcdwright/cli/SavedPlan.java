package io.etcdwright.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Quoted;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.config.EtcdConfigFile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A plan saved with {@code plan --out}: what it would do, the inputs it came from (by digest) and
 * the fingerprint of its steps and the facts behind them. Applying it re-gathers facts and
 * re-plans; if anything differs, the saved plan is stale and is refused, as Terraform does.
 */
record SavedPlan(Path inventory, String inventorySha256, Path spec, String specSha256, String fingerprint,
                 List<String> lines, Optional<String> bootstrapToken) {
    static final int FORMAT = 1;

    static SavedPlan of(Path inventory, Path spec, Plan plan) {
        return new SavedPlan(inventory.toAbsolutePath(), digest(inventory), spec.toAbsolutePath(), digest(spec),
                plan.fingerprint(), plan.steps().stream().map(s -> s.target() + ": " + s.line()).toList(), bootstrapTokenOf(plan));
    }

    /**
     * The token a plan that bootstraps a new cluster writes into the members' config files: chosen
     * at random by each plan, so it is kept with the saved plan for its apply to plan the same.
     */
    private static Optional<String> bootstrapTokenOf(Plan plan) {
        return plan.steps().stream().flatMap(s -> s.diff().stream())
                .filter(d -> d.path().equals(EtcdLayout.CONFIG_FILE))
                .flatMap(d -> EtcdConfigFile.tokenIn(d.after()).stream())
                .findFirst();
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
        try {
            Files.writeString(file, Json.write(doc) + "\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plan file " + file + ": " + e.getMessage(), e);
        }
    }

    /** A plan file is a few kilobytes; anything much larger is not one. */
    static final int MAX_BYTES = 4 * 1024 * 1024;
    /** A plan file is three levels deep; a deeper one is not ours. */
    static final int MAX_DEPTH = 16;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH).maxStringLength(64 * 1024).maxNumberLength(32).build())
            .build();
    private static final ObjectMapper READER = new ObjectMapper(JSON)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * Reads a plan file written by {@link #write}, bounded like every input: a file that is not
     * one (too large, binary, not JSON, another format) is refused as {@code file:line:col: error: ...}.
     *
     * @throws InvalidInputException when the file cannot be read or is not a plan file
     */
    static SavedPlan read(Path file) {
        String text = readText(file);
        JsonNode doc = parse(file, text);
        if (!doc.isObject()) {
            throw problem(file, 1, 1, "", "is not a plan file written by etcdwright plan --out (expected a JSON object)");
        }
        Map<String, JsonLocation> at = topLevelPositions(file, text);
        if (!doc.path("format").isInt() || doc.path("format").asInt() != FORMAT) {
            throw problem(file, at, "format", "is not a plan file this etcdwright can apply (format "
                    + doc.path("format") + ", expected " + FORMAT + "); run 'etcdwright plan --out' again");
        }
        String inventory = text(file, at, doc, "inventory");
        String inventorySha256 = sha256(file, at, doc, "inventory_sha256");
        String spec = text(file, at, doc, "spec");
        String specSha256 = sha256(file, at, doc, "spec_sha256");
        String fingerprint = text(file, at, doc, "fingerprint");
        if (!doc.path("steps").isArray()) {
            throw problem(file, at, "steps", "must be an array of steps, each a line of text");
        }
        List<String> lines = new ArrayList<>();
        for (JsonNode step : doc.path("steps")) {
            if (!step.isTextual()) {
                throw problem(file, at, "steps", "must be an array of steps, each a line of text");
            }
            lines.add(step.textValue());
        }
        Path inventoryPath = existing(file, at, inventory, "inventory", "inventory");
        Path specPath = existing(file, at, spec, "spec", "desired state");
        unchanged(file, at, inventoryPath, "inventory", inventorySha256, "inventory_sha256");
        unchanged(file, at, specPath, "desired state", specSha256, "spec_sha256");
        Optional<String> bootstrapToken = doc.path("bootstrap_token").isTextual()
                ? Optional.of(doc.path("bootstrap_token").textValue()) : Optional.empty();
        if (bootstrapToken.isPresent() && !bootstrapToken.get().matches("[A-Za-z0-9][A-Za-z0-9.-]{0,99}")) {
            throw problem(file, at, "bootstrap_token", "must be a cluster token as etcdwright writes them (letters, digits, '.', '-')");
        }
        return new SavedPlan(inventoryPath, inventorySha256, specPath, specSha256, fingerprint, lines, bootstrapToken);
    }

    /**
     * Where each top-level field's value starts, so an error points at it; a field given twice is
     * refused here (a JSON object with two "format" keys means whatever the last one says, which
     * is not a file etcdwright wrote).
     */
    private static Map<String, JsonLocation> topLevelPositions(Path file, String text) {
        Map<String, JsonLocation> at = new LinkedHashMap<>();
        try (JsonParser parser = JSON.createParser(text)) {
            parser.nextToken();
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String name = parser.currentName();
                JsonLocation nameAt = parser.currentTokenLocation();
                parser.nextToken();
                if (at.put(name, parser.currentTokenLocation()) != null) {
                    throw problem(file, line(nameAt), column(nameAt), name.matches("[a-z0-9_]{1,64}") ? name : Quoted.of(name),
                            "is given twice (a duplicate key): the plan file is damaged; run 'etcdwright plan --out' again");
                }
                parser.skipChildren();
            }
        } catch (IOException e) {
            // parse() has read the same text already, so this does not happen; say so if it does.
            throw problem(file, 1, 1, "", "not a plan file: " + firstLine(e.getMessage()));
        }
        return at;
    }

    /** An input the plan was made from must still be there; checked before any host is contacted. */
    private static Path existing(Path file, Map<String, JsonLocation> at, String written, String field, String what) {
        Path path;
        try {
            path = Path.of(written);
        } catch (InvalidPathException e) {
            throw problem(file, at, field, "is not a usable path: " + e.getReason());
        }
        if (!Files.isRegularFile(path)) {
            throw problem(file, at, field, "the " + what + " this plan was made from, " + Quoted.of(written) + ", is gone ("
                    + (Files.exists(path) ? "not a regular file" : "no such file") + "); run 'etcdwright plan --out' again");
        }
        return path;
    }

    /**
     * ... and unchanged: a plan made from other inputs would apply something nobody reviewed. A stale
     * plan is refused here, before any host is contacted; the fingerprint of the facts is checked
     * after gathering them ({@link #stalenessAgainst}).
     */
    private static void unchanged(Path file, Map<String, JsonLocation> at, Path input, String what, String sha256,
                                  String digestField) {
        if (!digest(input).equals(sha256)) {
            throw problem(file, at, digestField, "the " + what + " " + input + " changed since this plan was made;"
                    + " run 'etcdwright plan --out' again and review the new plan");
        }
    }

    private static String readText(Path file) {
        try {
            if (Files.isDirectory(file)) {
                throw problem(file, 1, 1, "", "cannot read: it is a directory, not a plan file");
            }
            if (!Files.isRegularFile(file)) {
                throw problem(file, 1, 1, "", Files.exists(file) ? "cannot read: not a regular file"
                        : "cannot read: no such file (looked for " + file.toAbsolutePath().normalize() + ")");
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_BYTES + 1);
            }
            if (bytes.length > MAX_BYTES) {
                throw problem(file, 1, 1, "", "the file is larger than " + (MAX_BYTES / (1024 * 1024))
                        + " MiB, so it is not a plan file written by etcdwright plan --out");
            }
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw problem(file, 1, 1, "", "cannot read: not UTF-8 text, so not a plan file (is this the right file?)");
        } catch (AccessDeniedException e) {
            throw problem(file, 1, 1, "", "cannot read: permission denied");
        } catch (IOException e) {
            throw problem(file, 1, 1, "", "cannot read: " + e.getMessage());
        }
    }

    private static JsonNode parse(Path file, String text) {
        try {
            JsonNode doc = READER.readTree(text);
            if (doc == null || doc.isMissingNode()) {
                throw problem(file, 1, 1, "", "the file is empty; expected a plan written by etcdwright plan --out");
            }
            return doc;
        } catch (StreamConstraintsException e) {
            JsonLocation at = e.getLocation();
            throw problem(file, line(at), column(at), "", "not a plan file: " + firstLine(e.getOriginalMessage())
                    + " (plan files are small and flat)");
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw problem(file, line(at), column(at), "", "not a plan file: invalid JSON: " + firstLine(e.getOriginalMessage()));
        }
    }

    private static String text(Path file, Map<String, JsonLocation> at, JsonNode doc, String field) {
        JsonNode value = doc.path(field);
        if (value.isMissingNode()) {
            throw problem(file, at, field, "is missing: the plan file is damaged (it has no " + field
                    + "); run 'etcdwright plan --out' again");
        }
        if (!value.isTextual() || value.textValue().isEmpty()) {
            throw problem(file, at, field, "must be a non-empty string: the plan file is damaged; run 'etcdwright plan --out' again");
        }
        if (Quoted.firstControl(value.textValue()) >= 0) {
            throw problem(file, at, field, "contains a control character: the plan file is damaged; run 'etcdwright plan --out' again");
        }
        return value.textValue();
    }

    private static String sha256(Path file, Map<String, JsonLocation> at, JsonNode doc, String field) {
        String digest = text(file, at, doc, field);
        if (!digest.matches("[0-9a-f]{64}")) {
            throw problem(file, at, field, "must be a sha256 digest (64 hex digits), got " + Quoted.of(digest));
        }
        return digest;
    }

    /** The error at the field's value, or at the top of the file when the field is not there. */
    private static InvalidInputException problem(Path file, Map<String, JsonLocation> at, String field, String message) {
        JsonLocation where = at.get(field);
        return problem(file, line(where), column(where), field, message);
    }

    private static int line(JsonLocation at) {
        return at == null || at.getLineNr() < 1 ? 1 : at.getLineNr();
    }

    private static int column(JsonLocation at) {
        return at == null || at.getColumnNr() < 1 ? 1 : at.getColumnNr();
    }

    private static String firstLine(String message) {
        String first = message == null ? "cannot parse" : message.strip().lines().findFirst().orElse("cannot parse");
        return first.length() > 200 ? first.substring(0, 200) + "..." : first;
    }

    private static InvalidInputException problem(Path file, int line, int column, String field, String message) {
        return new InvalidInputException(Problem.error(new Location(file, line, column), field, message));
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
