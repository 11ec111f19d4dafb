package io.etcdwright.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One case of the bad-input corpus (src/test/resources/bad-inputs/CLASS/NAME.case): a header of
 * {@code key: value} lines, a line {@code ====}, then the broken file's content. Line and column
 * numbers in the header count from the first line after {@code ====}.
 *
 * <pre>
 * # why this input must be refused (comments start with #)
 * broken: inventory | ini | spec | plan   which file the body replaces (the other is a valid default);
 *                                   ini: the inventory as an INI file, hosts.ini
 * at: 4:21                          line:column of the error in the broken file (* matches any number)
 * field: all.hosts.h1.ansible_port  the field named in the error; - for a problem of the whole file;
 *                                   a.b.* for any field under a.b (keys with odd characters); * for any or none
 * reported-in: spec                 optional: the error is in this file, not the broken one (a clash between them)
 * seen-with: spec                   optional: the error is in the broken inventory but is a clash with the (valid)
 *                                   spec, so a command reading the inventory alone (facts -i) is not expected to see it
 * message: integer                  a word or two the message must contain (case-insensitive)
 * given: directory                  optional: the broken path is a directory, a dangling-symlink, or a
 *                                   pipe (a FIFO the body is written into, as -f <(sops -d ...) gives)
 * setup: file NAME TEXT             optional, repeatable: mkdir NAME, file NAME TEXT (\n escapes), symlink NAME TARGET
 * ====
 * the broken file
 * </pre>
 *
 * The body may use {@code @PORT1@} .. {@code @PORT3@} (the listening "hosts"), {@code @DIR@} (the
 * case's directory), {@code @INVENTORY@} and {@code @SPEC@} (the files' paths),
 * {@code @REPEAT(text,count)@} (text repeated, for inputs too big to commit; \n escapes) and
 * {@code @HEX(ff fe 00)@} (raw bytes, for binary and non-UTF-8 files).
 */
record BadInputCase(String id, Broken broken, Broken reportedIn, boolean seenWithSpec, String at, String field, String message,
                    String given, List<String> setup, String body) {

    /** ini: the inventory, written as an INI file (hosts.ini) instead of YAML; the body is the whole of it. */
    enum Broken { inventory, ini, spec, plan }

    private static final Pattern MACRO = Pattern.compile("@REPEAT\\((.*?),(\\d+)\\)@|@HEX\\(([0-9a-fA-F ]*)\\)@");

    static BadInputCase read(String id, Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int separator = text.startsWith("====\n") ? 0 : text.indexOf("\n====\n") + 1;
        if (separator < 0 || (separator == 0 && !text.startsWith("====\n"))) {
            throw new IllegalArgumentException(id + ": no ==== line between header and body");
        }
        String header = text.substring(0, separator);
        String body = text.substring(separator + "====\n".length());
        Map<String, String> values = new java.util.HashMap<>();
        List<String> setup = new ArrayList<>();
        for (String line : header.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(id + ": header line without 'key:': " + line);
            }
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if (key.equals("setup")) {
                setup.add(value);
            } else if (values.put(key, value) != null) {
                throw new IllegalArgumentException(id + ": header key " + key + " given twice");
            }
        }
        for (String required : List.of("broken", "at", "field", "message")) {
            if (!values.containsKey(required)) {
                throw new IllegalArgumentException(id + ": header lacks '" + required + ":'");
            }
        }
        if (!values.get("at").matches("(\\d+|\\*):(\\d+|\\*)")) {
            throw new IllegalArgumentException(id + ": 'at:' must be LINE:COLUMN, got " + values.get("at"));
        }
        Broken broken = Broken.valueOf(values.get("broken"));
        Broken reportedIn = values.containsKey("reported-in") ? Broken.valueOf(values.get("reported-in")) : broken;
        if (values.containsKey("seen-with") && !values.get("seen-with").equals("spec")) {
            throw new IllegalArgumentException(id + ": 'seen-with:' can only be spec, got " + values.get("seen-with"));
        }
        return new BadInputCase(id, broken, reportedIn, values.containsKey("seen-with"), values.get("at"), values.get("field"),
                values.get("message"), values.getOrDefault("given", ""), setup, body);
    }

    /** The broken file's bytes, placeholders and macros expanded. */
    byte[] bodyBytes(Map<String, String> placeholders) {
        String text = body;
        for (Map.Entry<String, String> p : placeholders.entrySet()) {
            text = text.replace(p.getKey(), p.getValue());
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Matcher macro = MACRO.matcher(text);
        int done = 0;
        while (macro.find()) {
            bytes.writeBytes(text.substring(done, macro.start()).getBytes(StandardCharsets.UTF_8));
            if (macro.group(1) != null) {
                byte[] unit = unescape(macro.group(1)).getBytes(StandardCharsets.UTF_8);
                for (int i = Integer.parseInt(macro.group(2)); i > 0; i--) {
                    bytes.writeBytes(unit);
                }
            } else {
                bytes.writeBytes(HexFormat.of().parseHex(macro.group(3).replace(" ", "")));
            }
            done = macro.end();
        }
        bytes.writeBytes(text.substring(done).getBytes(StandardCharsets.UTF_8));
        return bytes.toByteArray();
    }

    static String unescape(String text) {
        return text.replace("\\n", "\n").replace("\\t", "\t");
    }

    /** The pattern the error line must match, given the path the command line named. */
    Pattern errorLine(Path file) {
        String[] lineColumn = at.split(":");
        String where = Pattern.quote(file.toString()) + ":" + number(lineColumn[0]) + ":" + number(lineColumn[1]);
        String what;
        if (field.equals("-")) {
            what = "";
        } else if (field.equals("*")) {
            what = "(?:[^ ]+: )?";
        } else if (field.endsWith(".*")) {
            what = Pattern.quote(field.substring(0, field.length() - 1)) + ".+?: ";
        } else {
            what = Pattern.quote(field) + ": ";
        }
        return Pattern.compile("^" + where + ": error: " + what + ".*" + Pattern.quote(message) + ".*$",
                Pattern.MULTILINE | Pattern.CASE_INSENSITIVE);
    }

    private static String number(String written) {
        return written.equals("*") ? "[1-9][0-9]*" : written;
    }
}
