package io.etcdwright.engine.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Turns snakeyaml's composed node graph of one text into a {@link YamlDocument}: Jackson nodes
 * plus the line and column of every key and value, indexed by JSON Pointer. One instance reads
 * one text.
 *
 * <p>Bounded (see {@link InputLimits}): the text's size and line length are checked before
 * snakeyaml scans it, nesting depth and alias counts are snakeyaml's own limits, and the values
 * aliases expand to are counted while the tree is built, so an alias bomb stops after a few
 * thousand values instead of a few hundred million. Nothing is ever constructed from a tag: only
 * scalars of the YAML core types are given Java values. Global tags ({@code !!java.lang.Runtime},
 * {@code !!python/object/apply:os.system}) ask other loaders to construct objects or run code, so
 * they are refused; snakeyaml's composer only records a tag on its node, so they are let through
 * it and refused here, each at its line with the field it sits on.
 */
final class YamlTreeBuilder {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

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
    /** Nodes whose global tag was reported: an alias to one must not report it again. */
    private final Set<Node> globalTagsReported = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ScalarValues scalarValues;
    private final LoaderOptions options;
    /** Values built so far, aliases expanded: stops alias bombs (see {@link InputLimits#EXPANSION_FACTOR}). */
    private long expandedValues;
    private long maxExpandedValues;

    YamlTreeBuilder(Path file) {
        this.file = file;
        this.options = new LoaderOptions();
        // Bounded aliases: a "billion laughs" file must fail fast, not eat the workstation's memory.
        options.setMaxAliasesForCollections(50);
        options.setNestingDepthLimit(InputLimits.MAX_DEPTH);
        // Characters, checked by snakeyaml's reader: a second guard behind the byte size of the file.
        options.setCodePointLimit(InputLimits.MAX_FILE_BYTES);
        options.setAllowRecursiveKeys(false);
        // Composing constructs nothing; the tags are refused in convert(), where the field is known.
        options.setTagInspector(tag -> true);
        this.scalarValues = new ScalarValues(options);
    }

    YamlDocument build(String text) {
        checkSize(text);
        Node rootNode;
        MarkedParser parser = new MarkedParser(new ParserImpl(new StreamReader(text), options));
        try {
            Composer composer = new Composer(parser, new Resolver(), options);
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
            // Limits snakeyaml checks without a mark (nesting depth): the last event read is where it stopped.
            Location where = parser.lastMark() == null ? Location.ofFile(file) : at(parser.lastMark());
            throw new InvalidInputException(Problem.error(where, "", "invalid YAML: " + reworded(e.getMessage().strip())));
        } catch (StackOverflowError e) {
            throw new InvalidInputException(Problem.error(Location.ofFile(file), "",
                    "invalid YAML: nested too deeply to read (at most " + InputLimits.MAX_DEPTH + " levels)"));
        }
        JsonNode root;
        if (rootNode == null) {
            valueLocations.put("", new Location(file, 1, 1));
            root = NullNode.getInstance();
        } else {
            maxExpandedValues = Math.max(InputLimits.MIN_EXPANDED_VALUES,
                    (long) InputLimits.EXPANSION_FACTOR * parser.composedNodes());
            try {
                root = convert(rootNode, FieldPath.ROOT, null, 0);
            } catch (TooLarge e) {
                throw new InvalidInputException(Problem.error(e.location, e.path.toString(), e.getMessage()));
            }
        }
        if (!errors.isEmpty()) {
            List<Problem> all = new ArrayList<>(errors);
            all.addAll(warnings);
            throw new InvalidInputException(all);
        }
        return new YamlDocument(file, root, valueLocations, keyLocations, scalarTexts, warnings);
    }

