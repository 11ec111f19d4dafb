package io.etcdwright.engine.source;

import java.util.Optional;
import java.util.regex.Pattern;

/** Names that end up in paths, certificates, etcd's member lists and SSH logins. */
public final class Names {

    /**
     * An etcd member name names a directory of the workstation's PKI ({@code members/<name>/}),
     * goes into the member's certificate (its subject and a DNS name of it) and into etcd's
     * {@code initial-cluster} list ({@code name=url,name=url}, which etcd parses as a URL query:
     * '%' and '+' are decoded there). A DNS name of at most 63 characters, or an IPv4 address,
     * is safe in all three: no '/', no '.' or '..' alone, no ',', '=', '%', '+' or space. Upper
     * case is allowed: member names are compared without case, so two cannot share a directory
     * on a case-insensitive file system. Underscores are not: they are not valid in a DNS name.
     */
    public static final String MEMBER_NAME_RULE = "at most 63 characters: letters, digits and '-' in dot-separated"
            + " labels that start and end with a letter or digit (a DNS name), or an IPv4 address";
    private static final int MAX_MEMBER_NAME = 63;

    /** A user to log in as over SSH: what useradd accepts, without a leading '-' (an option to ssh and sudo). */
    public static final String USER_NAME_RULE = "1 to 32 letters, digits, '_', '.' or '-', not starting with '-' or '.'";
    private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,31}");

    private Names() {}

    public static boolean isMemberName(String value) {
        return !value.isEmpty() && value.length() <= MAX_MEMBER_NAME
                && (Addresses.dnsNameProblem(value).isEmpty() || Addresses.ipv4Problem(value).isEmpty());
    }

    /** Why {@code value} cannot be an etcd member name; empty when it can. */
    public static Optional<String> memberNameProblem(String value) {
        if (isMemberName(value)) {
            return Optional.empty();
        }
        return Optional.of("must be a member name: " + MEMBER_NAME_RULE + " (it names the member's certificate"
                + " directory and its entry in etcd's initial-cluster); got " + Quoted.of(value));
    }

    public static Optional<String> userNameProblem(String value) {
        if (USER_NAME.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of("must be a user name: " + USER_NAME_RULE + "; got " + Quoted.of(value));
    }
}
