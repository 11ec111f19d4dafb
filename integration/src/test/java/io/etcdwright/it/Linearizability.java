package io.etcdwright.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the linearizability checker (integration/linearizability, Go and porcupine) on a recorded
 * {@link History}. The checker is built by integration/linearizability/build from the Go module
 * proxy into a cache outside the checkout (scripts/setup builds it; this finds it there in
 * milliseconds, or builds it once on a machine where setup ran before the checker existed).
 */
final class Linearizability {
    /**
     * Porcupine's bound. The tests' histories (a few thousand operations over keys that rotate,
     * {@link History#OPS_PER_GENERATION}) check in well under a second; a search that runs past
     * this is reported as unknown, and unknown fails the test: it is no proof.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Path BUILD = Testbed.ROOT.resolve("integration/linearizability/build");
    private static Path binary;

    private Linearizability() {
    }

    /** The checker's answer: its exit status (0 linearizable, 1 not, 2 unknown, 3 bad input) and what it printed. */
    record Verdict(int exitCode, String output, long millis, Path history) {
        boolean linearizable() {
            return exitCode == 0;
        }

        String result() {
            return switch (exitCode) {
                case 0 -> "yes";
                case 1 -> "NO";
                case 2 -> "UNKNOWN (time bound " + TIMEOUT.toSeconds() + " s reached: not a proof)";
                default -> "UNCHECKED (exit " + exitCode + ")";
            };
        }

        /** The summary line, then the violations, if any. */
        String firstLine() {
            String text = output.strip();
            int nl = text.indexOf('\n');
            return nl < 0 ? text : text.substring(0, nl);
        }

        @Override
        public String toString() {
            return "linearizable: " + result() + " (check " + millis + " ms; " + (exitCode == 0 ? firstLine() : output.strip())
                    + "; history " + history + ")";
        }
    }

    static synchronized Path binary() {
        if (binary == null) {
            Testbed.Result built = Testbed.exec(List.of(BUILD.toString()));
            if (built.exitCode() != 0 || built.stdout().isBlank()) {
                throw new AssertionError("cannot build the linearizability checker (" + BUILD + ", exit " + built.exitCode()
                        + "): " + built.stderr() + built.stdout());
            }
            binary = Path.of(built.stdout().strip());
        }
        return binary;
    }

    /** Checks {@code history}; on a violation the checker writes its visualization beside it (NAME.violation.html). */
    static Verdict check(Path history) {
        Path html = history.resolveSibling(history.getFileName() + ".violation.html");
        long started = System.nanoTime();
        try {
            Files.deleteIfExists(html);
            Process p = new ProcessBuilder(binary().toString(), "-timeout", TIMEOUT.toSeconds() + "s", "-visualize", html.toString(),
                    history.toString()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            // The checker bounds its own search (-timeout); it has closed its output once it gets here.
            if (!p.waitFor(TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Verdict(2, "the checker did not exit within " + TIMEOUT.toSeconds() * 3 + " s: " + out,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), history);
            }
            return new Verdict(p.exitValue(), out, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), history);
        } catch (IOException e) {
            throw new AssertionError("cannot run the linearizability checker on " + history + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** A JSON string: the keys and values are ASCII; an error message may hold anything. */
    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