    /**
     * Refuses, before snakeyaml scans anything, a text that is too large or has a line so long
     * that scanning it would take minutes (snakeyaml's scanner is quadratic in a line's length).
     */
    private void checkSize(String text) {
        if (text.length() > InputLimits.MAX_FILE_BYTES) {
            throw new InvalidInputException(Problem.error(Location.ofFile(file), "", "the file is larger than "
                    + InputLimits.size(InputLimits.MAX_FILE_BYTES) + " (" + text.length()
                    + " characters); an inventory or desired state is a few kilobytes: is this the right file?"));
        }
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '\n') {
                if (i - lineStart > InputLimits.MAX_LINE_CHARS) {
                    throw new InvalidInputException(Problem.error(new Location(file, line, 1), "", "line " + line + " is "
                            + (i - lineStart) + " characters long; etcdwright reads lines of at most "
                            + InputLimits.size(InputLimits.MAX_LINE_CHARS) + " (no setting needs a value that long)"));
                }
                line++;
                lineStart = i + 1;
            }
        }
    }

    private static String reworded(String message) {
        if (message.startsWith("Nesting Depth exceeded")) {
            return "mappings and lists are nested more than " + InputLimits.MAX_DEPTH + " levels deep";
        }
        if (message.startsWith("The incoming YAML document exceeds the limit")) {
            return "the file is larger than " + InputLimits.size(InputLimits.MAX_FILE_BYTES);
        }
        return message;
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

    private JsonNode convert(Node node, FieldPath path, Location keyLocation, int depth) {
        Location location = at(node.getStartMark());
        count(location, path);
        if (depth > InputLimits.MAX_DEPTH) {
            // Aliases nest what they refer to: the text may be shallow and the tree still deep.
            throw new TooLarge(location, path, "mappings and lists are nested more than " + InputLimits.MAX_DEPTH
                    + " levels deep (counting what aliases refer to)");
        }
        if (node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.NULL)
                && scalar.getValue().isEmpty() && keyLocation != null) {
            // "h1:" with nothing after it: the empty value has no place of its own, the key is it.
            location = keyLocation;
        }
        valueLocations.put(path.pointer(), location);
        if (node.getTag().isCustomGlobal()) {
            if (globalTagsReported.add(node)) {
                errors.add(Problem.error(location, path.toString(), "tag " + shortTag(node.getTag()) + " is a global tag,"
                        + " which asks a YAML loader to construct an object or run code; etcdwright reads plain values"
                        + " only: remove the tag"));
            }
            return NullNode.getInstance();
        }
        if (node instanceof ScalarNode scalar) {
            return scalar(scalar, path);
        }
        if (!inProgress.add(node)) {
            errors.add(Problem.error(location, path.toString(), "an alias refers to a node that contains it; recursive YAML is not supported"));
            return NullNode.getInstance();
        }
        try {
            if (node instanceof SequenceNode sequence) {
                return sequence(sequence, path, depth);
            }
            return mapping((MappingNode) node, path, depth);
        } finally {
            inProgress.remove(node);
        }
    }

    /** A global tag as it was written: {@code !!python/object/apply:os.system}. */
    private static String shortTag(Tag tag) {
        return tag.getValue().startsWith(Tag.PREFIX) ? "!!" + tag.getValue().substring(Tag.PREFIX.length()) : tag.getValue();
    }

    /** One more value in the tree; too many means aliases expand the document far beyond what it writes. */
    private void count(Location location, FieldPath path) {
        if (++expandedValues > maxExpandedValues) {
            throw new TooLarge(location, path, "aliases expand this document to more than " + maxExpandedValues
                    + " values, " + InputLimits.EXPANSION_FACTOR + " times what it writes; this looks like a YAML alias bomb"
                    + " (\"billion laughs\"): write the values out, or alias whole sections fewer times");
        }
    }

    private JsonNode scalar(ScalarNode scalar, FieldPath path) {
        String text = scalar.getValue();
        if (text.length() > InputLimits.MAX_SCALAR_CHARS) {
            errors.add(Problem.error(at(scalar.getStartMark()), path.toString(), "the value is " + text.length()
                    + " characters long; etcdwright reads values of at most " + InputLimits.size(InputLimits.MAX_SCALAR_CHARS)));
            return NullNode.getInstance();
        }
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
        // Ansible's !unsafe is plain text, which is how etcdwright reads every value; a !vault value
        // is refused where etcdwright reads it (the inventory's values check) and ignored elsewhere.
        boolean ansibleTag = tag.getValue().equals("!unsafe") || tag.getValue().equals("!vault");
        if (!tag.equals(Tag.STR) && !tag.equals(Tag.TIMESTAMP) && !tag.equals(Tag.BINARY) && !ansibleTag) {
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

    private JsonNode sequence(SequenceNode sequence, FieldPath path, int depth) {
        ArrayNode array = NODES.arrayNode();
        List<Node> items = sequence.getValue();
        for (int i = 0; i < items.size(); i++) {
            array.add(convert(items.get(i), path.index(i), null, depth + 1));
        }
        return array;
    }

    private JsonNode mapping(MappingNode mapping, FieldPath path, int depth) {
        ObjectNode object = NODES.objectNode();
        for (Map.Entry<String, NodeTuple> entry : effectiveEntries(mapping, path).entrySet()) {
            FieldPath child = path.key(entry.getKey());
            Location keyLocation = at(entry.getValue().getKeyNode().getStartMark());
            keyLocations.put(child.pointer(), keyLocation);
            object.set(entry.getKey(), convert(entry.getValue().getValueNode(), child, keyLocation, depth + 1));
        }
        return object;
    }

    /**
     * The keys of a mapping in document order, with YAML merge keys ({@code <<: *defaults})
     * spliced in where they stand: explicit keys win over merged ones, earlier merge
     * sources over later ones, as the YAML merge-key spec says.
     */
    private LinkedHashMap<String, NodeTuple> effectiveEntries(MappingNode mapping, FieldPath path) {
        // Merge keys splice mappings into mappings: they expand a document as aliases do.
        count(at(mapping.getStartMark()), path);
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

    /** A limit on the size of the tree was passed: building stops at once (going on is what the limit prevents). */
    private static final class TooLarge extends RuntimeException {
        final transient Location location;
        final transient FieldPath path;

        TooLarge(Location location, FieldPath path, String message) {
            super(message, null, false, false);
            this.location = location;
            this.path = path;
        }
    }

    /**
     * snakeyaml's parser, remembering where the last event it handed out starts (for limits
     * snakeyaml reports without a position) and counting the nodes the composer builds from
     * them (each scalar, mapping and list written: aliases add none).
     */
    private static final class MarkedParser implements Parser {
        private final Parser parser;
        private Mark lastMark;
        private long composedNodes;

        MarkedParser(Parser parser) {
            this.parser = parser;
        }

        @Override
        public boolean checkEvent(Event.ID id) {
            return parser.checkEvent(id);
        }

        @Override
        public Event peekEvent() {
            return parser.peekEvent();
        }

        @Override
        public Event getEvent() {
            Event event = parser.getEvent();
            if (event != null) {
                lastMark = event.getStartMark();
                if (event.is(Event.ID.Scalar) || event.is(Event.ID.MappingStart) || event.is(Event.ID.SequenceStart)) {
                    composedNodes++;
                }
            }
            return event;
        }

        Mark lastMark() {
            return lastMark;
        }

        long composedNodes() {
            return composedNodes;
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
