package io.etcdwright.modules.adopt;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a systemd service unit (its file and drop-ins, in systemd's order) says about how it runs
 * a program, read as systemd reads it (systemd.syntax(7), systemd.service(5) "Command lines"):
 * never by a shell. Only what an adopted etcd needs: ExecStart, Environment, EnvironmentFile.
 *
 * @param execStart        the words of the last ExecStart, before $VAR expansion (still as {@link Word}s)
 * @param environment      Environment= assignments, later ones winning
 * @param environmentFiles EnvironmentFile= paths; {@code optional} when prefixed with '-'
 */
public record SystemdUnit(String unitName, List<Word> execStart, Map<String, String> environment,
                          List<EnvironmentFileRef> environmentFiles, boolean expandVariables) {

    /** A word of a command line: literal text with {@code $VAR} references still in it. */
    public record Word(String text, boolean quoted) {
    }

    public record EnvironmentFileRef(String path, boolean optional) {
    }

    public SystemdUnit {
        execStart = List.copyOf(execStart);
        environment = Map.copyOf(environment);
        environmentFiles = List.copyOf(environmentFiles);
    }

    /**
     * Reads the unit file and then its drop-ins (in the order systemd applies them).
     *
     * @throws UnitSyntaxException naming the file and line of what cannot be read safely
     */
    public static SystemdUnit parse(String unitName, List<SourceText> files) {
        return parse(unitName, Optional.empty(), files);
    }

    /** @param hostname the host's name, for the %H and %l specifiers (refused when not known) */
    public static SystemdUnit parse(String unitName, Optional<String> hostname, List<SourceText> files) {
        List<Word> exec = null;
        Map<String, String> env = new LinkedHashMap<>();
        List<EnvironmentFileRef> envFiles = new ArrayList<>();
        boolean expand = true;
        for (SourceText file : files) {
            String section = "";
            for (LogicalLine line : logicalLines(file)) {
                String text = line.text().strip();
                if (text.isEmpty() || text.startsWith("#") || text.startsWith(";")) {
                    continue;
                }
                if (text.startsWith("[") && text.endsWith("]")) {
                    section = text.substring(1, text.length() - 1);
                    continue;
                }
                if (!section.equals("Service")) {
                    continue;
                }
                int eq = text.indexOf('=');
                if (eq < 0) {
                    throw new UnitSyntaxException(file.path(), line.number(), "not a 'Key=value' line");
                }
                String key = text.substring(0, eq).strip();
                String value = text.substring(eq + 1).strip();
                switch (key) {
                    case "ExecStart" -> {
                        if (value.isEmpty()) {
                            exec = null; // a drop-in's empty ExecStart= resets the list
                            continue;
                        }
                        // systemd's prefixes: '-' '@' ':' '+' '!' '!!'; ':' turns off $VAR expansion.
                        int i = 0;
                        boolean noExpand = false;
                        while (i < value.length() && "-@:+!".indexOf(value.charAt(i)) >= 0) {
                            if (value.charAt(i) == '@') {
                                throw new UnitSyntaxException(file.path(), line.number(),
                                        "ExecStart with '@' runs the program under another argv[0]; not supported for import");
                            }
                            noExpand |= value.charAt(i) == ':';
                            i++;
                        }
                        exec = words(specifiers(value.substring(i), unitName, hostname, file, line), file, line);
                        expand = !noExpand;
                    }
                    case "Environment" -> {
                        for (Word w : words(specifiers(value, unitName, hostname, file, line), file, line)) {
                            int at = w.text().indexOf('=');
                            if (at <= 0) {
                                throw new UnitSyntaxException(file.path(), line.number(), "Environment: '" + w.text()
                                        + "' is not NAME=value");
                            }
                            env.put(w.text().substring(0, at), w.text().substring(at + 1));
                        }
                    }
                    case "EnvironmentFile" -> {
                        if (value.isEmpty()) {
                            envFiles.clear();
                        } else {
                            boolean optional = value.startsWith("-");
                            envFiles.add(new EnvironmentFileRef(specifiers(optional ? value.substring(1) : value, unitName, hostname, file, line),
                                    optional));
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        if (exec == null || exec.isEmpty()) {
            throw new UnitSyntaxException(files.isEmpty() ? unitName : files.get(0).path(), 0,
                    "the unit has no ExecStart");
        }
        return new SystemdUnit(unitName, exec, env, envFiles, expand);
    }

    /** Whether a file (a drop-in) sets ExecStart= in its [Service] section, even to reset it. */
    public static boolean setsExecStart(SourceText file) {
        String section = "";
        for (LogicalLine line : logicalLines(file)) {
            String text = line.text().strip();
            if (text.startsWith("[") && text.endsWith("]")) {
                section = text.substring(1, text.length() - 1);
            } else if (section.equals("Service") && text.matches("ExecStart\\s*=.*")) {
                return true;
            }
        }
        return false;
    }

    /** A file's text and where it came from (for error messages). */
    public record SourceText(String path, String text) {
    }

    private record LogicalLine(int number, String text) {
    }

    /** Lines joined where one ends in a backslash (systemd replaces it with a space). */
    private static List<LogicalLine> logicalLines(SourceText file) {
        List<LogicalLine> out = new ArrayList<>();
        String[] lines = file.text().split("\n", -1);
        StringBuilder current = null;
        int start = 0;
        for (int n = 0; n < lines.length; n++) {
            String l = lines[n];
            if (current == null) {
                current = new StringBuilder();
                start = n + 1;
                if (l.strip().startsWith("#") || l.strip().startsWith(";")) {
                    out.add(new LogicalLine(start, l));
                    current = null;
                    continue;
                }
            } else if (l.strip().startsWith("#") || l.strip().startsWith(";")) {
                continue; // comment lines inside a continuation are skipped, as systemd does
            }
            if (l.endsWith("\\")) {
                current.append(l, 0, l.length() - 1).append(' ');
            } else {
                current.append(l);
                out.add(new LogicalLine(start, current.toString()));
                current = null;
            }
        }
        if (current != null) {
            out.add(new LogicalLine(start, current.toString()));
        }
        return out;
    }

    /**
     * %% is a literal %, %n %N %p name the unit, %H %l the host; any other specifier is refused,
     * not guessed.
     */
    private static String specifiers(String value, String unitName, Optional<String> hostname, SourceText file,
                                     LogicalLine line) {
        String plain = unitName.endsWith(".service") ? unitName.substring(0, unitName.length() - 8) : unitName;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            char next = i + 1 < value.length() ? value.charAt(i + 1) : ' ';
            switch (next) {
                case '%' -> out.append('%');
                case 'n' -> out.append(unitName);
                case 'N' -> out.append(plain);
                case 'p' -> out.append(plain.contains("@") ? plain.substring(0, plain.indexOf('@')) : plain);
                case 'H', 'l' -> out.append(hostname.orElseThrow(() -> new UnitSyntaxException(file.path(), line.number(),
                        "specifier %" + next + " needs the host's name, which was not read")));
                default -> throw new UnitSyntaxException(file.path(), line.number(),
                        "specifier %" + next + " is not supported for import; write the value out in the unit");
            }
            i++;
        }
        return out.toString();
    }

    /** systemd's splitting: whitespace separates, "..." and '...' quote, C escapes inside and outside quotes. */
    static List<Word> words(String value, SourceText file, LogicalLine line) {
        List<Word> out = new ArrayList<>();
        int i = 0;
        int n = value.length();
        while (true) {
            while (i < n && Character.isWhitespace(value.charAt(i))) {
                i++;
            }
            if (i >= n) {
                return out;
            }
            StringBuilder word = new StringBuilder();
            boolean quoted = false;
            char quote = 0;
            while (i < n) {
                char c = value.charAt(i);
                if (quote == 0 && Character.isWhitespace(c)) {
                    break;
                }
                if (quote == 0 && (c == '"' || c == '\'')) {
                    quote = c;
                    quoted = true;
                    i++;
                    continue;
                }
                if (quote != 0 && c == quote) {
                    quote = 0;
                    i++;
                    continue;
                }
                if (c == '\\') {
                    if (i + 1 >= n) {
                        throw new UnitSyntaxException(file.path(), line.number(), "a backslash ends the line");
                    }
                    i = escape(value, i + 1, word, file, line);
                    continue;
                }
                word.append(c);
                i++;
            }
            if (quote != 0) {
                throw new UnitSyntaxException(file.path(), line.number(), "unterminated " + quote + " quote");
            }
            out.add(new Word(word.toString(), quoted));
        }
    }

    private static int escape(String value, int i, StringBuilder word, SourceText file, LogicalLine line) {
        char e = value.charAt(i);
        switch (e) {
            case 'a' -> word.append('\u0007');
            case 'b' -> word.append('\b');
            case 'f' -> word.append('\f');
            case 'n' -> word.append('\n');
            case 'r' -> word.append('\r');
            case 't' -> word.append('\t');
            case 'v' -> word.append('\u000b');
            case '\\', '"', '\'', ' ', '$' -> word.append(e);
            case 's' -> word.append(' ');
            case 'x' -> {
                if (i + 3 > value.length()) {
                    throw new UnitSyntaxException(file.path(), line.number(), "\\x needs two hex digits");
                }
                try {
                    word.append((char) Integer.parseInt(value.substring(i + 1, i + 3), 16));
                } catch (RuntimeException bad) {
                    throw new UnitSyntaxException(file.path(), line.number(), "\\x needs two hex digits");
                }
                return i + 3;
            }
            default -> throw new UnitSyntaxException(file.path(), line.number(), "unsupported escape \\" + e);
        }
        return i + 1;
    }

    /**
     * The command line with $VAR and ${VAR} replaced as systemd does: {@code ${VAR}} inside a word
     * is its value; a word that is exactly {@code $VAR} becomes the value's whitespace-separated words;
     * {@code $$} is a literal '$'. Unset variables are empty (a {@code $VAR} word then vanishes).
     */
    public List<String> argv(Map<String, String> variables) {
        List<String> out = new ArrayList<>();
        for (Word w : execStart) {
            if (!expandVariables) {
                out.add(w.text());
                continue;
            }
            String t = w.text();
            if (!w.quoted() && t.matches("\\$[A-Za-z_][A-Za-z0-9_]*")) {
                String v = variables.getOrDefault(t.substring(1), "");
                for (String part : v.strip().split("\\s+")) {
                    if (!part.isEmpty()) {
                        out.add(part);
                    }
                }
                continue;
            }
            out.add(expand(t, variables));
        }
        return out;
    }

    private static String expand(String t, Map<String, String> variables) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '$' && i + 1 < t.length() && t.charAt(i + 1) == '$') {
                out.append('$');
                i++;
            } else if (c == '$' && i + 1 < t.length() && t.charAt(i + 1) == '{') {
                int end = t.indexOf('}', i + 2);
                if (end < 0) {
                    out.append(c);
                    continue;
                }
                out.append(variables.getOrDefault(t.substring(i + 2, end), ""));
                i = end;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The program ExecStart runs. */
    public Optional<String> program() {
        return execStart.isEmpty() ? Optional.empty() : Optional.of(execStart.get(0).text());
    }
}
