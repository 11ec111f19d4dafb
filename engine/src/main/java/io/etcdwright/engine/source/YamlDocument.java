package io.etcdwright.engine.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One YAML file read into a Jackson tree, remembering where every key and value was written.
 *
 * <p>We go through snakeyaml's composer (node graph with marks) instead of its constructor
 * (plain Java objects) because every later error must point at a line and column. Scalars
 * get the types snakeyaml's YAML 1.1 resolver gives them ({@code 22} an int, {@code yes} a
 * boolean, {@code 3.5} a float, {@code 3.5.16} a string, {@code ~} null), so a value means
 * the same to us as to Ansible's YAML loader.
 *
 * <p>Stricter than plain snakeyaml on purpose: a key written twice in one mapping is an
 * error (the second silently winning hides typos in inventories), and so is a second
 * document in the file. Problems never escape as snakeyaml stack traces: they become
 * {@link Problem}s inside an {@link InvalidInputException}.
 */
public final class YamlDocument {

    private final Path file;
    private final JsonNode root;
    private final Map<String, Location> valueLocations;
    private final Map<String, Location> keyLocations;
    private final Map<String, String> scalarTexts;
    private final List<Problem> warnings;

    /** Built by {@link YamlTreeBuilder}; the maps are by JSON Pointer and are not copied. */
    YamlDocument(Path file, JsonNode root, Map<String, Location> valueLocations, Map<String, Location> keyLocations,
                 Map<String, String> scalarTexts, List<Problem> warnings) {
        this.file = file;
        this.root = root;
        this.valueLocations = valueLocations;
        this.keyLocations = keyLocations;
        this.scalarTexts = scalarTexts;
        this.warnings = List.copyOf(warnings);
    }

    /**
     * Reads and parses {@code file}.
     *
     * @throws InvalidInputException when the file cannot be read or is not one valid YAML document
     */
    public static YamlDocument load(Path file) {
        return parse(file, read(file));
    }

    /**
     * Parses {@code text} as if it were the content of {@code file} (used in messages only).
     *
     * @throws InvalidInputException when the text is not one valid YAML document
     */
    public static YamlDocument parse(Path file, String text) {
        String withoutByteOrderMark = text.startsWith("\uFEFF") ? text.substring(1) : text;
        return new YamlTreeBuilder(file).build(withoutByteOrderMark);
    }

    /**
     * A document read by another parser (an INI inventory) that has the tree and the places of
     * its keys and values, by JSON Pointer, so that later checks point into that file as they do
     * into a YAML one.
     */
    public static YamlDocument of(Path file, JsonNode root, Map<String, Location> valueLocations,
                                  Map<String, Location> keyLocations, Map<String, String> scalarTexts) {
        Map<String, Location> values = new java.util.HashMap<>(valueLocations);
        values.putIfAbsent("", Location.ofFile(file)); // every lookup ends at the root
        return new YamlDocument(file, root, values, Map.copyOf(keyLocations), Map.copyOf(scalarTexts), List.of());
    }

    /**
     * This document's root placed at {@code at} inside otherwise empty mappings, its places moved
     * with it: a group_vars file read as {@code all.vars}, so that the inventory schema checks it.
     */
    public YamlDocument nestedAt(FieldPath at) {
        JsonNode nested = root;
        List<FieldPath.Segment> segments = at.segments();
        for (int i = segments.size() - 1; i >= 0; i--) {
            com.fasterxml.jackson.databind.node.ObjectNode parent = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            parent.set(((FieldPath.Key) segments.get(i)).name(), nested);
            nested = parent;
        }
        String prefix = at.pointer();
        Map<String, Location> values = prefixed(prefix, valueLocations);
        values.putIfAbsent("", Location.ofFile(file)); // the enclosing mappings start where the file does
        return new YamlDocument(file, nested, values, prefixed(prefix, keyLocations),
                prefixed(prefix, scalarTexts), warnings);
    }

    private static <T> Map<String, T> prefixed(String prefix, Map<String, T> byPointer) {
        Map<String, T> moved = new java.util.HashMap<>();
        byPointer.forEach((pointer, value) -> moved.put(prefix + pointer, value));
        return moved;
    }

    public Path file() {
        return file;
    }

    /** The document as a tree; {@link NullNode} for an empty file. */
    public JsonNode root() {
        return root;
    }

    /** Things that were understood but look doubtful (unknown tags, ...). */
    public List<Problem> warnings() {
        return warnings;
    }

