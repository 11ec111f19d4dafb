package io.etcdwright.engine.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.Optional;

/**
 * The value of a variable in an INI inventory, typed as Ansible's INI plugin types it: it
 * hands the text to Python's {@code ast.literal_eval} and keeps the text itself when that
 * fails. So {@code 22} is an integer, {@code True} a boolean, {@code None} null,
 * {@code '10.0.0.1'} and {@code "a b"} strings without their quotes, {@code [1, 2]} a list,
 * {@code {'a': 1}} a mapping, while {@code true}, {@code yes}, {@code 10.0.0.1} and
 * {@code 010} stay the text as written.
 *
 * <p>This reads Python literals only (numbers, strings with their escapes and prefixes,
 * {@code True}/{@code False}/{@code None}, lists, tuples and dicts); nothing is ever
 * evaluated. Literals Python has but JSON does not (complex numbers, sets, bytes of another
 * encoding) are kept as text.
 */
final class PythonLiteral {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int MAX_DEPTH = 50;

    private final String text;
    private int at;
    private int depth;

    private PythonLiteral(String text) {
        this.text = text;
    }

    /** The typed value of {@code written}, or the text itself when it is not one Python literal. */
    static JsonNode valueOf(String written) {
        return parse(written).orElseGet(() -> NODES.textNode(written));
    }

    /** The literal {@code written} is, if it is one. */
    static Optional<JsonNode> parse(String written) {
        PythonLiteral reader = new PythonLiteral(written);
        // literal_eval strips leading spaces and tabs only
        while (reader.at < written.length() && (written.charAt(reader.at) == ' ' || written.charAt(reader.at) == '\t')) {
            reader.at++;
        }
        try {
            JsonNode value = reader.value();
            reader.skipSpace();
            return reader.at == written.length() ? Optional.of(value) : Optional.empty();
        } catch (NotALiteral e) {
            return Optional.empty();
        }
    }

    private static final class NotALiteral extends Exception {
        NotALiteral() {
            super(null, null, false, false);
        }
    }

