package io.etcdwright.engine.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Ansible's host patterns in inventories: {@code node[01:03]} is node01, node02, node03 (the
 * width of a start with a leading zero is kept), {@code db-[a:c]} is db-a, db-b, db-c, an
 * optional third part is a step ({@code [1:9:2]}), several ranges multiply, and in INI files
 * {@code host:2222} sets the host's SSH port. As {@code expand_hostname_range} does it.
 */
final class HostPatterns {

    /** More would be a typo ({@code [1:100000]}), not an inventory. */
    static final int MAX_HOSTS = 10_000;
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final Pattern HOST_AND_PORT = Pattern.compile("^((?:[^\\[\\]:]|\\[[^\\]]*\\])+):(\\d+)$");
    private static final Pattern BRACKETED_IPV6_AND_PORT = Pattern.compile("^\\[([0-9A-Fa-f:.]+)\\]:(\\d+)$");

    private HostPatterns() {}

    /** A pattern with the SSH port written after it split off. */
    record WithPort(String pattern, OptionalInt port) {}

    static final class BadPattern extends Exception {
        BadPattern(String message) {
            super(message, null, false, false);
        }
    }

    /** {@code host:port} split as Ansible's parse_address does; anything else is the pattern as it is. */
    static WithPort splitPort(String written) throws BadPattern {
        Matcher bracketed = BRACKETED_IPV6_AND_PORT.matcher(written);
        Matcher plain = HOST_AND_PORT.matcher(written);
        Matcher match = bracketed.matches() ? bracketed : plain.matches() ? plain : null;
        if (match == null) {
            if (written.endsWith(":")) {
                throw new BadPattern("'" + written + "' ends in ':', which Ansible reserves for a port number");
            }
            return new WithPort(written, OptionalInt.empty());
        }
        int port;
        try {
            port = Integer.parseInt(match.group(2));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new BadPattern("the port after ':' must be 1 to 65535");
        }
        return new WithPort(match.group(1), OptionalInt.of(port));
    }

    /** The host names a pattern stands for: itself when it has no {@code [range]}. */
    static List<String> expand(String pattern) throws BadPattern {
        List<String> hosts = new ArrayList<>();
        expand(pattern, hosts);
        return hosts;
    }

    private static void expand(String pattern, List<String> into) throws BadPattern {
        int open = pattern.indexOf('[');
        if (open < 0) {
            into.add(pattern);
            return;
        }
        int close = pattern.indexOf(']', open);
        if (close < 0) {
            throw new BadPattern("opens a range with '[' but never closes it with ']'");
        }
        String head = pattern.substring(0, open);
        String range = pattern.substring(open + 1, close);
        String tail = pattern.substring(close + 1);
        String[] bounds = range.split(":", -1);
        if (bounds.length != 2 && bounds.length != 3) {
            throw new BadPattern("a host range is [begin:end] or [begin:end:step], like node[01:03]");
        }
        String begin = bounds[0].isEmpty() ? "0" : bounds[0];
        String end = bounds[1];
        if (end.isEmpty()) {
            throw new BadPattern("the host range has no end, like node[01:03]");
        }
        int step = bounds.length == 3 ? number(bounds[2], pattern) : 1;
        if (step < 1) {
            throw new BadPattern("the step of a host range must be at least 1");
        }
        int letterBegin = begin.length() == 1 ? LETTERS.indexOf(begin) : -1;
        int letterEnd = end.length() == 1 ? LETTERS.indexOf(end) : -1;
        List<String> items = new ArrayList<>();
        if (letterBegin >= 0 && letterEnd >= 0) {
            if (letterBegin > letterEnd) {
                throw new BadPattern("a host range must have begin <= end");
            }
            for (int i = letterBegin; i <= letterEnd; i += step) {
                items.add(String.valueOf(LETTERS.charAt(i)));
            }
        } else {
            int width = begin.length() > 1 && begin.charAt(0) == '0' ? begin.length() : 0;
            if (width > 0 && width != end.length()) {
                throw new BadPattern("a host range starting with 0 must have begin and end of the same width,"
                        + " like [01:10]");
            }
            int from = number(begin, pattern);
            int to = number(end, pattern);
            for (long i = from; i <= to; i += step) {
                items.add(width > 0 ? String.format("%0" + width + "d", i) : Long.toString(i));
                if (items.size() > MAX_HOSTS) {
                    break;
                }
            }
        }
        for (String item : items) {
            expand(head + item + tail, into);
            if (into.size() > MAX_HOSTS) {
                throw new BadPattern("stands for more than " + MAX_HOSTS + " hosts");
            }
        }
    }

    private static int number(String written, String pattern) throws BadPattern {
        if (!written.matches("[0-9]{1,9}")) {
            throw new BadPattern("'" + written + "' is not a number or a single letter in a host range");
        }
        return Integer.parseInt(written);
    }
}
