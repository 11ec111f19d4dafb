package io.etcdwright.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * A fleet run as JUnit XML, the report every CI system reads (Jenkins' junit step, GitLab's
 * artifacts:reports:junit, GitHub Actions' test reporters): one test suite for the command, one test
 * case per cluster. A cluster that is not as it should be (changes, drift, a refusal, unhealthy,
 * certificates expiring) is a {@code <failure>} whose message is what the command says of it (for
 * plan: its plan); one that could not be checked (bad input, an error) is an {@code <error>}. Written
 * to a temporary file beside the target and renamed, so a CI job never reads half a report.
 */
final class JunitReport {
    private JunitReport() {
    }

    /** {@code seconds}: the whole run's wall time (the clusters ran side by side). */
    static void write(Path file, String command, List<Fleet.Result> results, double seconds) {
        String xml = xml(command, results, Instant.now(), seconds);
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try {
                Files.writeString(tmp, xml, StandardCharsets.UTF_8);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JUnit report " + file + ": " + e.getMessage(), e);
        }
    }

    static String xml(String command, List<Fleet.Result> results, Instant now, double time) {
        long failures = results.stream().filter(r -> r.outcome().verdict().failure()).count();
        long errors = results.stream().filter(r -> r.outcome().verdict().error()).count();
        String suite = "etcdwright " + command;
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append("<testsuites name=\"").append(attr(suite)).append("\" tests=\"").append(results.size()).append("\" failures=\"")
                .append(failures).append("\" errors=\"").append(errors).append("\" time=\"").append(seconds(time)).append("\">\n");
        x.append("  <testsuite name=\"").append(attr(suite)).append("\" tests=\"").append(results.size()).append("\" failures=\"")
                .append(failures).append("\" errors=\"").append(errors).append("\" skipped=\"0\" time=\"").append(seconds(time))
                .append("\" timestamp=\"").append(now.truncatedTo(ChronoUnit.SECONDS).toString().replace("Z", "")).append("\">\n");
        for (Fleet.Result r : results) {
            Fleet.Verdict v = r.outcome().verdict();
            x.append("    <testcase classname=\"etcdwright.").append(attr(command)).append("\" name=\"").append(attr(r.name()))
                    .append("\" file=\"").append(attr(r.input().spec().toString())).append("\" time=\"").append(seconds(r.seconds()))
                    .append('"');
            String text = r.outcome().text();
            if (!v.failure() && !v.error()) {
                x.append(">\n      <system-out>").append(text(text)).append("</system-out>\n    </testcase>\n");
                continue;
            }
            String element = v.failure() ? "failure" : "error";
            x.append(">\n      <").append(element).append(" type=\"").append(v.label).append("\" message=\"").append(attr(text.strip()))
                    .append("\">").append(text(text)).append("</").append(element).append(">\n    </testcase>\n");
        }
        x.append("  </testsuite>\n</testsuites>\n");
        return x.toString();
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.3f", s);
    }

    /** Element text: the XML specials escaped, characters XML 1.0 cannot hold dropped. */
    static String text(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> {
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                default -> {
                    if (allowed(c)) {
                        b.appendCodePoint(c);
                    }
                }
            }
        });
        return b.toString();
    }

    /** An attribute value: as text, and quotes and line breaks kept as character references. */
    static String attr(String s) {
        return text(s).replace("\"", "&quot;").replace("'", "&apos;").replace("\n", "&#10;").replace("\r", "&#13;")
                .replace("\t", "&#9;");
    }

    private static boolean allowed(int c) {
        return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
                || (c >= 0x10000 && c <= 0x10FFFF);
    }
}
