package io.etcdwright.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.PipedInput;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Quoted;
import io.etcdwright.engine.source.YamlDocument;
import io.etcdwright.engine.ssh.HostSession;

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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A file {@code apply} takes as its argument: a plan saved with {@code plan --out} ({@link SavedPlan})
 * or a rollout saved with {@code rollout plan --out} ({@link SavedRollout}), told apart by its
 * {@code format}. Read as every input is: bounded, strict JSON (one object, no key given twice, no
 * text after it), every value's place kept so that an error points at it
 * ({@code file:line:col: error: field: message}); and the files a saved plan was made from proved
 * unchanged, by their digests, before any host is contacted. Written 0600, as the plan files are.
 */
final class PlanFile {
    /** A plan file is a few kilobytes, a rollout's some more; anything much larger is not one. */
    static final int MAX_BYTES = 4 * 1024 * 1024;
    /** A saved rollout is five levels deep; a deeper file is not ours. */
    static final int MAX_DEPTH = 16;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH).maxStringLength(64 * 1024).maxNumberLength(32).build())
            .build();
    private static final ObjectMapper READER = new ObjectMapper(JSON)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private PlanFile() {
    }

    /**
     * One plan file as read: its tree with the place of every key and value (a {@link YamlDocument},
     * so that the schema checks of the engine point into it too).
     */
    record Read(Path file, YamlDocument document) {
        JsonNode root() {
            return document.root();
        }

        /** A saved rollout ({@link SavedRollout#FORMAT}); anything else is read as a saved plan, which says what it expects. */
        boolean isRollout() {
            return SavedRollout.FORMAT.equals(root().path("format").textValue());
        }

        /** The error at {@code field}'s value (at the nearest enclosing value that is written, when it is not). */
        InvalidInputException problem(FieldPath field, String message) {
            return new InvalidInputException(error(field, message));
        }

        Problem error(FieldPath field, String message) {
            return Problem.error(document.locationOf(field), field.toString(), message);
        }

        /** The text at {@code field}: a non-empty string without control characters, or the error {@code again} says how to mend. */
        String text(FieldPath field, String again) {
            JsonNode value = document.root().at(field.pointer());
            String name = field.toString();
            if (value.isMissingNode()) {
                throw problem(field, "is missing: the plan file is damaged (it has no " + name + "); " + again);
            }
            if (!value.isTextual() || value.textValue().isEmpty()) {
                throw problem(field, "must be a non-empty string: the plan file is damaged; " + again);
            }
            if (Quoted.firstControl(value.textValue()) >= 0) {
                throw problem(field, "contains a control character: the plan file is damaged; " + again);
            }
            return value.textValue();
        }

        /** The sha256 digest at {@code field}. */
        String sha256(FieldPath field, String again) {
            String digest = text(field, again);
            if (!digest.matches("[0-9a-f]{64}")) {
                throw problem(field, "must be a sha256 digest (64 hex digits), got " + Quoted.of(digest));
            }
            return digest;
        }

        /**
         * The input file named at {@code field}, which must still be a regular file: a saved plan is
         * applied from the inputs it was made from, read again.
         *
         * @param what  the input as the message names it ("the desired state this plan was made from")
         */
        Path existingInput(FieldPath field, String written, String what, String again) {
            Path path;
            try {
                path = Path.of(written);
            } catch (InvalidPathException e) {
                throw problem(field, "is not a usable path: " + e.getReason());
            }
            if (!Files.isRegularFile(path)) {
                throw problem(field, what + ", " + Quoted.of(written) + ", is gone ("
                        + (Files.exists(path) ? "not a regular file" : "no such file") + "); " + again);
            }
            return path;
        }
    }

    /**
     * Reads {@code file}: a file that is not a plan file (too large, binary, not JSON, not an object,
     * a key given twice) is refused as {@code file:line:col: error: ...}.
     *
     * @throws InvalidInputException when the file cannot be read or is not one JSON object
     */
    static Read read(Path file) {
        String text = readText(file);
        JsonNode root = parse(file, text);
        if (!root.isObject()) {
            throw problem(file, 1, 1, "", "is not a plan file written by etcdwright plan --out (expected a JSON object)");
        }
        Places places = new Places(file);
        try (JsonParser parser = JSON.createParser(text)) {
            parser.nextToken();
            places.walk(parser, FieldPath.ROOT);
        } catch (IOException e) {
            // parse() has read the same text already, so this does not happen; say so if it does.
            throw problem(file, 1, 1, "", "not a plan file: " + firstLine(e.getMessage()));
        }
        Read read = new Read(file, YamlDocument.of(file, root, places.values, places.keys, places.scalars));
        if (places.duplicate != null) {
            // A JSON object with two "format" keys means whatever the last one says, which is not a file etcdwright wrote.
            String again = read.isRollout() ? SavedRollout.AGAIN : SavedPlan.AGAIN;
            FieldPath key = places.duplicate;
            String name = key.lastKey().filter(k -> k.matches("[a-z0-9_]{1,64}")).isPresent() ? key.toString()
                    : key.parent().map(p -> p.isRoot() ? "" : p + ".").orElse("") + Quoted.of(key.lastKey().orElse(""));
            throw new InvalidInputException(Problem.error(places.keys.get(key.pointer()), name,
                    "is given twice (a duplicate key): the plan file is damaged; " + again));
        }
        return read;
    }

    /** Where each key and value of a JSON text is written, by JSON Pointer; the first key given twice in one object. */
    private static final class Places {
        final Map<String, Location> values = new HashMap<>();
        final Map<String, Location> keys = new HashMap<>();
        final Map<String, String> scalars = new HashMap<>();
        FieldPath duplicate;
        private final Path file;

        Places(Path file) {
            this.file = file;
        }

        void walk(JsonParser parser, FieldPath at) throws IOException {
            values.put(at.pointer(), location(parser.currentTokenLocation()));
            JsonToken token = parser.currentToken();
            if (token == JsonToken.START_OBJECT) {
                Set<String> seen = new HashSet<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    FieldPath child = at.key(name);
                    Location keyAt = location(parser.currentTokenLocation());
                    if (!seen.add(name) && duplicate == null) {
                        duplicate = child;
                        keys.put(child.pointer(), keyAt);
                    }
                    keys.putIfAbsent(child.pointer(), keyAt);
                    parser.nextToken();
                    walk(parser, child);
                }
            } else if (token == JsonToken.START_ARRAY) {
                int index = 0;
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    walk(parser, at.index(index++));
                }
            } else {
                scalars.put(at.pointer(), parser.getText());
            }
        }

        private Location location(JsonLocation at) {
            return new Location(file, line(at), column(at));
        }
    }

    /** The sha256 of an input file as it is now. */
    static String digest(Path file) {
        try {
            return HostSession.sha256(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Why an input of a plan to save cannot be proved unchanged when the plan is applied, or empty:
     * the saved plan is applied by reading its input files again and comparing their digests, and a
     * pipe gives its text once, a directory (an inventory of files) has no one digest.
     */
    static Optional<String> unsavable(List<Path> inputs) {
        for (Path given : inputs) {
            if (PipedInput.isPipe(given)) {
                return Optional.of(given + " is a pipe, and a saved plan is applied by reading its input files again; write the"
                        + " input to a file (mode 0600 if it holds secrets) to use --out, or plan and apply without saving the plan");
            }
            if (Files.isDirectory(given)) {
                return Optional.of(given + " is a directory, and a saved plan proves its inputs unchanged by each file's digest;"
                        + " give an inventory file to use --out, or plan and apply without saving the plan");
            }
        }
        return Optional.empty();
    }

    /** Writes a plan file, readable by its owner only. */
    static void write(Path file, String json) {
        try {
            Files.writeString(file, json.endsWith("\n") ? json : json + "\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plan file " + file + ": " + e.getMessage(), e);
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

    static InvalidInputException problem(Path file, int line, int column, String field, String message) {
        return new InvalidInputException(Problem.error(new Location(file, line, column), field, message));
    }
}
