package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.Problems;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The inventory files of a directory given with {@code -i}, as Ansible's inventory manager
 * lists them: every file, by name, in it and its subdirectories, except hidden ones,
 * {@code group_vars}, {@code host_vars} and {@code vars_plugins}, and files Ansible ignores by
 * their ending (README.md, notes.txt, backups, {@code .cfg}, {@code .retry}, ...). Files
 * ending in {@code .ini} are read, as current Ansible does (2.14 and older skipped them).
 * Scripts are never run: every file is read as YAML or INI.
 */
final class InventoryDirectory {

    private static final Set<String> SKIPPED_NAMES = Set.of("group_vars", "host_vars", "vars_plugins");
    private static final List<String> SKIPPED_ENDINGS = List.of(".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt",
            ".rst", ".orig", ".cfg", ".retry");

    private InventoryDirectory() {}

    static List<Path> files(Path directory, Problems problems) {
        List<Path> files = new ArrayList<>();
        collect(directory, files, problems);
        if (files.isEmpty() && !problems.hasErrors()) {
            problems.add(Problem.error(Location.ofFile(directory), "", "the directory holds no inventory file (looked for every"
                    + " file but hidden ones, group_vars/, host_vars/ and *.md, *.txt, *.cfg, ...)"));
        }
        return files;
    }

    /** A directory's entries in name order, as Ansible walks them; empty with a problem when it cannot be listed. */
    static java.util.Optional<List<Path>> sortedEntries(Path directory, Problems problems) {
        try (Stream<Path> listing = Files.list(directory)) {
            return java.util.Optional.of(listing.sorted().toList());
        } catch (IOException e) {
            problems.add(Problem.error(Location.ofFile(directory), "", "cannot list the directory: " + e.getMessage()));
            return java.util.Optional.empty();
        }
    }

    private static void collect(Path directory, List<Path> into, Problems problems) {
        java.util.Optional<List<Path>> listed = sortedEntries(directory, problems);
        if (listed.isEmpty()) {
            return;
        }
        for (Path entry : listed.get()) {
            String name = entry.getFileName().toString();
            if (name.startsWith(".") || SKIPPED_NAMES.contains(name) || SKIPPED_ENDINGS.stream().anyMatch(name::endsWith)) {
                continue;
            }
            if (Files.isDirectory(entry)) {
                collect(entry, into, problems);
            } else {
                into.add(entry);
            }
        }
    }
}