    private JsonNode value() throws NotALiteral {
        skipSpace();
        if (at >= text.length()) {
            throw new NotALiteral();
        }
        char c = text.charAt(at);
        if (c == '[') {
            return sequence('[', ']');
        } else if (c == '(') {
            return sequence('(', ')');
        } else if (c == '{') {
            return mapping();
        } else if (c == '-' || c == '+') {
            at++;
            skipSpace();
            // literal_eval takes one sign on a number, nothing more (-1, not --1 or -True)
            if (at >= text.length() || !(Character.isDigit(text.charAt(at)) || text.charAt(at) == '.')) {
                throw new NotALiteral();
            }
            JsonNode number = number();
            return c == '+' ? number : negate(number);
        } else if (Character.isDigit(c) || c == '.' && at + 1 < text.length() && Character.isDigit(text.charAt(at + 1))) {
            return number();
        } else if (c == '\'' || c == '"') {
            return strings("");
        } else if (Character.isLetter(c) || c == '_') {
            int start = at;
            while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
                at++;
            }
            String word = text.substring(start, at);
            if (at < text.length() && (text.charAt(at) == '\'' || text.charAt(at) == '"')) {
                return strings(word.toLowerCase(java.util.Locale.ROOT));
            }
            switch (word) {
                case "True": return NODES.booleanNode(true);
                case "False": return NODES.booleanNode(false);
                case "None": return NODES.nullNode();
                default: throw new NotALiteral();
            }
        }
        throw new NotALiteral();
    }

    private static JsonNode negate(JsonNode number) {
        if (number.isBigInteger() || number.isLong() || number.isInt()) {
            return integer(number.bigIntegerValue().negate());
        }
        return NODES.numberNode(-number.doubleValue());
    }

    private JsonNode sequence(char open, char close) throws NotALiteral {
        enter();
        at++;
        ArrayNode items = NODES.arrayNode();
        boolean tuple = open == '(';
        boolean sawComma = false;
        while (true) {
            skipSpace();
            if (peek(close)) {
                at++;
                break;
            }
            items.add(value());
            skipSpace();
            if (peek(',')) {
                at++;
                sawComma = true;
            } else if (peek(close)) {
                at++;
                break;
            } else {
                throw new NotALiteral();
            }
        }
        depth--;
        if (tuple && items.size() == 1 && !sawComma) {
            return items.get(0); // (x) is x, only (x,) is a tuple
        }
        return items;
    }

    private JsonNode mapping() throws NotALiteral {
        enter();
        at++;
        ObjectNode fields = NODES.objectNode();
        while (true) {
            skipSpace();
            if (peek('}')) {
                at++;
                break;
            }
            JsonNode key = value();
            skipSpace();
            if (!peek(':')) {
                throw new NotALiteral(); // a set, or not a literal
            }
            at++;
            JsonNode value = value();
            if (!key.isValueNode()) {
                throw new NotALiteral();
            }
            fields.set(key.isTextual() ? key.textValue() : key.asText(), value);
            skipSpace();
            if (peek(',')) {
                at++;
            } else if (peek('}')) {
                at++;
                break;
            } else {
                throw new NotALiteral();
            }
        }
        depth--;
        return fields;
    }

    private void enter() throws NotALiteral {
        if (++depth > MAX_DEPTH) {
            throw new NotALiteral();
        }
    }

    private JsonNode number() throws NotALiteral {
        if (text.startsWith("0x", at) || text.startsWith("0X", at) || text.startsWith("0o", at) || text.startsWith("0O", at)
                || text.startsWith("0b", at) || text.startsWith("0B", at)) {
            char base = Character.toLowerCase(text.charAt(at + 1));
            at += 2;
            String digits = digits(base == 'x' ? "0123456789abcdefABCDEF" : base == 'o' ? "01234567" : "01", true);
            if (digits.isEmpty()) {
                throw new NotALiteral();
            }
            endOfNumber();
            return integer(new BigInteger(digits, base == 'x' ? 16 : base == 'o' ? 8 : 2));
        }
        String whole = digits("0123456789", false);
        boolean isFloat = false;
        StringBuilder written = new StringBuilder(whole);
        if (peek('.')) {
            at++;
            isFloat = true;
            written.append('.').append(digits("0123456789", false));
        }
        if (peek('e') || peek('E')) {
            int mark = at;
            at++;
            StringBuilder exponent = new StringBuilder("e");
            if (peek('+') || peek('-')) {
                exponent.append(text.charAt(at++));
            }
            String digits = digits("0123456789", false);
            if (digits.isEmpty()) {
                at = mark;
                throw new NotALiteral();
            }
            isFloat = true;
            written.append(exponent).append(digits);
        }
        if (peek('j') || peek('J')) {
            throw new NotALiteral(); // complex: no JSON value
        }
        endOfNumber();
        if (isFloat) {
            String number = written.toString();
            if (number.startsWith(".")) {
                number = "0" + number;
            }
            return NODES.numberNode(Double.parseDouble(number.endsWith(".") ? number + "0" : number.replace(".e", ".0e")));
        }
        // Python 3 refuses leading zeros in decimal integers (010), except zeros only (00).
        if (whole.length() > 1 && whole.charAt(0) == '0' && !whole.chars().allMatch(ch -> ch == '0')) {
            throw new NotALiteral();
        }
        return integer(new BigInteger(whole));
    }

    /** Digits from {@code allowed}, with single underscores between them as Python allows. */
    private String digits(String allowed, boolean underscoreFirst) throws NotALiteral {
        StringBuilder digits = new StringBuilder();
        boolean lastUnderscore = false;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (allowed.indexOf(c) >= 0) {
                digits.append(c);
                lastUnderscore = false;
            } else if (c == '_' && !lastUnderscore && (digits.length() > 0 || underscoreFirst)) {
                lastUnderscore = true;
            } else {
                break;
            }
            at++;
        }
        if (lastUnderscore) {
            throw new NotALiteral();
        }
        return digits.toString();
    }

    /** A number must not run into a name: {@code 1abc} and {@code 1.2.3} are not literals. */
    private void endOfNumber() throws NotALiteral {
        if (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_' || text.charAt(at) == '.')) {
            throw new NotALiteral();
        }
    }

    private static JsonNode integer(BigInteger value) {
        if (value.bitLength() < 32) {
            return NODES.numberNode(value.intValue());
        } else if (value.bitLength() < 64) {
            return NODES.numberNode(value.longValue());
        }
        return NODES.numberNode(value);
    }

    /** One or more adjacent string literals, which Python joins ({@code 'a' "b"} is {@code ab}). */
    private JsonNode strings(String firstPrefix) throws NotALiteral {
        StringBuilder joined = new StringBuilder();
        String prefix = firstPrefix;
        Boolean bytes = null;
        while (true) {
            if (!prefix.matches("|r|u|b|rb|br")) {
                throw new NotALiteral(); // f-strings and unknown prefixes are not literals
            }
            boolean isBytes = prefix.contains("b");
            if (bytes != null && bytes != isBytes) {
                throw new NotALiteral(); // Python refuses to join bytes and text
            }
            bytes = isBytes;
            joined.append(string(prefix.contains("r")));
            int mark = at;
            skipSpace();
            int start = at;
            while (at < text.length() && Character.isLetter(text.charAt(at)) && at - start < 2) {
                at++;
            }
            if (at < text.length() && (text.charAt(at) == '\'' || text.charAt(at) == '"')) {
                prefix = text.substring(start, at).toLowerCase(java.util.Locale.ROOT);
            } else {
                at = mark;
                return NODES.textNode(joined.toString());
            }
        }
    }

    private String string(boolean raw) throws NotALiteral {
        char quote = text.charAt(at);
        boolean triple = text.startsWith(String.valueOf(quote).repeat(3), at);
        String end = triple ? String.valueOf(quote).repeat(3) : String.valueOf(quote);
        at += end.length();
        StringBuilder value = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw new NotALiteral();
            }
            if (text.startsWith(end, at)) {
                at += end.length();
                return value.toString();
            }
            char c = text.charAt(at);
            if (c == '\n' && !triple) {
                throw new NotALiteral();
            }
            if (c == '\\' && at + 1 < text.length()) {
                if (raw) {
                    value.append(c).append(text.charAt(at + 1));
                    at += 2;
                } else {
                    escape(value);
                }
                continue;
            }
            value.append(c);
            at++;
        }
    }

    private void escape(StringBuilder value) throws NotALiteral {
        char c = text.charAt(at + 1);
        at += 2;
        switch (c) {
            case '\n': return;
            case '\\': value.append('\\'); return;
            case '\'': value.append('\''); return;
            case '"': value.append('"'); return;
            case 'a': value.append('\u0007'); return;
            case 'b': value.append('\b'); return;
            case 'f': value.append('\f'); return;
            case 'n': value.append('\n'); return;
            case 'r': value.append('\r'); return;
            case 't': value.append('\t'); return;
            case 'v': value.append('\u000B'); return;
            case 'x': value.appendCodePoint(hex(2)); return;
            case 'u': value.appendCodePoint(hex(4)); return;
            case 'U': value.appendCodePoint(hex(8)); return;
            case 'N': throw new NotALiteral(); // named characters: not worth a Unicode name table
            default:
                if (c >= '0' && c <= '7') {
                    int code = c - '0';
                    for (int i = 0; i < 2 && at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '7'; i++) {
                        code = code * 8 + (text.charAt(at++) - '0');
                    }
                    value.appendCodePoint(code);
                } else {
                    value.append('\\').append(c); // Python keeps unknown escapes as written
                }
        }
    }

    private int hex(int digits) throws NotALiteral {
        if (at + digits > text.length()) {
            throw new NotALiteral();
        }
        String written = text.substring(at, at + digits);
        if (!written.matches("[0-9a-fA-F]+")) {
            throw new NotALiteral();
        }
        at += digits;
        int code = Integer.parseUnsignedInt(written, 16);
        if (code > Character.MAX_CODE_POINT || code < 0) {
            throw new NotALiteral();
        }
        return code;
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    /** Spaces, tabs and a comment to the end: Python's tokenizer ignores them. */
    private void skipSpace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == ' ' || c == '\t' || c == '\f') {
                at++;
            } else if (c == '#') {
                at = text.length();
            } else {
                break;
            }
        }
    }
}
