package io.etcdwright.modules;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A concern's facts belong to the concern: the host's facts record (cluster/EtcdHostFacts) holds
 * every concern's facts, and none of what it depends on may depend on the modules' contract
 * (MemberContext), which holds the record: that was a circle of seven files (the record, the
 * defragmentation and certificate-metrics modules whose probes it read, the timer job, the schedule
 * facts, the certificate-metrics facts and MemberContext).
 */
class FactsDependencyTest {
    private static final Path SOURCES = Path.of("src/main/java");
    /** A class of this project's modules named in a source: by an import or written out in full. */
    private static final Pattern REFERENCE = Pattern.compile("io\\.etcdwright\\.modules\\.((?:[a-z]\\w*\\.)*)([A-Z]\\w*)");

    @Test
    void whatTheHostsFactsDependOnNeverDependsOnTheModulesContract() throws IOException {
        Map<String, String> reachedFrom = closure("io.etcdwright.modules.cluster.EtcdHostFacts");
        assertTrue(reachedFrom.size() > 5, "the facts record's dependencies were not found: " + reachedFrom.keySet());
        assertFalse(reachedFrom.containsKey("io.etcdwright.modules.MemberContext"),
                "EtcdHostFacts reaches MemberContext, which holds it: " + path(reachedFrom, "io.etcdwright.modules.MemberContext"));
    }

    /** Every project class reachable from {@code start} by the classes its source names, with the class that named it. */
    private static Map<String, String> closure(String start) throws IOException {
        Map<String, String> reachedFrom = new LinkedHashMap<>();
        Deque<String> todo = new ArrayDeque<>();
        reachedFrom.put(start, "");
        todo.add(start);
        while (!todo.isEmpty()) {
            String name = todo.poll();
            Path file = SOURCES.resolve(name.replace('.', '/') + ".java");
            if (!Files.isRegularFile(file)) {
                continue;
            }
            String text = code(Files.readString(file));
            Matcher m = REFERENCE.matcher(text);
            while (m.find()) {
                String referenced = "io.etcdwright.modules." + m.group(1) + m.group(2);
                if (reachedFrom.putIfAbsent(referenced, name) == null) {
                    todo.add(referenced);
                }
            }
            // Classes of its own package are named without an import.
            String pkg = name.substring(0, name.lastIndexOf('.'));
            try (var siblings = Files.list(file.getParent())) {
                for (Path sibling : siblings.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String simple = sibling.getFileName().toString().replace(".java", "");
                    String qualified = pkg + "." + simple;
                    if (!qualified.equals(name) && Pattern.compile("\\b" + simple + "\\b").matcher(text).find()
                            && reachedFrom.putIfAbsent(qualified, name) == null) {
                        todo.add(qualified);
                    }
                }
            }
        }
        return reachedFrom;
    }

    /** The source without its comments and literals: a class a comment or a string names is no dependency. */
    private static String code(String source) {
        StringBuilder code = new StringBuilder();
        int i = 0;
        while (i < source.length()) {
            if (source.startsWith("//", i)) {
                i = end(source, "\n", i + 2);
            } else if (source.startsWith("/*", i)) {
                i = end(source, "*/", i + 2);
            } else if (source.startsWith("\"\"\"", i)) {
                i = end(source, "\"\"\"", i + 3);
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                char quote = source.charAt(i++);
                while (i < source.length() && source.charAt(i) != quote) {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
            } else {
                code.append(source.charAt(i++));
                continue;
            }
            code.append(' ');
        }
        return code.toString();
    }

    /** Just past the next {@code marker} from {@code from}, or the end. */
    private static int end(String source, String marker, int from) {
        int at = source.indexOf(marker, from);
        return at < 0 ? source.length() : at + marker.length();
    }

    private static String path(Map<String, String> reachedFrom, String to) {
        StringBuilder b = new StringBuilder(to);
        for (String at = reachedFrom.get(to); at != null && !at.isEmpty(); at = reachedFrom.get(at)) {
            b.insert(0, at + " -> ");
        }
        return b.toString();
    }
}
