package io.etcdwright.engine.source;

import java.util.Objects;

/**
 * One thing wrong (or suspicious) in an input file, printed the way compilers do so that
 * editors and terminals can jump to it:
 * {@code examples/bad.yaml:7:12: error: etcd.ports.peer: must be an integer, got string "x"}.
 *
 * @param field dotted path of the field in its file, {@code [i]} for list items
 *              ({@code members.hosts[2]}); empty when the problem is about the whole file
 */
public record Problem(Severity severity, Location location, String field, String message) {

    public Problem {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }

    public static Problem error(Location location, String field, String message) {
        return new Problem(Severity.ERROR, location, field, message);
    }

    public static Problem warning(Location location, String field, String message) {
        return new Problem(Severity.WARNING, location, field, message);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString() {
        String where = field.isEmpty() ? "" : field + ": ";
        return location + ": " + severity.label() + ": " + where + message;
    }
}
