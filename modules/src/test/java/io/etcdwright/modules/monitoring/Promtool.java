package io.etcdwright.modules.monitoring;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Prometheus' own checker, from Debian's prometheus package (scripts/setup installs it): a test that
 * needs it fails when it is missing, it is never skipped.
 */
public final class Promtool {
    private Promtool() {
    }

    /** {@code promtool check metrics} on the file: exit 0 and no lint finding, or the test fails with what it said. */
    public static void checkMetrics(Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command(), "check", "metrics").redirectInput(file.toFile()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("promtool check metrics did not finish");
        }
        assertEquals(0, p.exitValue(), "promtool check metrics refused " + file + ":\n" + said + "\n" + Files.readString(file));
        assertEquals("", said.strip(), "promtool check metrics found problems in " + file + ":\n" + Files.readString(file));
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