    /**
     * Where the value at {@code jsonPointer} starts. A pointer to something that is not in the
     * file (a missing field that got its default) falls back to the nearest parent that is.
     */
    public Location locationOf(String jsonPointer) {
        String pointer = jsonPointer;
        while (true) {
            Location location = valueLocations.get(pointer);
            if (location != null) {
                return location;
            }
            pointer = parentOf(pointer);
        }
    }

    public Location locationOf(FieldPath path) {
        return locationOf(path.pointer());
    }

    /**
     * Where the key of the value at {@code jsonPointer} is written: the right place for
     * "unknown field" errors. List items have no key; their location is the item itself.
     */
    public Location keyLocationOf(String jsonPointer) {
        String pointer = jsonPointer;
        while (true) {
            Location location = keyLocations.get(pointer);
            if (location == null) {
                location = valueLocations.get(pointer);
            }
            if (location != null) {
                return location;
            }
            pointer = parentOf(pointer);
        }
    }

    public Location keyLocationOf(FieldPath path) {
        return keyLocationOf(path.pointer());
    }

    /** The scalar at {@code path} exactly as written (without quotes), e.g. {@code 3.10} for a float 3.1. */
    public Optional<String> sourceText(FieldPath path) {
        return Optional.ofNullable(scalarTexts.get(path.pointer()));
    }

    /** Whether {@code path} is written in the file (as opposed to defaulted). */
    public boolean contains(FieldPath path) {
        return valueLocations.containsKey(path.pointer());
    }

    private static String parentOf(String pointer) {
        return pointer.isEmpty() ? "" : pointer.substring(0, pointer.lastIndexOf('/'));
    }

    /**
     * The file's text, refusing before reading what could not be an input file: something
     * other than a regular file or a pipe (a directory, /dev/zero, a socket), more than
     * {@link InputLimits#MAX_FILE_BYTES}, or not UTF-8. A pipe ({@code -f <(sops -d spec.yaml)})
     * is read within the same limits and a timeout ({@link PipedInput}). Public for the other
     * formats an inventory comes in (INI), which are bounded the same way.
     */
    public static String readText(Path file) {
        return read(file, PipedInput.READ_TIMEOUT);
    }

    private static String read(Path file) {
        return read(file, PipedInput.READ_TIMEOUT);
    }

    /** As {@link #readText(Path)}, giving a pipe {@code pipeTimeout} to end. */
    static String read(Path file, java.time.Duration pipeTimeout) {
        try {
            if (Files.isDirectory(file)) {
                throw fileProblem(file, "cannot read: it is a directory, not a file");
            }
            boolean pipe = Files.exists(file) && !Files.isRegularFile(file);
            if (pipe && !PipedInput.isPipe(file)) {
                throw fileProblem(file, "cannot read: not a regular file or a pipe (a device or a socket); give the path of"
                        + " a YAML file");
            }
            byte[] bytes;
            if (pipe) {
                bytes = PipedInput.read(file, InputLimits.MAX_FILE_BYTES, pipeTimeout);
            } else {
                try (InputStream in = Files.newInputStream(file)) {
                    // Read one byte past the limit: the size a file claims may change while we read.
                    bytes = in.readNBytes(InputLimits.MAX_FILE_BYTES + 1);
                }
            }
            if (bytes.length > InputLimits.MAX_FILE_BYTES) {
                throw fileProblem(file, (pipe ? "more than " + InputLimits.size(InputLimits.MAX_FILE_BYTES) + " came through"
                        + " the pipe" : "the file is larger than " + InputLimits.size(InputLimits.MAX_FILE_BYTES)
                        + " (" + Files.size(file) + " bytes)") + "; an inventory or desired state is a few kilobytes:"
                        + " is this the right file?");
            }
            // A strict decoder: a binary or Latin-1 file must be refused, not read as mojibake.
            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            if (text.indexOf('\0') >= 0) {
                throw fileProblem(file, "cannot read: the file contains NUL bytes, so it is binary, not YAML text (is this the right file?)");
            }
            return text;
        } catch (CharacterCodingException e) {
            throw fileProblem(file, "cannot read: not UTF-8 text (is this the right file?)");
        } catch (NoSuchFileException e) {
            throw fileProblem(file, "cannot read: no such file (looked for " + file.toAbsolutePath().normalize() + ")");
        } catch (AccessDeniedException e) {
            throw fileProblem(file, "cannot read: permission denied");
        } catch (IOException e) {
            String reason = Files.isDirectory(file) ? "it is a directory, not a file" : String.valueOf(e.getMessage());
            throw fileProblem(file, "cannot read: " + reason);
        }
    }

    private static InvalidInputException fileProblem(Path file, String message) {
        return new InvalidInputException(Problem.error(Location.ofFile(file), "", message));
    }
}
