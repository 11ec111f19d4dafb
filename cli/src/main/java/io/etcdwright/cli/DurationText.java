package io.etcdwright.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A duration as an operator writes it on a command line: {@code 90} (seconds), {@code 10s}, {@code 5m}, {@code 1h30m}, {@code 0}. */
final class DurationText {
    private static final Pattern PART = Pattern.compile("(\\d+)([hms])");

    private DurationText() {
    }

    static Duration parse(String option, String text) {
        String t = text.strip();
        if (t.matches("\\d+")) {
            return Duration.ofSeconds(Long.parseLong(t));
        }
        Matcher m = PART.matcher(t);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(m.group(2).equals("h") ? Duration.ofHours(n) : m.group(2).equals("m") ? Duration.ofMinutes(n)
                    : Duration.ofSeconds(n));
            end = m.end();
        }
        if (end == 0 || end != t.length()) {
            throw new IllegalArgumentException(option + " " + text + ": not a duration; write seconds (90) or 10s, 5m, 1h30m");
        }
        return total;
    }

    /** As the reports print it: {@code 10s}, {@code 5m}, {@code 1h30m}. */
    static String format(Duration d) {
        long s = d.toSeconds();
        if (s == 0) {
            return "0s";
        }
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            b.append(s % 3600 / 60).append('m');
        }
        if (s % 60 != 0) {
            b.append(s % 60).append('s');
        }
        return b.toString();
    }
}
