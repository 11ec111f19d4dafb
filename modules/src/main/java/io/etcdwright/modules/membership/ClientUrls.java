package io.etcdwright.modules.membership;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** etcd client URLs as etcdwright's clients take them: {@code https://HOST:PORT} (port 2379 if left out), or {@code http://}. */
final class ClientUrls {
    private static final int DEFAULT_CLIENT_PORT = 2379;

    private ClientUrls() {
    }

    /** The endpoints, checked and normalized, without duplicates; one scheme for all. */
    static List<URI> parse(List<String> endpoints) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no etcd endpoint given");
        }
        LinkedHashSet<URI> uris = new LinkedHashSet<>();
        for (String endpoint : endpoints) {
            uris.add(parseEndpoint(endpoint));
        }
        // One client for all of them: TLS to every endpoint or to none.
        if (uris.stream().map(URI::getScheme).distinct().count() > 1) {
            throw new IllegalArgumentException("endpoints " + endpoints + " mix http:// and https://; give one scheme");
        }
        return List.copyOf(uris);
    }

    /** One URL as a member advertises it, normalized; null when it is not one. */
    static URI parseOrNull(String url) {
        try {
            return parseEndpoint(url);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether these (parsed) endpoints are plain HTTP: a cluster whose spec says tls.transport.clients plaintext. */
    static boolean plaintext(List<URI> uris) {
        return !isHttps(uris.get(0));
    }

    private static URI parseEndpoint(String endpoint) {
        String text = Objects.requireNonNull(endpoint, "endpoint").trim();
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' is not a URL like https://10.0.0.1:2379");
        }
        if (uri.getScheme() == null || uri.getHost() == null) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' is not a URL like https://10.0.0.1:2379");
        }
        if (!isHttps(uri) && !"http".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' must be https:// (or http:// for a plaintext"
                    + " cluster)");
        }
        boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
                && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
        if (!bare) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' must be just https://HOST:PORT");
        }
        return normalize(uri);
    }

    private static boolean isHttps(URI uri) {
        return "https".equalsIgnoreCase(uri.getScheme());
    }

    static URI normalize(URI uri) {
        int port = uri.getPort() == -1 ? DEFAULT_CLIENT_PORT : uri.getPort();
        return URI.create(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port);
    }
}
