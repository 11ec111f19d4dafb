package io.etcdwright.engine.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.InputLimits;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An Ansible INI inventory, read as Ansible's ini plugin reads it, into the tree of the
 * equivalent YAML inventory ({@code group: {hosts: {h: vars}, vars: ..., children: ...}}) with
 * every key and value placed at its line and column in the INI file, so that everything after
 * this (schema, values, precedence, messages) is the same for both formats.
 *
 * <p>Lines before the first section are hosts of {@code ungrouped}; {@code [g]} lists hosts,
 * each optionally {@code name:port} and followed by {@code key=value} variables split like a
 * POSIX shell line (quotes removed, {@code #} starts a comment); {@code [g:children]} lists
 * child groups, which must be declared somewhere in the file; {@code [g:vars]} holds
 * {@code key = value} lines for a group declared somewhere in the file. Values are typed by
 * {@link PythonLiteral}; {@code ;} and {@code #} start comment lines.
 */
final class IniInventory {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Pattern SECTION = Pattern.compile("^\\[([^:\\]\\s]+)(?::(\\w+))?\\]\\s*(?:#.*)?$");
    private static final Pattern GROUP_NAME = Pattern.compile("^([^:\\]\\s]+)\\s*(?:#.*)?$");

    private final Path file;
    private final ObjectNode root = NODES.objectNode();
    private final Map<String, Location> valueLocations = new HashMap<>();
    private final Map<String, Location> keyLocations = new HashMap<>();
    private final Map<String, String> scalarTexts = new HashMap<>();
    private final List<Problem> errors = new ArrayList<>();
    /** Groups declared by [g] or [g:children]; [g:vars] and children entries need one. */
    private final Map<String, Location> declared = new LinkedHashMap<>();
    /** Groups named in [g:vars] or as a child, with where: each must be declared by the end. */
    private final Map<String, Location> referenced = new LinkedHashMap<>();
    private final Map<String, String> referencedAs = new HashMap<>();
    private int lineNumber;

    private IniInventory(Path file) {
        this.file = file;
    }

    /** @throws InvalidInputException with every problem of the file */
    static YamlDocument parse(Path file, String text) {
        IniInventory reader = new IniInventory(file);
        reader.read(text.startsWith("\uFEFF") ? text.substring(1) : text);
        if (!reader.errors.isEmpty()) {
            throw new InvalidInputException(reader.errors);
        }
        return YamlDocument.of(file, reader.root, reader.valueLocations, reader.keyLocations, reader.scalarTexts);
    }

    private void read(String text) {
        String group = Inventory.UNGROUPED;
        String state = "hosts";
        declared.put(Inventory.ALL, Location.ofFile(file)); // Ansible's own groups need no section
        declared.put(Inventory.UNGROUPED, Location.ofFile(file));
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (String raw : lines) {
            lineNumber++;
            if (raw.length() > InputLimits.MAX_LINE_CHARS) {
                error(1, "", "line " + lineNumber + " is longer than 64 KiB (no setting needs a value that long)");
                continue;
            }
            String line = raw.strip();
            int column = raw.indexOf(line) + 1;
            if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == ';') {
                continue;
            }
            Matcher section = SECTION.matcher(line);
            if (section.matches()) {
                group = section.group(1);
                state = section.group(2) == null ? "hosts" : section.group(2);
                Location at = new Location(file, lineNumber, column + 1);
                if (!state.equals("hosts") && !state.equals("children") && !state.equals("vars")) {
                    errors.add(Problem.error(new Location(file, lineNumber, column), group,
                            "section [" + group + ":" + state + "] has an unknown type '" + state
                                    + "': a section is [group], [group:children] or [group:vars]"));
                    state = "skip";
                    continue;
                }
                groupNode(group, at);
                if (state.equals("vars")) {
                    referenced.putIfAbsent(group, at);
                    referencedAs.putIfAbsent(group, "[" + group + ":vars] is for a group that no [" + group + "] or ["
                            + group + ":children] section declares");
                } else {
                    declared.putIfAbsent(group, at);
                }
                continue;
            }
            if (line.startsWith("[")) {
                error(column, "", "'" + line + "' is not a section header: write [group], [group:children] or [group:vars],"
                        + " without spaces or other characters in the brackets");
                state = "skip";
                continue;
            }
            switch (state) {
                case "hosts" -> hostLine(group, raw);
                case "children" -> childLine(group, line, column);
                case "vars" -> varLine(group, raw, line, column);
                default -> { } // the lines of a section already refused
            }
        }
        referenced.forEach((name, at) -> {
            if (!declared.containsKey(name)) {
                errors.add(Problem.error(at, name, referencedAs.get(name)));
            }
        });
    }

    private ObjectNode groupNode(String name, Location at) {
        FieldPath path = FieldPath.of(name);
        if (!root.has(name)) {
            root.set(name, NODES.objectNode());
            keyLocations.put(path.pointer(), at);
            valueLocations.put(path.pointer(), at);
        }
        return (ObjectNode) root.get(name);
    }

    private ObjectNode section(String group, String kind, Location at) {
        ObjectNode node = groupNode(group, at);
        FieldPath path = FieldPath.of(group, kind);
        if (!node.has(kind)) {
            node.set(kind, NODES.objectNode());
            keyLocations.put(path.pointer(), at);
            valueLocations.put(path.pointer(), at);
        }
        return (ObjectNode) node.get(kind);
    }

    private void hostLine(String group, String raw) {
        List<ShellWords.Word> words;
        try {
            words = ShellWords.split(raw);
        } catch (ShellWords.Unbalanced e) {
            error(e.column(), "", "cannot split the host line: " + e.getMessage());
            return;
        }
        if (words.isEmpty()) {
            return; // only a comment after spaces
        }
        ShellWords.Word first = words.get(0);
        Location hostAt = new Location(file, lineNumber, first.column());
        List<String> names;
        HostPatterns.WithPort withPort;
        try {
            withPort = HostPatterns.splitPort(first.text());
            names = HostPatterns.expand(withPort.pattern());
        } catch (HostPatterns.BadPattern e) {
            errors.add(Problem.error(hostAt, FieldPath.of(group, "hosts", first.text()).toString(), e.getMessage()));
            return;
        }
        Map<String, ShellWords.Word> variables = new LinkedHashMap<>();
        for (ShellWords.Word word : words.subList(1, words.size())) {
            int equals = word.text().indexOf('=');
            if (equals < 0) {
                errors.add(Problem.error(new Location(file, lineNumber, word.column()), FieldPath.of(group, "hosts", first.text()).toString(),
                        "expected a host variable key=value after the host name, got '" + word.text() + "'"));
                continue;
            }
            variables.put(word.text().substring(0, equals), word);
        }
        ObjectNode hosts = section(group, "hosts", hostAt);
        for (String name : names) {
            FieldPath hostPath = FieldPath.of(group, "hosts", name);
            if (!(hosts.get(name) instanceof ObjectNode)) {
                hosts.set(name, NODES.objectNode());
                keyLocations.put(hostPath.pointer(), hostAt);
                valueLocations.put(hostPath.pointer(), hostAt);
            }
            ObjectNode vars = (ObjectNode) hosts.get(name);
            if (withPort.port().isPresent()) {
                put(vars, hostPath.key("ansible_port"), NODES.numberNode(withPort.port().getAsInt()), hostAt, hostAt,
                        Integer.toString(withPort.port().getAsInt()));
            }
            variables.forEach((key, word) -> {
                String value = word.text().substring(key.length() + 1);
                Location keyAt = new Location(file, lineNumber, word.column());
                Location valueAt = new Location(file, lineNumber, word.valueColumn(key.length() + 1));
                put(vars, hostPath.key(key), PythonLiteral.valueOf(value), keyAt, valueAt, value);
            });
        }
    }

    private void childLine(String group, String line, int column) {
        Matcher name = GROUP_NAME.matcher(line);
        if (!name.matches()) {
            error(column, group + ".children", "expected a group name, got '" + line + "'");
            return;
        }
        String child = name.group(1);
        Location at = new Location(file, lineNumber, column);
        ObjectNode children = section(group, "children", at);
        FieldPath path = FieldPath.of(group, "children", child);
        if (!children.has(child)) {
            children.putNull(child);
            keyLocations.put(path.pointer(), at);
            valueLocations.put(path.pointer(), at);
        }
        referenced.putIfAbsent(child, at);
        referencedAs.putIfAbsent(child, "[" + group + ":children] names group '" + child + "', which no [" + child + "] or ["
                + child + ":children] section declares");
    }

    private void varLine(String group, String raw, String line, int column) {
        int equals = line.indexOf('=');
        if (equals < 0) {
            error(column, group + ".vars", "expected key=value, got '" + line + "'");
            return;
        }
        String key = line.substring(0, equals).strip();
        String value = line.substring(equals + 1).strip();
        Location keyAt = new Location(file, lineNumber, column);
        int valueColumn = raw.indexOf(value, raw.indexOf('=') + 1) + 1;
        Location valueAt = new Location(file, lineNumber, value.isEmpty() ? column + equals + 1 : valueColumn);
        ObjectNode vars = section(group, "vars", keyAt);
        put(vars, FieldPath.of(group, "vars", key), PythonLiteral.valueOf(value), keyAt, valueAt, value);
    }

    private void put(ObjectNode into, FieldPath path, JsonNode value, Location keyAt, Location valueAt, String written) {
        String key = path.lastKey().orElseThrow();
        into.set(key, value);
        keyLocations.put(path.pointer(), keyAt);
        valueLocations.put(path.pointer(), valueAt);
        scalarTexts.put(path.pointer(), written);
    }

    private void error(int column, String field, String message) {
        errors.add(Problem.error(new Location(file, lineNumber, Math.max(1, column)), field, message));
    }
}
