package io.etcdwright.engine.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

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

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Path file;
    private final JsonNode root;
    private final Map<String, Location> valueLocations;
    private final Map<String, Location> keyLocations;
    private final Map<String, String> scalarTexts;
    private final List<Problem> warnings;

    private YamlDocument(Path file, JsonNode root, Map<String, Location> valueLocations,
                         Map<String, Location> keyLocations, Map<String, String> scalarTexts, List<Problem> warnings) {
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
        return new Converter(file).convert(withoutByteOrderMark);
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

    private static String read(Path file) {
        try {
            // A strict decoder: a binary or Latin-1 file must be refused, not read as mojibake.
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
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

    /** Turns the composer's node graph into Jackson nodes, recording marks by JSON Pointer. */
    private static final class Converter {

        private final Path file;
        private final Map<String, Location> valueLocations = new HashMap<>();
        private final Map<String, Location> keyLocations = new HashMap<>();
        private final Map<String, String> scalarTexts = new HashMap<>();
        private final List<Problem> errors = new ArrayList<>();
        private final List<Problem> warnings = new ArrayList<>();
        /** Collections on the current path: meeting one again means a recursive alias. */
        private final Set<Node> inProgress = Collections.newSetFromMap(new IdentityHashMap<>());
        /** Mappings already checked for duplicate keys: an alias must not report them twice. */
        private final Set<Node> checkedForDuplicates = Collections.newSetFromMap(new IdentityHashMap<>());
        private final ScalarValues scalarValues;
        private final LoaderOptions options;

        Converter(Path file) {
            this.file = file;
            this.options = new LoaderOptions();
            // Composing keeps comments out; aliases stay bounded against "billion laughs".
            options.setMaxAliasesForCollections(50);
            this.scalarValues = new ScalarValues(options);
        }

        YamlDocument convert(String text) {
            Node rootNode;
            try {
                Composer composer = new Composer(new ParserImpl(new StreamReader(text), options), new Resolver(), options);
                rootNode = composer.checkNode() ? composer.getNode() : null;
                if (composer.checkNode()) {
                    Node second = composer.getNode();
                    errors.add(Problem.error(at(second.getStartMark()), "",
                            "a second YAML document starts here; etcdwright reads one document a file"
                                    + " (remove the '---' line or split the file)"));
                }
            } catch (MarkedYAMLException e) {
                throw new InvalidInputException(syntaxProblem(e));
            } catch (YAMLException e) {
                throw new InvalidInputException(Problem.error(Location.ofFile(file), "", "invalid YAML: " + e.getMessage().strip()));
            }
            JsonNode root;
            if (rootNode == null) {
                valueLocations.put("", new Location(file, 1, 1));
                root = NullNode.getInstance();
            } else {
                root = convert(rootNode, FieldPath.ROOT, null);
            }
            if (!errors.isEmpty()) {
                List<Problem> all = new ArrayList<>(errors);
                all.addAll(warnings);
                throw new InvalidInputException(all);
            }
            return new YamlDocument(file, root, valueLocations, keyLocations, scalarTexts, warnings);
        }

        private Problem syntaxProblem(MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            Location location = mark != null ? at(mark) : Location.ofFile(file);
            StringBuilder message = new StringBuilder("invalid YAML: ")
                    .append(e.getProblem() == null ? "cannot parse" : e.getProblem().strip());
            if (e.getContext() != null && e.getContextMark() != null) {
                Location context = at(e.getContextMark());
                message.append(" (").append(e.getContext().strip())
                        .append(" at line ").append(context.line()).append(", column ").append(context.column()).append(')');
            }
            return Problem.error(location, "", message.toString());
        }

        private JsonNode convert(Node node, FieldPath path, Location keyLocation) {
            Location location = at(node.getStartMark());
            if (node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.NULL)
                    && scalar.getValue().isEmpty() && keyLocation != null) {
                // "h1:" with nothing after it: the empty value has no place of its own, the key is it.
                location = keyLocation;
            }
            valueLocations.put(path.pointer(), location);
            if (node instanceof ScalarNode scalar) {
                return scalar(scalar, path);
            }
            if (!inProgress.add(node)) {
                errors.add(Problem.error(location, path.toString(), "an alias refers to a node that contains it; recursive YAML is not supported"));
                return NullNode.getInstance();
            }
            try {
                if (node instanceof SequenceNode sequence) {
                    return sequence(sequence, path);
                }
                return mapping((MappingNode) node, path);
            } finally {
                inProgress.remove(node);
            }
        }

        private JsonNode scalar(ScalarNode scalar, FieldPath path) {
            String text = scalar.getValue();
            scalarTexts.put(path.pointer(), text);
            Tag tag = scalar.getTag();
            if (tag.equals(Tag.INT) || tag.equals(Tag.FLOAT) || tag.equals(Tag.BOOL) || tag.equals(Tag.NULL)) {
                Object value;
                try {
                    value = scalarValues.valueOf(scalar);
                } catch (YAMLException | NumberFormatException e) {
                    // An explicit tag on text that is not of that type, like "!!int abc".
                    errors.add(Problem.error(at(scalar.getStartMark()), path.toString(),
                            "'" + text + "' is not a valid " + tag.getValue().replace(Tag.PREFIX, "")));
                    return NullNode.getInstance();
                }
                return typed(value);
            }
            if (!tag.equals(Tag.STR) && !tag.equals(Tag.TIMESTAMP) && !tag.equals(Tag.BINARY)) {
                // Ansible's "!vault" and friends: we cannot decrypt or evaluate them.
                warnings.add(Problem.warning(at(scalar.getStartMark()), path.toString(),
                        "tag " + tag.getValue() + " is not understood by etcdwright; the value is read as the plain text after it"));
            }
            return NODES.textNode(text);
        }

        private static JsonNode typed(Object value) {
            if (value == null) {
                return NullNode.getInstance();
            } else if (value instanceof Boolean b) {
                return NODES.booleanNode(b);
            } else if (value instanceof Integer i) {
                return NODES.numberNode(i);
            } else if (value instanceof Long l) {
                return NODES.numberNode(l);
            } else if (value instanceof BigInteger big) {
                return NODES.numberNode(big);
            } else if (value instanceof Double d) {
                return NODES.numberNode(d);
            }
            return NODES.textNode(String.valueOf(value));
        }

        private JsonNode sequence(SequenceNode sequence, FieldPath path) {
            ArrayNode array = NODES.arrayNode();
            List<Node> items = sequence.getValue();
            for (int i = 0; i < items.size(); i++) {
                array.add(convert(items.get(i), path.index(i), null));
            }
            return array;
        }

        private JsonNode mapping(MappingNode mapping, FieldPath path) {
            ObjectNode object = NODES.objectNode();
            for (Map.Entry<String, NodeTuple> entry : effectiveEntries(mapping, path).entrySet()) {
                FieldPath child = path.key(entry.getKey());
                Location keyLocation = at(entry.getValue().getKeyNode().getStartMark());
                keyLocations.put(child.pointer(), keyLocation);
                object.set(entry.getKey(), convert(entry.getValue().getValueNode(), child, keyLocation));
            }
            return object;
        }

        /**
         * The keys of a mapping in document order, with YAML merge keys ({@code <<: *defaults})
         * spliced in where they stand: explicit keys win over merged ones, earlier merge
         * sources over later ones, as the YAML merge-key spec says.
         */
        private LinkedHashMap<String, NodeTuple> effectiveEntries(MappingNode mapping, FieldPath path) {
            boolean reportDuplicates = checkedForDuplicates.add(mapping);
            Map<String, Mark> explicitKeys = new HashMap<>();
            for (NodeTuple tuple : mapping.getValue()) {
                Node keyNode = tuple.getKeyNode();
                if (keyNode.getTag().equals(Tag.MERGE)) {
                    continue;
                }
                if (!(keyNode instanceof ScalarNode key)) {
                    if (reportDuplicates) {
                        errors.add(Problem.error(at(keyNode.getStartMark()), path.toString(),
                                "keys must be plain names, not lists or mappings"));
                    }
                    continue;
                }
                Mark first = explicitKeys.putIfAbsent(key.getValue(), key.getStartMark());
                if (first != null && reportDuplicates) {
                    errors.add(Problem.error(at(key.getStartMark()), path.key(key.getValue()).toString(),
                            "duplicate key '" + key.getValue() + "' (first written at line " + (first.getLine() + 1)
                                    + "); YAML would silently keep only the last one, so write it once"));
                }
            }
            LinkedHashMap<String, NodeTuple> entries = new LinkedHashMap<>();
            for (NodeTuple tuple : mapping.getValue()) {
                Node keyNode = tuple.getKeyNode();
                if (keyNode.getTag().equals(Tag.MERGE)) {
                    for (MappingNode source : mergeSources(tuple.getValueNode(), path)) {
                        effectiveEntries(source, path).forEach((key, merged) -> {
                            if (!explicitKeys.containsKey(key)) {
                                entries.putIfAbsent(key, merged);
                            }
                        });
                    }
                } else if (keyNode instanceof ScalarNode key) {
                    entries.put(key.getValue(), tuple);
                }
            }
            return entries;
        }

        private List<MappingNode> mergeSources(Node value, FieldPath path) {
            if (value instanceof MappingNode single) {
                return List.of(single);
            }
            List<MappingNode> sources = new ArrayList<>();
            if (value instanceof SequenceNode list) {
                for (Node item : list.getValue()) {
                    if (item instanceof MappingNode source) {
                        sources.add(source);
                    }
                }
                if (sources.size() == list.getValue().size()) {
                    return sources;
                }
            }
            errors.add(Problem.error(at(value.getStartMark()), path.toString(),
                    "'<<' merges mappings only: give it a mapping (usually an alias like *defaults) or a list of them"));
            return sources;
        }

        private Location at(Mark mark) {
            return new Location(file, mark.getLine() + 1, mark.getColumn() + 1);
        }
    }

    /** snakeyaml's own scalar construction, so ints, floats, booleans and nulls resolve exactly as it does. */
    private static final class ScalarValues extends SafeConstructor {
        ScalarValues(LoaderOptions options) {
            super(options);
        }

        Object valueOf(ScalarNode node) {
            return constructObject(node);
        }
    }
}
