package io.etcdwright.engine.source;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Collects problems instead of stopping at the first: an operator fixing a file wants every
 * mistake in one run. Loaders add to one of these and throw once at the end.
 */
public final class Problems {

    private final List<Problem> problems = new ArrayList<>();

    public void add(Problem problem) {
        problems.add(problem);
    }

    public void addAll(Collection<Problem> more) {
        problems.addAll(more);
    }

    /** An error about the value at {@code path} of {@code document}. */
    public void error(YamlDocument document, FieldPath path, String message) {
        add(Problem.error(document.locationOf(path), path.toString(), message));
    }

    /** An error about the key at {@code path} (an unknown or misplaced field), pointing at the key. */
    public void errorAtKey(YamlDocument document, FieldPath path, String message) {
        add(Problem.error(document.keyLocationOf(path), path.toString(), message));
    }

    public void warning(YamlDocument document, FieldPath path, String message) {
        add(Problem.warning(document.locationOf(path), path.toString(), message));
    }

    /** A warning about the key at {@code path} (a variable that is ignored or misplaced), pointing at the key. */
    public void warningAtKey(YamlDocument document, FieldPath path, String message) {
        add(Problem.warning(document.keyLocationOf(path), path.toString(), message));
    }

    public boolean hasErrors() {
        return problems.stream().anyMatch(Problem::isError);
    }

    /**
     * Whether an error was already reported in {@code file} at {@code path}, inside it, or at a
     * parent of it. Later checks skip such fields: their value was replaced by a default, and
     * a second error about a value the operator never wrote would only mislead.
     */
    public boolean hasErrorAround(Path file, FieldPath path) {
        String field = path.toString();
        return problems.stream()
                .filter(Problem::isError)
                .filter(p -> p.location().file().equals(file))
                .anyMatch(p -> related(p.field(), field));
    }

    private static boolean related(String a, String b) {
        return a.equals(b) || within(a, b) || within(b, a);
    }

    /** Whether dotted path {@code inner} lies below {@code outer} (the root contains everything). */
    private static boolean within(String inner, String outer) {
        return outer.isEmpty()
                || inner.startsWith(outer) && inner.length() > outer.length()
                        && (inner.charAt(outer.length()) == '.' || inner.charAt(outer.length()) == '[');
    }

    /** Every problem, by file as first reported and by position within each file. */
    public List<Problem> list() {
        List<Path> fileOrder = problems.stream().map(p -> p.location().file()).distinct().toList();
        return problems.stream()
                .sorted(Comparator.<Problem>comparingInt(p -> fileOrder.indexOf(p.location().file()))
                        .thenComparingInt(p -> p.location().line())
                        .thenComparingInt(p -> p.location().column()))
                .toList();
    }

    public List<Problem> warnings() {
        return list().stream().filter(p -> !p.isError()).toList();
    }

    /** @throws InvalidInputException with every problem (warnings too) if any is an error */
    public void throwIfErrors() {
        if (hasErrors()) {
            throw new InvalidInputException(list());
        }
    }
}
