package io.etcdwright.engine.spec;

import java.util.regex.Pattern;

/**
 * The syntax of {@code cluster.labels}: Kubernetes' own for labels (apimachinery's IsQualifiedName
 * and IsValidLabelValue), so a label copied from a cluster's Kubernetes objects reads the same here.
 * schemas/cluster.schema.json writes the same two patterns (a test holds them equal); this class is
 * for what names a label outside a spec, such as {@code --waves-by LABEL}.
 */
public final class LabelSyntax {
    /**
     * A key: an optional prefix, a DNS subdomain of at most 253 characters (lower-case letters, digits,
     * '-' and '.'), and '/'; then a name of 1 to 63 letters, digits, '-', '_' or '.' that starts and ends
     * with a letter or digit ({@code site}, {@code example.com/tier}).
     */
    public static final String KEY_PATTERN = "^((?=[^/]{1,253}/)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
            + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
    /** A value: empty, or 1 to 63 letters, digits, '-', '_' or '.' that starts and ends with a letter or digit. */
    public static final String VALUE_PATTERN = "^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$";
    /** The rule of a key, in the words of the schema's message. */
    public static final String KEY_RULE = "a label key as Kubernetes writes one: a name of 1 to 63 letters, digits, '-', '_' or '.'"
            + " that starts and ends with a letter or digit, after an optional DNS-subdomain prefix and '/', like site or"
            + " example.com/tier";

    private static final Pattern KEY = Pattern.compile(KEY_PATTERN);

    private LabelSyntax() {
    }

    public static boolean isKey(String text) {
        // matches(), not find(): '$' alone would let a trailing newline through.
        return KEY.matcher(text).matches();
    }
}
