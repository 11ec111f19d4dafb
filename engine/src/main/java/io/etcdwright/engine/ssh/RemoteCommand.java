package io.etcdwright.engine.ssh;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A command for a host, as a program and its arguments: the only form in which anything runs on a
 * host. Values (addresses, paths, versions, checksums, URLs: anything from the inventory, the
 * spec, facts or a file) travel only as whole arguments; {@link #wire} quotes every one of them
 * for POSIX sh in one place, so no value can ever be read by the host's shell as code.
 *
 * <p>Three shapes:
 * <ul>
 * <li>{@link Exec}: a program and its arguments, run as they are ({@code systemctl restart etcd.service});</li>
 * <li>{@link Script}: fixed sh code that reads its values from {@code "$1"}..{@code "$N"} or
 *     {@code "$@"}, sent as {@code sh -c CODE sh ARG...}; stdin stays free for data (uploads);</li>
 * <li>{@link StdinScript}: the same for code too long for a command line (the facts script),
 *     sent as {@code sh -s -- ARG...} with the code on stdin.</li>
 * </ul>
 * The code of a script is program text written in this project, the same whatever the values
 * are (tests check that for every script): never build it from a value.
 */
public sealed interface RemoteCommand permits RemoteCommand.Exec, RemoteCommand.Script, RemoteCommand.StdinScript {

    /** The name a script sees as {@code $0} (in its error messages). */
    String SCRIPT_NAME = "etcdwright";

    /**
     * The most a host takes as one command line: sshd hands the whole line to the login shell as
     * one argument, and Linux limits one argument to 128 kB.
     */
    int MAX_WIRE_BYTES = 128 * 1024 - 1;

    /**
     * What the remote login shell is given: every word quoted; {@code sudo -n --} first when
     * becoming root.
     *
     * @throws IllegalArgumentException if the quoted line is longer than a host accepts
     */
    default String wire(boolean become) {
        List<String> argv = new ArrayList<>();
        if (become) {
            argv.addAll(List.of("sudo", "-n", "--"));
        }
        argv.addAll(argv());
        String wire = Shell.join(argv);
        int bytes = wire.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_WIRE_BYTES) {
            throw new IllegalArgumentException("the command (" + describe() + ") would be " + bytes
                    + " bytes once quoted, more than the " + MAX_WIRE_BYTES + " a host accepts on one command line;"
                    + " a value this long must be sent as a file instead");
        }
        return wire;
    }

    /** The program and its arguments as the host will receive them (before any sudo). */
    List<String> argv();

    /** The bytes to send on stdin before any data of the caller; empty for most commands. */
    default byte[] stdinPrefix() {
        return new byte[0];
    }

    /** One line for logs and errors: the program, or the script's first line; values left out. */
    String describe();

    /** A program and its arguments. */
    record Exec(List<String> argv) implements RemoteCommand {
        public Exec {
            argv = List.copyOf(argv);
            if (argv.isEmpty()) {
                throw new IllegalArgumentException("a command needs a program");
            }
            String program = argv.get(0);
            if (program.isEmpty() || program.startsWith("-")) {
                throw new IllegalArgumentException("not a program name: '" + program + "'");
            }
            argv.forEach(Shell::requireArgument);
        }

        @Override
        public String describe() {
            return argv.get(0) + (argv.size() > 1 ? " " + argv.get(1) : "");
        }
    }

    /**
     * Fixed sh code with its values as positional parameters: {@code sh -c CODE etcdwright ARG...}.
     * Arguments after the code are operands, never options of sh, whatever they start with.
     */
    record Script(String code, List<String> args) implements RemoteCommand {
        public Script {
            Objects.requireNonNull(code, "code");
            args = List.copyOf(args);
            Shell.requireArgument(code);
            args.forEach(Shell::requireArgument);
        }

        @Override
        public List<String> argv() {
            List<String> argv = new ArrayList<>(List.of("sh", "-c", code, SCRIPT_NAME));
            argv.addAll(args);
            return argv;
        }

        @Override
        public String describe() {
            return "sh script: " + firstLine(code);
        }
    }

    /** Fixed sh code read from stdin, values as positional parameters: {@code sh -s -- ARG...}. */
    record StdinScript(String code, List<String> args) implements RemoteCommand {
        public StdinScript {
            Objects.requireNonNull(code, "code");
            args = List.copyOf(args);
            Shell.requireArgument(code);
            args.forEach(Shell::requireArgument);
        }

        @Override
        public List<String> argv() {
            List<String> argv = new ArrayList<>(List.of("sh", "-s", "--"));
            argv.addAll(args);
            return argv;
        }

        @Override
        public byte[] stdinPrefix() {
            return code.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String describe() {
            return "sh script on stdin: " + firstLine(code);
        }
    }

    static RemoteCommand exec(String... argv) {
        return new Exec(List.of(argv));
    }

    static RemoteCommand script(String code, String... args) {
        return new Script(code, List.of(args));
    }

    static RemoteCommand script(String code, List<String> args) {
        return new Script(code, args);
    }

    private static String firstLine(String code) {
        String line = code.strip().lines().findFirst().orElse("");
        return line.length() <= 60 ? line : line.substring(0, 57) + "...";
    }
}
