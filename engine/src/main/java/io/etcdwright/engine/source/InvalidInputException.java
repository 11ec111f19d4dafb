package io.etcdwright.engine.source;

import java.util.List;

/**
 * The inventory or the desired state cannot be used. Carries every problem found (errors,
 * and the warnings seen on the way) so the operator fixes them all in one pass instead of
 * one per run; the message lists them one a line, ready to print.
 */
public class InvalidInputException extends RuntimeException {

    private final transient List<Problem> problems;

    public InvalidInputException(List<Problem> problems) {
        super(describe(problems));
        this.problems = List.copyOf(problems);
    }

    public InvalidInputException(Problem problem) {
        this(List.of(problem));
    }

    /** Every problem, errors and warnings, in the order they were reported. */
    public List<Problem> problems() {
        return problems;
    }

    public List<Problem> errors() {
        return problems.stream().filter(Problem::isError).toList();
    }

    public List<Problem> warnings() {
        return problems.stream().filter(p -> !p.isError()).toList();
    }

    private static String describe(List<Problem> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("an InvalidInputException needs at least one problem");
        }
        long errors = problems.stream().filter(Problem::isError).count();
        long warnings = problems.size() - errors;
        StringBuilder message = new StringBuilder("cannot use this input: ")
                .append(count(errors, "error"));
        if (warnings > 0) {
            message.append(", ").append(count(warnings, "warning"));
        }
        for (Problem problem : problems) {
            message.append('\n').append(problem);
        }
        return message.toString();
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
