package io.etcdwright.engine.source;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * URLs written in a spec (release downloads, an S3 endpoint), possibly with {@code {version}}
 * and {@code {arch}} placeholders. They are fetched by the workstation or by every host, and
 * printed in plans: so they are parsed (scheme, host, port), may not carry a user or password
 * (a secret would be printed), and are limited to the characters of RFC 3986 minus quotes,
 * backslash, '$' and backticks, so that no URL means something else to a shell.
 */
public final class UrlTemplates {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^{}]*)}");
    /**
     * RFC 3986 unreserved characters, the delimiters a download URL uses (: / ? # [ ] @ & = + ,) and
     * '%'. Left out: ' $ ( ) * ! ; which a release URL does not need and a shell gives meaning to;
     * a URL that really holds one writes it percent-encoded.
     */
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9\\-._~:/?#\\[\\]@&+,=%]*");

    private UrlTemplates() {}

    /**
     * Why {@code value} is not a usable URL; empty when it is.
     *
     * @param schemes      the schemes allowed here, like https and http, in the order messages list them
     * @param placeholders the placeholders allowed (without braces); empty: none
     */
    public static Optional<String> problem(String value, Set<String> schemes, Set<String> placeholders) {
        List<String> names = schemes.stream().map(s -> s + "://").toList();
        String allowed = names.size() == 1 ? names.get(0)
                : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
        return reason(value, schemes, placeholders)
                .map(why -> "must be a URL starting with " + allowed + "; got " + Quoted.of(value) + ": " + why);
    }

    private static Optional<String> reason(String value, Set<String> schemes, Set<String> placeholders) {
        if (value.length() > 2048) {
            return Optional.of("it is longer than 2048 characters");
        }
        // Placeholders are filled with values of their kind, then the result must be a URL.
        StringBuilder filled = new StringBuilder();
        Matcher matcher = PLACEHOLDER.matcher(value);
        while (matcher.find()) {
            if (!placeholders.contains(matcher.group(1))) {
                return Optional.of(placeholders.isEmpty() ? "placeholders like {" + matcher.group(1) + "} are not replaced here"
                        : "unknown placeholder {" + matcher.group(1) + "} (known: "
                        + String.join(", ", placeholders.stream().sorted().map(p -> "{" + p + "}").toList()) + ")");
            }
            matcher.appendReplacement(filled, matcher.group(1).equals("arch") ? "amd64" : "3.5.16");
        }
        matcher.appendTail(filled);
        String url = filled.toString();
        for (int i = 0; i < url.length(); i++) {
            char c = url.charAt(i);
            if (!ALLOWED.matcher(String.valueOf(c)).matches()) {
                String shown = Quoted.isControl(c) ? "a control character" : Character.isWhitespace(c) ? "a space"
                        : "'" + c + "'";
                return Optional.of(shown + " is not allowed in a URL here (percent-encode it if it is really part of the URL)");
            }
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return Optional.of(e.getReason());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !schemes.contains(scheme)) {
            return Optional.of(scheme == null ? "it has no scheme" : "the scheme " + scheme + " is not allowed here");
        }
        if (uri.getRawUserInfo() != null) {
            return Optional.of("it carries a user or password, which would be printed in plans and logs");
        }
        if (scheme.equals("file")) {
            if (uri.getRawAuthority() != null || uri.getPath() == null || !uri.getPath().startsWith("/")) {
                return Optional.of("a file URL is file:///absolute/path, without a host");
            }
            return Optional.empty();
        }
        if (uri.getHost() == null) {
            if (uri.getRawAuthority() == null) {
                return Optional.of("it has no host");
            }
            // java.net.URI gives no host for what is not a valid one ("300.1.1.1"): say why.
            String written = uri.getRawAuthority().replaceFirst(":[0-9]*$", "");
            return Optional.of("the host " + written + " is not valid: "
                    + Addresses.reason(written).orElse("it is not a DNS name or an IP address"));
        }
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
        Optional<String> hostProblem = uri.getHost().startsWith("[") ? Addresses.ipv6Problem(host)
                : host.matches("[0-9.]+") ? Addresses.ipv4Problem(host) : Addresses.dnsNameProblem(host);
        if (hostProblem.isPresent()) {
            return Optional.of("the host " + host + " is not valid: " + hostProblem.get());
        }
        if (uri.getPort() == 0 || uri.getPort() > 65535) {
            return Optional.of("the port must be 1 to 65535");
        }
        return Optional.empty();
    }
}
