package io.etcdwright.engine.source;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A position in an input file, 1-based, as editors and compilers count it.
 *
 * <p>{@code file} is kept exactly as the user typed it (relative stays relative) so that
 * messages point at the path they recognise. Line 0 means "the file as a whole" (it could
 * not be read, or the problem has no better place); such a location prints as just the file.
 */
public record Location(Path file, int line, int column) implements Comparable<Location> {

    public Location {
        Objects.requireNonNull(file, "file");
        if (line < 0 || column < 0) {
            throw new IllegalArgumentException("line and column are 1-based (0 for the whole file): " + line + ":" + column);
        }
    }

    /** The file as a whole, for problems that have no line (missing file, empty file). */
    public static Location ofFile(Path file) {
        return new Location(file, 0, 0);
    }

    public boolean isWholeFile() {
        return line == 0;
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
        return isWholeFile() ? file.toString() : file + ":" + line + ":" + column;
    }
}
