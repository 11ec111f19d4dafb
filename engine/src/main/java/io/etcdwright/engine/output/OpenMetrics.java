package io.etcdwright.engine.output;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A document in the OpenMetrics text format (https://openmetrics.io, what Prometheus asks for with
 * {@code Accept: application/openmetrics-text}): families of gauges, each with its TYPE, UNIT and
 * HELP, its samples after them, and {@code # EOF} last. Only gauges: their lines read the same in
 * Prometheus' older text format (UNIT and EOF are comments there), so node_exporter's textfile
 * collector and a Pushgateway take the document as it is. Names, units and label names are checked
 * when written: a bad one is a bug here, never the operator's.
 */
public final class OpenMetrics {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    /** Each family's lines, in the order the families were begun: a family's samples follow its own metadata only. */
    private final Map<String, StringBuilder> families = new LinkedHashMap<>();

    /** A family of gauges; {@code unit} (seconds, bytes) is empty or the end of its name. */
    public Family gauge(String name, String unit, String help) {
        if (!NAME.matcher(name).matches() || families.containsKey(name)) {
            throw new IllegalArgumentException("not a new metric family name: " + name);
        }
        if (help.indexOf('"') >= 0) {
            // OpenMetrics wants it escaped, Prometheus' older format refuses the escape: neither is worth it.
            throw new IllegalArgumentException(name + ": no double quote in a help text");
        }
        if (!unit.isEmpty() && (!LABEL.matcher(unit).matches() || !name.endsWith("_" + unit))) {
            throw new IllegalArgumentException(name + " must end with its unit " + unit);
        }
        StringBuilder text = new StringBuilder();
        families.put(name, text);
        text.append("# TYPE ").append(name).append(" gauge\n");
        if (!unit.isEmpty()) {
            text.append("# UNIT ").append(name).append(' ').append(unit).append('\n');
        }
        text.append("# HELP ").append(name).append(' ').append(escape(help, false)).append('\n');
        return new Family(name, text);
    }

    /** The document, {@code # EOF} last; nothing may be added after. */
    public String text() {
        StringBuilder all = new StringBuilder();
        families.values().forEach(all::append);
        return all + "# EOF\n";
    }

    public final class Family {
        private final String name;
        private final StringBuilder text;
        private final Set<Map<String, String>> written = new LinkedHashSet<>();

        private Family(String name, StringBuilder text) {
            this.name = name;
            this.text = text;
        }

        /** One sample: {@code labels} in the order given; a label set written twice is a bug. */
        public Family sample(Map<String, String> labels, double value) {
            if (!written.add(new LinkedHashMap<>(labels))) {
                throw new IllegalArgumentException(name + " has the labels " + labels + " twice");
            }
            text.append(name);
            if (!labels.isEmpty()) {
                List<String> pairs = new ArrayList<>();
                labels.forEach((k, v) -> {
                    if (!LABEL.matcher(k).matches() || k.startsWith("__")) {
                        throw new IllegalArgumentException("not a label name: " + k);
                    }
                    pairs.add(k + "=\"" + escape(v, true) + "\"");
                });
                text.append('{').append(String.join(",", pairs)).append('}');
            }
            text.append(' ').append(number(value)).append('\n');
            return this;
        }

        public Family sample(Map<String, String> labels, boolean value) {
            return sample(labels, value ? 1 : 0);
        }
    }

    /** Whole numbers without a fraction (the size of a database in bytes reads as it is). */
    static String number(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    /** Backslash, line feed and, in label values, the double quote, escaped as both formats read them (help texts hold no quote). */
    static String escape(String s, boolean quote) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '"' -> b.append(quote ? "\\\"" : "\"");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
