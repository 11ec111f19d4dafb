package io.etcdwright.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Grafana dashboard linter (integration/dashboard-lint: rules in the manner of Grafana's
 * dashboard-linter on Grafana's own dashboard types and Prometheus' PromQL parser), as scripts/setup
 * built it. A test never builds it (the first build takes minutes): when it is missing the test
 * fails, saying the command that builds it; it is never skipped.
 */
final class DashboardLinter {
    static final Path BUILD = Path.of("..", "integration", "dashboard-lint", "build");

    private DashboardLinter() {
    }

    record Result(int exitCode, String output) {
    }

    static Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary()));
        command.addAll(List.of(args));
        return exec(command);
    }

    static String binary() throws IOException, InterruptedException {
        Result found = exec(List.of(BUILD.toString(), "--cached"));
        if (found.exitCode() != 0) {
            throw new AssertionError("the dashboard linter is not built: run " + BUILD.toAbsolutePath().normalize()
                    + " (scripts/setup does; it needs Go 1.26.7 or newer)\n" + found.output());
        }
        return found.output().strip();
    }

    private static Result exec(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        return new Result(p.exitValue(), said);
    }
}
