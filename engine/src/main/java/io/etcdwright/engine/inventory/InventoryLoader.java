package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** Reads an Ansible inventory (YAML or INI, a file or a directory, with its group_vars and host_vars), reporting every problem at once. */
public final class InventoryLoader {

    private static final Set<String> SSH_TARGET_VARIABLES = Set.of("ansible_host", "ansible_port");
    private static final Set<String> YAML_EXTENSIONS = Set.of(".yaml", ".yml", ".json");

    private InventoryLoader() {}

    /**
     * What reading an inventory gave: the inventory when its structure was sound enough to
     * build (even if, say, a variable has the wrong type or two hosts share an address), and
     * every problem found.
     */
    public record Outcome(Optional<Inventory> inventory, List<Problem> problems) {
        public Outcome {
            problems = List.copyOf(problems);
        }

        public boolean hasErrors() {
            return problems.stream().anyMatch(Problem::isError);
        }

        public List<Problem> warnings() {
            return problems.stream().filter(problem -> !problem.isError()).toList();
        }

        /**
         * Whether an error was reported about any of these variables, in a group or on a host.
         * Such a variable fell back to its default, so comparing its values across hosts could
         * report clashes that are not really there.
         */
        public boolean hasErrorsInVariables(Set<String> names) {
            return InventoryLoader.hasErrorsInVariables(problems, names);
        }
    }

    /**
     * @throws InvalidInputException with every problem (warnings too) if any is an error
     */
    public static Inventory load(Path file) {
        Outcome outcome = read(file);
        if (outcome.hasErrors()) {
            throw new InvalidInputException(outcome.problems());
        }
        return outcome.inventory().orElseThrow();
    }

    /**
     * Like {@link #load} but hands back the problems instead of throwing, to combine with other files'.
     *
     * @param given an inventory file (YAML, or INI as Ansible writes it) or a directory of them,
     *              read as Ansible reads {@code -i DIR}; group_vars/ and host_vars/ beside the file
     *              (or in the directory) are read too
     */
    public static Outcome read(Path given) {
        return read(given, false);
    }

    /**
     * As {@link #read(Path)}; {@code offline}: for a run that contacts no host ({@code plan --facts}),
     * so the known_hosts file it names need not exist.
     */
    public static Outcome read(Path given, boolean offline) {
        Problems problems = new Problems();
        boolean directory = Files.isDirectory(given);
        List<Path> files = directory ? InventoryDirectory.files(given, problems) : List.of(given);
        List<YamlDocument> documents = new ArrayList<>();
        boolean sound = !problems.hasErrors();
        for (Path file : files) {
            Optional<YamlDocument> document = readOne(file, problems);
            document.ifPresent(documents::add);
            sound &= document.isPresent();
        }
        if (!sound || documents.isEmpty()) {
            // Building from a mis-shaped document would only add errors about what we guessed.
            return new Outcome(Optional.empty(), problems.list());
        }
        Path basedir = directory ? given : given.getParent() == null ? Path.of("") : given.getParent();
        Optional<Inventory> inventory = new InventoryReader(given, documents, new VarsFiles(basedir, problems), problems, offline)
                .read(SSH_TARGET_VARIABLES);
        return new Outcome(inventory, problems.list());
    }

    /** One inventory file's document, in the inventory's tree shape: YAML as it is, INI read into the same tree. */
    private static Optional<YamlDocument> readOne(Path file, Problems problems) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = name.lastIndexOf('.');
        String extension = dot > 0 ? name.substring(dot) : "";
        YamlDocument document;
        try {
            String text = YamlDocument.readText(file);
            if (text.startsWith("$ANSIBLE_VAULT;")) {
                problems.add(Problem.error(Location.ofFile(file), "", "the inventory is encrypted with ansible-vault; etcdwright"
                        + " does not decrypt vault files: decrypt it (ansible-vault decrypt) or keep the hosts in a plain file"));
                return Optional.empty();
            }
            if (YAML_EXTENSIONS.contains(extension)) {
                document = YamlDocument.parse(file, text);
            } else if (!extension.isEmpty()) {
                document = IniInventory.parse(file, text);
            } else {
                // Like Ansible (its yaml plugin, then its ini plugin): a file without extension
                // is YAML when it reads as a YAML mapping, INI otherwise.
                Optional<YamlDocument> yaml = yamlMapping(file, text);
                document = yaml.isPresent() ? yaml.get() : IniInventory.parse(file, text);
            }
        } catch (InvalidInputException e) {
            problems.addAll(e.problems());
            return Optional.empty();
        }
        problems.addAll(document.warnings());
        List<Problem> schemaProblems = InventoryValues.withoutSchemaProblemsAboutAnsibleSyntax(document,
                SchemaCheck.check(document, SchemaCheck.INVENTORY_SCHEMA));
        problems.addAll(schemaProblems);
        return InventoryShape.isInventory(document.root()) ? Optional.of(document) : Optional.empty();
    }

    private static Optional<YamlDocument> yamlMapping(Path file, String text) {
        try {
            YamlDocument yaml = YamlDocument.parse(file, text);
            return yaml.root().isObject() ? Optional.of(yaml) : Optional.empty();
        } catch (InvalidInputException e) {
            return Optional.empty();
        }
    }

    static boolean hasErrorsInVariables(List<Problem> problems, Set<String> names) {
        return problems.stream().filter(Problem::isError)
                .anyMatch(problem -> names.stream().anyMatch(name -> problem.field().equals(name)
                        || problem.field().endsWith("." + name)));
    }
}
