package io.etcdwright.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Prometheus' own checker, from Debian's prometheus package (scripts/setup installs it): a test that
 * needs it fails when it is missing, it is never skipped.
 */
final class Promtool {
    private Promtool() {
    }

    record Result(int exitCode, String output) {
    }

    static Result run(Path workDir, Path stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(command()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("promtool " + String.join(" ", args) + " did not finish");
        }
        return new Result(p.exitValue(), said);
    }

    /** {@code promtool check metrics} on {@code text}: exit 0 and no lint finding. */
    static void checkMetrics(Path dir, String text) throws IOException, InterruptedException {
        Path file = Files.writeString(dir.resolve("metrics.txt"), text);
        Result r = run(dir, file, "check", "metrics");
        assertEquals(0, r.exitCode(), "promtool check metrics refused:\n" + r.output() + "\n" + text);
        assertEquals("", r.output().strip(), "promtool check metrics found problems:\n" + text);
    }

    static String command() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, "promtool"))) {
                return Path.of(dir, "promtool").toString();
            }
        }
        throw new AssertionError("promtool is not installed: scripts/setup installs Debian's prometheus package, which has it");
    }
}
