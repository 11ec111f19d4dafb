package io.etcdwright.engine.ssh;

import java.util.List;
import java.util.stream.Collectors;

/** POSIX shell quoting: everything we send to a host goes through here. */
public final class Shell {
    private Shell() {
    }

    /** Quotes one word so that sh sees it literally, whatever it contains. */
    public static String quote(String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\"'\"'") + "'";
    }

    public static String join(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }
}
