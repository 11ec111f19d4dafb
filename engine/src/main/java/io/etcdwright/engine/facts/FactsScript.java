package io.etcdwright.engine.facts;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds the one script that runs every probe on a host, and splits its output back apart. */
final class FactsScript {
    private static final String MARK = "@@etcdwright-probe ";
    static final String CLOCK = "@@etcdwright-clock ";

    private FactsScript() {
    }

    static String build(List<? extends Probe<?>> probes) {
        StringBuilder script = new StringBuilder("export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n");
        for (Probe<?> probe : probes) {
            script.append("echo '").append(MARK).append(probe.name()).append("'\n")
                    .append("(\n").append(probe.script()).append("\n) </dev/null 2>/dev/null\n");
        }
        // Read the clock last, so the only delay between it and the workstation's clock is the
        // trip back; the skew then reflects the clocks, not the probes' running time.
        script.append("echo \"").append(CLOCK).append("$(date +%s%3N)\"\n");
        return script.toString();
    }

    /** Raw output per probe name; a probe whose section is missing gets no entry. */
    static Map<String, String> split(String output) {
        Map<String, String> sections = new HashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : output.split("\n", -1)) {
            if (line.startsWith(CLOCK)) {
                sections.put(CLOCK, line.substring(CLOCK.length()).strip());
                continue;
            }
            if (line.startsWith(MARK)) {
                if (current != null) {
                    sections.put(current, body.toString());
                }
                current = line.substring(MARK.length()).strip();
                body.setLength(0);
            } else if (current != null) {
                body.append(line).append('\n');
            }
        }
        if (current != null) {
            sections.put(current, body.toString());
        }
        return sections;
    }
}
