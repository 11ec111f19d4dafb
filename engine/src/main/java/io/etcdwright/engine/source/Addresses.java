package io.etcdwright.engine.source;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Host addresses as etcdwright accepts them wherever one is written (ansible_host, etcd_address,
 * inventory host names, certificate names, URL hosts): an IP literal, parsed for real, or an
 * RFC 1123 DNS name. Anything else (a port, a scheme, brackets, a zone id, shell characters) is
 * refused with the reason, so no such value ever reaches a command line, a URL or a certificate.
 */
public final class Addresses {

    /** The rule, as messages state it. */
    public static final String RULE = "an IPv4 or IPv6 address, or a DNS name (RFC 1123: letters, digits and '-'"
            + " in dot-separated labels of 1 to 63 characters, 253 in all)";

    private Addresses() {}

    /** Why {@code value} is not an address etcd can listen on or be reached at; empty when it is. */
    public static Optional<String> problem(String value) {
        Optional<String> reason = reason(value);
        if (reason.isEmpty()) {
            reason = unusable(value);
        }
        return reason.map(why -> "must be " + RULE + "; got " + Quoted.of(value) + ": " + why);
    }

    /** Whether {@code value} is an IPv4 or IPv6 literal (strictly: dotted quad, RFC 4291 text form). */
    public static boolean isIpLiteral(String value) {
        return ipv4Problem(value).isEmpty() || (value.indexOf(':') >= 0 && ipv6Problem(value).isEmpty());
    }

    /**
     * One spelling per address, to compare them: IP literals in their canonical form
     * ({@code fd00:0::1} is {@code fd00::1}), names in lower case. Never a DNS lookup.
     */
    public static String canonical(String address) {
        if (!isIpLiteral(address)) {
            return address.toLowerCase(Locale.ROOT);
        }
        try {
            // Safe: a validated literal is parsed, never resolved.
            return InetAddress.getByName(address).getHostAddress();
        } catch (UnknownHostException e) {
            return address.toLowerCase(Locale.ROOT);
        }
    }

    /** The reason {@code value} is neither an IP literal nor a DNS name. */
    static Optional<String> reason(String value) {
        if (value.isEmpty()) {
            return Optional.of("it is empty");
        }
        int control = Quoted.firstControl(value);
        if (control >= 0) {
            return Optional.of("it contains a control character at position " + (control + 1));
        }
        if (value.startsWith("[") || value.endsWith("]")) {
            return Optional.of("write an IPv6 address without brackets (etcdwright adds them in URLs)");
        }
        if (value.contains("://") || value.contains("/")) {
            return Optional.of("write the bare address, without scheme or path (etcdwright adds those)");
        }
        if (value.indexOf(':') >= 0) {
            if (value.matches("[^:]+:[0-9]+")) {
                return Optional.of("write the bare address, without a port (the ports are set elsewhere)");
            }
            return ipv6Problem(value);
        }
        if (value.matches("[0-9.]+")) {
            // Only digits and dots: meant as an IPv4 address (a DNS name's last label is never all digits).
            return ipv4Problem(value);
        }
        return dnsNameProblem(value);
    }

    /** Addresses that parse but can never be a member's: nobody can connect to them. */
    private static Optional<String> unusable(String value) {
        if (value.equals("0.0.0.0") || (value.indexOf(':') >= 0 && value.replace(":", "").replace("0", "").isEmpty())) {
            return Optional.of("the unspecified address means 'every interface' when listening, and nobody can connect to it");
        }
        if (value.equals("255.255.255.255")) {
            return Optional.of("the broadcast address is not a host");
        }
        if (ipv4Problem(value).isEmpty()) {
            int first = Integer.parseInt(value.substring(0, value.indexOf('.')));
            if (first >= 224 && first <= 239) {
                return Optional.of("a multicast address is not a host");
            }
        } else if (value.indexOf(':') == 4 && value.regionMatches(true, 0, "ff", 0, 2)) {
            // ff00::/8: the first group is ffXX.
            return Optional.of("a multicast address is not a host");
        }
        return Optional.empty();
    }

