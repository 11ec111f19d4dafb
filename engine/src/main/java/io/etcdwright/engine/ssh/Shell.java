package io.etcdwright.engine.ssh;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Joins arguments into one sh command line for {@link RemoteCommand}: callers give argument
 * lists, never strings, so no code outside this package decides what is quoted. Plain words
 * stay bare so that logs read naturally; anything else goes through {@link ShellQuoting#word}.
 */
final class Shell {
    private Shell() {
    }

    /** Quotes one word so that sh sees it as one literal word, whatever it contains. */
    static String quote(String word) {
        requireArgument(word);
        return isPlain(word) ? word : ShellQuoting.word(word);
    }

    /**
     * Made only of [A-Za-z0-9_./:=@%+,-], which sh reads literally. A loop, not String.matches:
     * every argument of every remote command comes here (sixty a host for the facts script), and
     * matches compiles its pattern at each call.
     */
    private static boolean isPlain(String word) {
        if (word.isEmpty()) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "_./:=@%+,-".indexOf(c) >= 0;
            if (!plain) {
                return false;
            }
        }
        return true;
    }

    static String join(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }

    /** A program argument is a C string: it cannot carry NUL, so a value holding one is refused, not cut short. */
    static void requireArgument(String word) {
        if (word == null) {
            throw new IllegalArgumentException("a command argument is missing (null)");
        }
        int nul = word.indexOf('\0');
        if (nul >= 0) {
            throw new IllegalArgumentException("a command argument contains a NUL character (at position " + nul
                    + "), which no program argument can carry: " + visible(word));
        }
    }

    private static String visible(String word) {
        String shown = word.replace("\0", "\\0").replace("\n", "\\n");
        return shown.length() <= 60 ? "'" + shown + "'" : "'" + shown.substring(0, 57) + "...'";
    }
}
