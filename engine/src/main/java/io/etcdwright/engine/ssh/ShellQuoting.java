package io.etcdwright.engine.ssh;

/**
 * POSIX sh quoting, the one function for it. {@link RemoteCommand} quotes the arguments of
 * commands run on hosts with it; {@code client-env} quotes the values an operator evals in the
 * workstation's shell with it. Nothing else in etcdwright quotes for a shell (a source guard test
 * checks), so there is one place to get right.
 */
public final class ShellQuoting {
    private ShellQuoting() {
    }

    /**
     * The value as one single-quoted sh word. Inside single quotes nothing is special (no $, `,
     * \ or newline processing) except the closing quote itself, so each ' becomes '\'' (close,
     * an escaped quote, reopen). A value holding NUL cannot be a shell word or a program argument,
     * so it is refused rather than silently cut short.
     *
     * @throws IllegalArgumentException when the value is null or holds NUL
     */
    public static String word(String value) {
        Shell.requireArgument(value);
        return "'" + value.replace("'", "'\\''") + "'";
    }
}