    /** Four decimal numbers 0 to 255, without leading zeros (which some resolvers read as octal). */
    static Optional<String> ipv4Problem(String value) {
        String[] parts = value.split("\\.", -1);
        if (parts.length != 4) {
            return Optional.of("an IPv4 address has four numbers separated by dots, this has " + parts.length);
        }
        for (String part : parts) {
            if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return Optional.of("'" + part + "' is not a number 0 to 255");
            }
            if (part.length() > 1 && part.charAt(0) == '0') {
                return Optional.of("'" + part + "' has a leading zero, which some programs read as octal");
            }
            if (Integer.parseInt(part) > 255) {
                return Optional.of(part + " is more than 255");
            }
        }
        return Optional.empty();
    }

    /**
     * Eight groups of 1 to 4 hex digits separated by ':', one run of groups shortened to '::',
     * the last two groups possibly written as an IPv4 address. No zone id ({@code %eth0}): it
     * means nothing to another host and breaks URLs.
     */
    static Optional<String> ipv6Problem(String value) {
        if (value.indexOf('%') >= 0) {
            return Optional.of("an IPv6 zone id (%...) only means something on one host; write the address alone");
        }
        int doubleColon = value.indexOf("::");
        if (doubleColon >= 0 && value.indexOf("::", doubleColon + 1) >= 0) {
            return Optional.of("'::' may appear only once in an IPv6 address");
        }
        String head = doubleColon >= 0 ? value.substring(0, doubleColon) : value;
        String tail = doubleColon >= 0 ? value.substring(doubleColon + 2) : "";
        // Only the very last group may be written as an IPv4 address ("::ffff:10.0.0.1").
        GroupCount front = countGroups(head, doubleColon < 0);
        GroupCount back = countGroups(tail, true);
        if (front.problem.isPresent()) {
            return front.problem;
        }
        if (back.problem.isPresent()) {
            return back.problem;
        }
        int groups = front.groups + back.groups;
        if (doubleColon >= 0 ? groups > 7 : groups != 8) {
            return Optional.of("an IPv6 address has 8 groups of hex digits (or fewer with '::'), this has " + groups);
        }
        return Optional.empty();
    }

    private record GroupCount(int groups, Optional<String> problem) {}

    private static GroupCount countGroups(String part, boolean mayEndInIpv4) {
        if (part.isEmpty()) {
            return new GroupCount(0, Optional.empty());
        }
        String[] pieces = part.split(":", -1);
        int groups = 0;
        for (int i = 0; i < pieces.length; i++) {
            String piece = pieces[i];
            if (mayEndInIpv4 && i == pieces.length - 1 && piece.indexOf('.') >= 0) {
                Optional<String> ipv4 = ipv4Problem(piece);
                if (ipv4.isPresent()) {
                    return new GroupCount(groups, Optional.of("the embedded IPv4 address " + piece + " is not valid: " + ipv4.get()));
                }
                groups += 2;
            } else if (piece.isEmpty() || piece.length() > 4
                    || !piece.chars().allMatch(c -> c < 128 && Character.digit(c, 16) >= 0)) {
                return new GroupCount(groups, Optional.of("'" + piece + "' is not a group of 1 to 4 hex digits"));
            } else {
                groups++;
            }
        }
        return new GroupCount(groups, Optional.empty());
    }

    /** RFC 1123 host name: labels of letters, digits and inner '-', the last one not all digits. */
    static Optional<String> dnsNameProblem(String value) {
        if (value.length() > 253) {
            return Optional.of("it is " + value.length() + " characters long");
        }
        if (value.endsWith(".")) {
            return Optional.of("write the name without a trailing dot");
        }
        String[] labels = value.split("\\.", -1);
        for (String label : labels) {
            if (label.isEmpty()) {
                return Optional.of("it has an empty label (two dots in a row, or a leading dot)");
            }
            if (label.length() > 63) {
                return Optional.of("the label '" + label.substring(0, 20) + "...' is " + label.length() + " characters long");
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                boolean allowed = c < 128 && (Character.isLetterOrDigit(c) || c == '-');
                if (!allowed) {
                    return Optional.of("'" + (Character.isWhitespace(c) ? "a space" : String.valueOf(c)) + "' is not allowed");
                }
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                return Optional.of("the label '" + label + "' starts or ends with '-'");
            }
        }
        if (labels[labels.length - 1].chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.of("the last label is all digits, so it is neither a DNS name nor an IP address");
        }
        return Optional.empty();
    }
}
