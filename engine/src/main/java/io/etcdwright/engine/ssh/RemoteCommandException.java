package io.etcdwright.engine.ssh;

/** A command ran but exited non-zero; its stderr is the most useful thing to show. */
public final class RemoteCommandException extends RuntimeException {
    private final transient CommandResult result;

    public RemoteCommandException(String host, CommandResult result) {
        super(host + ": command failed with exit code " + result.exitCode() + ": "
                + firstLines(result.stderr().isBlank() ? result.stdout() : result.stderr()));
        this.result = result;
    }

    public CommandResult result() {
        return result;
    }

    private static String firstLines(String text) {
        String trimmed = text.strip();
        String[] lines = trimmed.split("\n");
        if (lines.length <= 6) {
            return trimmed;
        }
        return String.join("\n", java.util.Arrays.copyOfRange(lines, lines.length - 6, lines.length));
    }
}
