package io.etcdwright.modules.adopt;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An environment file as systemd's EnvironmentFile= reads it (systemd.exec(5)), never by a shell:
 * {@code NAME=value} lines; empty lines and lines starting with '#' or ';' ignored; a value may be
 * in single quotes (literal) or double quotes (backslash escapes \" \\ \$ \`, and a backslash-newline
 * joins lines); an unquoted value has its surrounding whitespace dropped and a trailing backslash
 * continues it on the next line. {@code export NAME=value} (a shell habit in /etc/default files) is
 * read as NAME=value.
 */
public final class EnvironmentFile {
    private EnvironmentFile() {
    }

    public static Map<String, String> parse(String path, String text) {
        Map<String, String> vars = new LinkedHashMap<>();
        int i = 0;
        int line = 1;
        int n = text.length();
        while (i < n) {
            // skip leading whitespace and blank lines
            while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t' || text.charAt(i) == '\r' || text.charAt(i) == '\n')) {
                if (text.charAt(i) == '\n') {
                    line++;
                }
                i++;
            }
            if (i >= n) {
                break;
            }
            if (text.charAt(i) == '#' || text.charAt(i) == ';') {
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
                continue;
            }
            int startLine = line;
            int eq = i;
            while (eq < n && text.charAt(eq) != '=' && text.charAt(eq) != '\n') {
                eq++;
            }
            if (eq >= n || text.charAt(eq) != '=') {
                throw new UnitSyntaxException(path, startLine, "not a NAME=value line");
            }
            String name = text.substring(i, eq).strip();
            if (name.startsWith("export ") || name.startsWith("export\t")) {
                name = name.substring(7).strip();
            }
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new UnitSyntaxException(path, startLine, "'" + name + "' is not a variable name");
            }
            i = eq + 1;
            while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
                i++;
            }
            StringBuilder value = new StringBuilder();
            // A value is a run of unquoted, single-quoted and double-quoted parts up to the end of the line.
            StringBuilder unquotedTail = new StringBuilder();
            while (i < n && text.charAt(i) != '\n') {
                char c = text.charAt(i);
                if (c == '\'') {
                    value.append(unquotedTail);
                    unquotedTail.setLength(0);
                    int end = text.indexOf('\'', i + 1);
                    if (end < 0) {
                        throw new UnitSyntaxException(path, startLine, "unterminated ' quote");
                    }
                    String part = text.substring(i + 1, end);
                    line += part.chars().filter(ch -> ch == '\n').count();
                    value.append(part);
                    i = end + 1;
                } else if (c == '"') {
                    value.append(unquotedTail);
                    unquotedTail.setLength(0);
                    i++;
                    boolean closed = false;
                    while (i < n) {
                        char d = text.charAt(i);
                        if (d == '"') {
                            closed = true;
                            i++;
                            break;
                        }
                        if (d == '\\' && i + 1 < n) {
                            char e = text.charAt(i + 1);
                            if (e == '\n') {
                                line++;
                            } else if (e == '"' || e == '\\' || e == '$' || e == '`') {
                                value.append(e);
                            } else {
                                value.append(d).append(e);
                            }
                            i += 2;
                            continue;
                        }
                        if (d == '\n') {
                            line++;
                        }
                        value.append(d);
                        i++;
                    }
                    if (!closed) {
                        throw new UnitSyntaxException(path, startLine, "unterminated \" quote");
                    }
                } else if (c == '\\' && i + 1 < n) {
                    char e = text.charAt(i + 1);
                    if (e == '\n') {
                        line++;
                    } else {
                        unquotedTail.append(e);
                    }
                    i += 2;
                } else {
                    unquotedTail.append(c);
                    i++;
                }
            }
            value.append(unquotedTail.toString().stripTrailing());
            vars.put(name, value.toString());
        }
        return vars;
    }
}
