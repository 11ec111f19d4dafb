package io.etcdwright.engine.source;

import java.nio.file.Path;

/**
 * Paths written inside an input file mean what the operator sees next to that file: relative
 * ones are resolved against the file's directory (not the shell's working directory, which
 * changes between runs), and a leading {@code ~} is the operator's home as in a shell. A file the
 * shell handed over as a pipe ({@code /dev/fd/63}) has no directory: its paths start from the
 * working directory.
 */
public final class RelativePaths {

    private RelativePaths() {}

    /**
     * @param file    the input file the path was written in
     * @param written the path as written
     * @throws java.nio.file.InvalidPathException if {@code written} cannot be a path on this system
     */
    public static Path resolve(Path file, String written) {
        Path home = Path.of(System.getProperty("user.home"));
        if (written.equals("~")) {
            return home;
        }
        if (written.startsWith("~/")) {
            return home.resolve(written.substring(2)).normalize();
        }
        Path path = Path.of(written);
        if (path.isAbsolute()) {
            return path.normalize();
        }
        // A spec handed over as a pipe (-f <(sops -d spec.yaml): /dev/fd/63) has no directory of its own.
        Path directory = file.getParent() == null || PipedInput.isHandedOverDescriptor(file) ? Path.of("") : file.getParent();
        return directory.resolve(path).normalize();
    }
}
