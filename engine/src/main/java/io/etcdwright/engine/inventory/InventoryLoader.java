package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Reads an Ansible YAML inventory file, reporting every problem in it at once. */
public final class InventoryLoader {

    private static final Set<String> SSH_TARGET_VARIABLES = Set.of("ansible_host", "ansible_port");

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

    /** Like {@link #load} but hands back the problems instead of throwing, to combine with other files'. */
    public static Outcome read(Path file) {
        Problems problems = new Problems();
        YamlDocument document;
        try {
            document = YamlDocument.load(file);
        } catch (InvalidInputException e) {
            return new Outcome(Optional.empty(), e.problems());
        }
        problems.addAll(document.warnings());
        problems.addAll(SchemaCheck.check(document, SchemaCheck.INVENTORY_SCHEMA));
        if (!InventoryShape.isInventory(document.root())) {
            // Building from a mis-shaped document would only add errors about what we guessed.
            return new Outcome(Optional.empty(), problems.list());
        }
        boolean sshTargetsTrusted = !hasErrorsInVariables(problems.list(), SSH_TARGET_VARIABLES);
        Optional<Inventory> inventory = new InventoryReader(document, problems).read(sshTargetsTrusted);
        return new Outcome(inventory, problems.list());
    }

    private static boolean hasErrorsInVariables(List<Problem> problems, Set<String> names) {
        return problems.stream().filter(Problem::isError)
                .anyMatch(problem -> names.stream().anyMatch(name -> problem.field().endsWith("." + name)));
    }
}
