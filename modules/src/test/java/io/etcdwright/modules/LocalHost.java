package io.etcdwright.modules;

import io.etcdwright.engine.ssh.RemoteCommand;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A copy of engine's test helper of the same name (test classes are not shared between modules).
 * Plays the host with the local /bin/sh: the wire string of a command is run exactly as sshd
 * runs it ({@code sh -c WIRE}), with a stand-in {@code sudo} on the PATH for become. A
 * recorder takes the place of the program (Exec) or of the script code (Script, StdinScript) and
 * writes every argument it received, NUL-separated, so a test sees what the host would receive.
 */
public final class LocalHost {
    public static final String RECORDER_CODE = "printf '%s\\0' \"$@\"";

    public final Path dir;
    private final Path recorder;
    private final Path bin;

    public LocalHost(Path dir) throws IOException {
        this.dir = dir;
        this.bin = Files.createDirectories(dir.resolve("bin"));
        this.recorder = executable(bin.resolve("recorder"), "#!/bin/sh\n" + RECORDER_CODE + "\n");
        // sudo -n -- PROGRAM ARGS...: the stand-in checks its own options and runs the rest as given.
        executable(bin.resolve("sudo"), "#!/bin/sh\n[ \"$1\" = -n ] && [ \"$2\" = -- ] || { echo \"bad sudo use: $*\" >&2; exit 99; }\n"
                + "shift 2\nexec \"$@\"\n");
    }

    /** A marker path: a hostile value that managed to run would create it. */
    public Path marker(String name) {
        return dir.resolve("pwned-" + name);
    }

    /** Values that would do harm if any shell read them as code, and ones that test the edges. */
    public List<String> hostileValues() {
        List<String> values = new ArrayList<>(List.of(
                ";", "a; touch " + marker("semicolon"), "x && touch " + marker("and"), "x || touch " + marker("or"),
                "x | touch " + marker("pipe"), "`touch " + marker("backtick") + "`", "$(touch " + marker("subst") + ")",
                "${IFS}", "a${IFS}b", "'", "\"", "'\"'\"'", "it's \"quoted\"", "'; touch " + marker("quote") + "; '",
                "\"; touch " + marker("dquote") + "; \"", "line1\nline2", "\n", "\ntouch " + marker("newline") + "\n",
                "-rf", "--", "-c", "--help", "-", " ", "", "  two  spaces  ", "*", "~", "$HOME", "$0", "$1", "$@", "\\",
                "\\'", "!", "!!", "#comment", "\t", "\r", "caf\u00e9 \u2603", "a=b", "$((1+1))", "<" + marker("redir"),
                ">" + marker("redir2"), "&", "touch " + marker("plain")));
        return values;
    }

    /**
     * A value of 100 kB with shell syntax sprinkled through: long values must arrive whole, not
     * cut or split. (A command line on Linux holds at most 128 kB, quoting included.)
     */
    public static String longValue() {
        StringBuilder s = new StringBuilder();
        while (s.length() < 100_000) {
            s.append("v".repeat(480)).append(" $(x) 'y' \"z\" ;|& ");
        }
        return s.toString();
    }

    /** The arguments the host would hand to the program or script, read back from the recorder. */
    public List<String> received(RemoteCommand command, boolean become) throws Exception {
        RemoteCommand recorded;
        if (command instanceof RemoteCommand.Exec exec) {
            List<String> argv = new ArrayList<>(exec.argv());
            argv.set(0, recorder.toString());
            recorded = new RemoteCommand.Exec(argv);
        } else if (command instanceof RemoteCommand.Script script) {
            recorded = new RemoteCommand.Script(RECORDER_CODE, script.args());
        } else {
            recorded = new RemoteCommand.StdinScript(RECORDER_CODE, ((RemoteCommand.StdinScript) command).args());
        }
        Run run = run(recorded, new byte[0], become);
        assertEquals(0, run.exitCode(), run.stderr());
        String out = run.stdout();
        List<String> args = out.isEmpty() ? List.of() : Arrays.asList(out.substring(0, out.length() - 1).split("\0", -1));
        assertNoMarkers();
        return args;
    }

    /** Asserts that every argument of the command arrives as the one literal argument it was. */
    public void assertArrivesLiterally(RemoteCommand command, List<String> expectedArgs) throws Exception {
        assertEquals(expectedArgs, received(command, false), "as the login user");
        assertEquals(expectedArgs, received(command, true), "through sudo (become)");
    }

    public record Run(int exitCode, String stdout, String stderr) {
    }

    /** Runs the command itself (its real code) as the host would, stdin after any script code. */
    public Run run(RemoteCommand command, byte[] stdin, boolean become) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command.wire(become)).directory(dir.toFile());
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process p = pb.start();
        Thread feeder = new Thread(() -> {
            try (var in = p.getOutputStream()) {
                in.write(command.stdinPrefix());
                in.write(stdin);
            } catch (IOException e) {
                // the command may exit without reading its input
            }
        });
        feeder.start();
        var err = new java.util.concurrent.CompletableFuture<String>();
        Thread errReader = new Thread(() -> {
            try {
                err.complete(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                err.complete(e.toString());
            }
        });
        errReader.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        feeder.join();
        return new Run(code, out, err.get());
    }

    public void assertNoMarkers() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> markers = files.filter(f -> f.getFileName().toString().startsWith("pwned")).toList();
            assertTrue(markers.isEmpty(), "a value ran as code and created " + markers);
        }
    }

    private static Path executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
