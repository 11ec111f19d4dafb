package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code group_vars/} and {@code host_vars/} directories beside an inventory (beside the
 * file given, or inside the directory given), found as Ansible's {@code host_group_vars} plugin
 * finds them: for a group or host NAME, the first of {@code NAME}, {@code NAME.yml},
 * {@code NAME.yaml}, {@code NAME.json} that exists; when that is a directory, every file in it
 * and its subdirectories, by name, that is not hidden, not a backup ({@code ~}) and has one of
 * those extensions or none. Each file is a YAML (or JSON) mapping of variables; empty files
 * count for nothing; later files replace earlier files' values.
 */
final class VarsFiles {

    private static final List<String> EXTENSIONS = List.of("", ".yml", ".yaml", ".json");
    /** A vars file's variables checked as the inventory schema checks a group's vars. */
    private static final FieldPath CHECKED_AS = FieldPath.of(Inventory.ALL, "vars");

    private final Path basedir;
    private final Problems problems;
    private final Map<Path, List<YamlDocument>> read = new HashMap<>();

    /** @param basedir the directory holding group_vars/ and host_vars/ */
    VarsFiles(Path basedir, Problems problems) {
        this.basedir = basedir;
        this.problems = problems;
    }

    /** What relative paths in these files are relative to: the inventory's directory. */
    Path anchor() {
        return basedir.resolve("group_vars");
    }

    List<YamlDocument> groupVars(String group) {
        return documents("group_vars", group);
    }

    List<YamlDocument> hostVars(String host) {
        return documents("host_vars", host);
    }

    private List<YamlDocument> documents(String kind, String name) {
        if (name.isEmpty() || name.startsWith("/") || name.contains("/") || name.equals("..") || name.equals(".")) {
            return List.of(); // not a name a file can have (Ansible skips such names too)
        }
        Path directory = basedir.resolve(kind);
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        List<YamlDocument> documents = new ArrayList<>();
        for (Path file : find(directory, name)) {
            documents.addAll(read.computeIfAbsent(file, this::load));
        }
        return documents;
    }

    private List<Path> find(Path directory, String name) {
        for (String extension : EXTENSIONS) {
            Path candidate = directory.resolve(name + extension);
            if (Files.isDirectory(candidate)) {
                List<Path> found = new ArrayList<>();
                walk(candidate, found);
                return found;
            } else if (Files.exists(candidate)) {
                return List.of(candidate);
            }
        }
        return List.of();
    }

    private void walk(Path directory, List<Path> found) {
        java.util.Optional<List<Path>> listed = InventoryDirectory.sortedEntries(directory, problems);
        if (listed.isEmpty()) {
            return;
        }
        for (Path entry : listed.get()) {
            String fileName = entry.getFileName().toString();
            if (fileName.startsWith(".") || fileName.endsWith("~")) {
                continue;
            }
            int dot = fileName.lastIndexOf('.');
            String extension = dot > 0 ? fileName.substring(dot) : "";
            if (Files.isDirectory(entry) && extension.isEmpty()) {
                walk(entry, found);
            } else if (Files.isRegularFile(entry) && EXTENSIONS.contains(extension)) {
                found.add(entry);
            }
        }
    }

    /** The file's document when it holds variables; nothing for an empty file or one with problems (reported). */
    private List<YamlDocument> load(Path file) {
        YamlDocument document;
        try {
            String text = YamlDocument.readText(file);
            if (text.startsWith("$ANSIBLE_VAULT;")) {
                problems.add(Problem.error(Location.ofFile(file), "", "the file is encrypted with ansible-vault; etcdwright does not"
                        + " decrypt vault files: keep the variables etcdwright reads (addresses, names, paths) in a plain file"
                        + " beside it, or decrypt it (ansible-vault decrypt)"));
                return List.of();
            }
            document = YamlDocument.parse(file, text);
        } catch (InvalidInputException e) {
            problems.addAll(e.problems());
            return List.of();
        }
        problems.addAll(document.warnings());
        if (document.root().isNull() || document.root().isMissingNode()) {
            return List.of();
        }
        if (!document.root().isObject()) {
            problems.add(Problem.error(document.locationOf(FieldPath.ROOT), "", "a vars file must be a mapping of variable names"
                    + " to values, like 'ansible_user: admin'"));
            return List.of();
        }
        String prefix = CHECKED_AS + ".";
        YamlDocument checked = document.nestedAt(CHECKED_AS);
        for (Problem problem : InventoryValues.withoutSchemaProblemsAboutAnsibleSyntax(checked,
                SchemaCheck.check(checked, SchemaCheck.INVENTORY_SCHEMA))) {
            String field = problem.field().startsWith(prefix) ? problem.field().substring(prefix.length()) : problem.field();
            problems.add(new Problem(problem.severity(), problem.location(), field, problem.message()));
        }
        return List.of(document);
    }
}
