package io.etcdwright.cli;

/** Whether output may be redrawn in place: a real terminal, and no NO_COLOR or TERM=dumb asking for plain text. */
final class Terminal {
    private Terminal() {
    }

    static boolean live() {
        return System.console() != null && System.getenv("NO_COLOR") == null && !"dumb".equals(System.getenv("TERM"));
    }

    /** The terminal's width as the shell exports it (COLUMNS), else 100. */
    static int width() {
        try {
            int columns = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", ""));
            return columns >= 40 ? columns : 100;
        } catch (NumberFormatException e) {
            return 100;
        }
    }
}
