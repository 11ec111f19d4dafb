package io.etcdwright.cli;

import java.util.regex.Pattern;

/**
 * Private key material never reaches the terminal, even when an operator pasted a key into the
 * wrong field and the error quotes what was written ("must be an integer, got "-----BEGIN...").
 * Everything etcdwright prints about bad input and failures passes through here.
 */
final class SecretRedaction {
    static final String REDACTED = "[private key, not shown]";

    /** The armour, then base64 lines (real or escaped newlines), the closing armour, and a "..." of a cut quote. */
    private static final Pattern PEM_PRIVATE_KEY = Pattern.compile(
            "-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[A-Za-z0-9+/=\\r\\n\\t ]|\\\\[nrt])*"
                    + "(?:-----END [A-Z0-9 ]*PRIVATE KEY-----)?(?:\\.\\.\\.)?");

    private SecretRedaction() {
    }

    static String redact(String text) {
        return text.contains("PRIVATE KEY") ? PEM_PRIVATE_KEY.matcher(text).replaceAll(REDACTED) : text;
    }
}
