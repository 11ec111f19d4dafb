package io.etcdwright.engine.source;

/**
 * A value an operator wrote, shown inside a message so that what is wrong with it can be seen:
 * in double quotes, with control characters and quotes escaped (a NUL or a newline must not
 * vanish or break the line of the message) and cut short when long (a 20 MB value must not be
 * printed back).
 */
public final class Quoted {

    private static final int SHOWN = 80;

    private Quoted() {}

    /** {@code "10.0.0.1;reboot"}, {@code "a\u0000b"}, {@code "xxxx... (70000 characters)"}. */
    public static String of(String value) {
        boolean cut = value.length() > SHOWN;
        String shown = cut ? value.substring(0, SHOWN) : value;
        StringBuilder quoted = new StringBuilder(shown.length() + 2).append('"');
        shown.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\t' -> quoted.append("\\t");
                case '\r' -> quoted.append("\\r");
                default -> {
                    if (isControl(c)) {
                        quoted.append(String.format("\\u%04x", c));
                    } else {
                        quoted.appendCodePoint(c);
                    }
                }
            }
        });
        quoted.append('"');
        if (cut) {
            quoted.append("... (").append(value.length()).append(" characters)");
        }
        return quoted.toString();
    }

    /**
     * C0 and C1 control characters, DEL, and the Unicode line and paragraph separators and
     * bidirectional overrides: characters that change how a line reads without being seen.
     */
    public static boolean isControl(int c) {
        return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029
                || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
    }

    /** The first control character of {@code value} (see {@link #isControl}), or -1. */
    public static int firstControl(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (isControl(value.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
