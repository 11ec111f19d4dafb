package io.etcdwright.engine.inventory;

import java.util.ArrayList;
import java.util.List;

/**
 * A host line of an INI inventory split into words as Python's {@code shlex.split(line,
 * comments=True)} splits it (what Ansible uses): blanks separate words, single quotes keep
 * everything, double quotes keep everything but {@code \"} and {@code \\}, a backslash outside
 * quotes keeps the next character, and {@code #} starts a comment, even inside a word. Each
 * word remembers the column of every character it kept, so messages point into the line.
 */
final class ShellWords {

    /** One word: its text without quotes, its first column and the column of each kept character. */
    record Word(String text, int column, int[] columns) {
        /** The column of the character at {@code offset} of the text (its end when past it). */
        int valueColumn(int offset) {
            if (offset < columns.length) {
                return columns[offset];
            }
            return columns.length == 0 ? column : columns[columns.length - 1] + 1;
        }
    }

    static final class Unbalanced extends Exception {
        private final int column;

        Unbalanced(String message, int column) {
            super(message, null, false, false);
            this.column = column;
        }

        int column() {
            return column;
        }
    }

    private ShellWords() {}

    static List<Word> split(String line) throws Unbalanced {
        List<Word> words = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        List<Integer> columns = new ArrayList<>();
        int start = -1;
        char quote = 0;
        int quoteAt = 0;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            int column = i + 1;
            if (quote == 0) {
                if (Character.isWhitespace(c)) {
                    if (start >= 0) {
                        words.add(word(text, start, columns));
                        start = -1;
                    }
                    i++;
                    continue;
                }
                if (c == '#') {
                    break;
                }
                if (start < 0) {
                    start = column;
                }
                if (c == '\'' || c == '"') {
                    quote = c;
                    quoteAt = column;
                } else if (c == '\\') {
                    if (i + 1 >= line.length()) {
                        throw new Unbalanced("a backslash at the end of the line escapes nothing", column);
                    }
                    text.append(line.charAt(i + 1));
                    columns.add(column + 1);
                    i++;
                } else {
                    text.append(c);
                    columns.add(column);
                }
            } else if (c == quote) {
                quote = 0;
            } else if (quote == '"' && c == '\\' && i + 1 < line.length()
                    && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                text.append(line.charAt(i + 1));
                columns.add(column + 1);
                i++;
            } else {
                text.append(c);
                columns.add(column);
            }
            i++;
        }
        if (quote != 0) {
            throw new Unbalanced("the quote " + quote + " opened here is never closed", quoteAt);
        }
        if (start >= 0) {
            words.add(word(text, start, columns));
        }
        return words;
    }

    private static Word word(StringBuilder text, int start, List<Integer> columns) {
        Word word = new Word(text.toString(), start, columns.stream().mapToInt(Integer::intValue).toArray());
        text.setLength(0);
        columns.clear();
        return word;
    }
}
