package io.etcdwright.modules.adopt;

/** A unit or environment file that cannot be read safely: {@code file:line: message}. */
public final class UnitSyntaxException extends RuntimeException {
    private final String file;
    private final int line;

    public UnitSyntaxException(String file, int line, String message) {
        super(file + (line > 0 ? ":" + line : "") + ": " + message);
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }
}
