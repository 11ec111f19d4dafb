package io.etcdwright.engine.source;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A position in an input file, 1-based, as editors and compilers count it.
 *
 * <p>{@code file} is kept exactly as the user typed it (relative stays relative) so that
 * messages point at the path they recognise. A problem about the file as a whole (it cannot
 * be read, it is too large, it is empty) is placed at 1:1, so that every message has the same
 * {@code file:line:col} shape for editors, terminals and scripts.
 */
public record Location(Path file, int line, int column) implements Comparable<Location> {

    public Location {
        Objects.requireNonNull(file, "file");
        if (line < 1 || column < 1) {
            throw new IllegalArgumentException("line and column are 1-based: " + line + ":" + column);
        }
    }

    /** The start of the file, for problems that have no better place (missing file, empty file). */
    public static Location ofFile(Path file) {
        return new Location(file, 1, 1);
    }

    @Override
    public int compareTo(Location other) {
        int byFile = file.toString().compareTo(other.file.toString());
        if (byFile != 0) {
            return byFile;
        }
        int byLine = Integer.compare(line, other.line);
        return byLine != 0 ? byLine : Integer.compare(column, other.column);
    }

    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }
}
