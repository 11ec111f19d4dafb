package io.etcdwright.engine.source;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Files on the workstation a run needs (an SSH key, a known_hosts file, a CA you bring): they
 * must exist, be regular files and be readable when the input is validated, so a typo fails
 * at the line that names the file and not halfway through a run.
 */
public final class WorkstationFiles {

    private WorkstationFiles() {}

    /**
     * Why {@code path} cannot be read; empty when it can.
     *
     * @param what    what the file is, for the message ("SSH private key")
     * @param written the path as the operator wrote it (relative ones were resolved against
     *                the input file's directory: the message shows where we looked)
     */
    public static Optional<String> problem(Path path, String what, String written) {
        Path absolute = path.toAbsolutePath().normalize();
        String shown = Quoted.of(written);
        String lookedFor = written.equals(absolute.toString()) ? "" : " (looked for " + absolute + ")";
        if (!Files.exists(path)) {
            return Optional.of(what + " " + shown + " does not exist" + lookedFor);
        }
        if (Files.isDirectory(path)) {
            return Optional.of(what + " " + shown + " is a directory, not a file" + lookedFor);
        }
        if (!Files.isRegularFile(path)) {
            return Optional.of(what + " " + shown + " is not a regular file" + lookedFor);
        }
        if (!Files.isReadable(path)) {
            return Optional.of(what + " " + shown + " cannot be read: permission denied" + lookedFor);
        }
        return Optional.empty();
    }
}
