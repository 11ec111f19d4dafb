package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.modules.pki.Pem;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A Kubernetes API client as plain as a test can have it: java.net.http over HTTPS, trusting only
 * the API server's own serving CA, authenticated by a bearer token; JSON by Jackson. Only what the
 * harness asks: /readyz, creating namespaces and ConfigMaps, listing and watching ConfigMaps.
 */
final class KubeApi {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final URI base;
    private final String token;
    private final HttpClient http;

    KubeApi(URI base, String token, Path servingCa) {
        this.base = base;
        this.token = token;
        this.http = HttpClient.newBuilder().sslContext(trusting(servingCa)).connectTimeout(Duration.ofSeconds(2))
                .version(HttpClient.Version.HTTP_1_1)
                // Daemon threads: a test that forgot a watch must not keep the fork alive.
                .executor(Executors.newCachedThreadPool(r -> {
                    Thread t = new Thread(r, "kube-api-http");
                    t.setDaemon(true);
                    return t;
                }))
                .build();
    }

    URI base() {
        return base;
    }

    private static SSLContext trusting(Path caFile) {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            trust.setCertificateEntry("kube-apiserver-ca", Pem.readCertificate(Pem.readFile(caFile, "certificate"), caFile.toString()));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot trust " + caFile + ": " + e, e);
        }
    }

    /** An answer: its HTTP status and body (JSON for the API, text for /readyz). */
    record Answer(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON (HTTP " + status + "): " + body, e);
            }
        }

        /** A failed call's Status reason and message, for a report. */
        String problem() {
            try {
                JsonNode s = JSON.readTree(body);
                return "HTTP " + status + " " + s.path("reason").asText() + ": " + s.path("message").asText();
            } catch (IOException e) {
                return "HTTP " + status + ": " + body.strip();
            }
        }
    }

    private HttpRequest.Builder request(String pathAndQuery, Duration timeout) {
        return HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(timeout).header("Authorization", "Bearer " + token)
                .header("Accept", "application/json");
    }

    Answer get(String pathAndQuery, Duration timeout) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(request(pathAndQuery, timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }

    Answer post(String path, Object body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(request(path, REQUEST_TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }

    /** /readyz's status (200 ready), or -1 when the server did not answer within {@code timeout}. */
    int readyz(Duration timeout) {
        try {
            return get("/readyz", timeout).status();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** /readyz?verbose: which checks fail, for a failure message. */
    String readyzVerbose() {
        try {
            return get("/readyz?verbose", Duration.ofSeconds(5)).body();
        } catch (IOException e) {
            return "(no answer: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    void createNamespace(String name) throws IOException, InterruptedException {
        Answer a = post("/api/v1/namespaces", Map.of("apiVersion", "v1", "kind", "Namespace", "metadata", Map.of("name", name)));
        if (a.status() != 201 && a.status() != 409) {
            throw new IOException("cannot create namespace " + name + ": " + a.problem());
        }
    }

    static String configMaps(String namespace) {
        return "/api/v1/namespaces/" + namespace + "/configmaps";
    }

    Answer createConfigMap(String namespace, String name, Map<String, String> data) throws IOException, InterruptedException {
        return post(configMaps(namespace), Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", name),
                "data", data));
    }

    /** A LIST's items (name to resourceVersion) and the list's own resourceVersion. */
    record Listing(Map<String, String> resourceVersions, String resourceVersion) {
    }

    /** Every ConfigMap of {@code namespace}, in pages of 500 as a client-go pager reads them. */
    Listing listConfigMaps(String namespace) throws IOException, InterruptedException {
        Map<String, String> items = new LinkedHashMap<>();
        String next = "";
        String listVersion;
        do {
            String query = "?limit=500" + (next.isEmpty() ? "" : "&continue=" + URLEncoder.encode(next, StandardCharsets.UTF_8));
            Answer page = get(configMaps(namespace) + query, Duration.ofSeconds(30));
            if (page.status() != 200) {
                throw new IOException("LIST " + configMaps(namespace) + ": " + page.problem());
            }
            JsonNode list = page.json();
            for (JsonNode item : list.path("items")) {
                items.put(item.path("metadata").path("name").asText(), item.path("metadata").path("resourceVersion").asText());
            }
            listVersion = list.path("metadata").path("resourceVersion").asText();
            next = list.path("metadata").path("continue").asText("");
        } while (!next.isEmpty());
        return new Listing(items, listVersion);
    }

    /** A watch's HTTP status and, when 200, its stream of JSON events, one a line; the caller closes it. */
    record WatchStream(int status, InputStream events, String body) {
    }

    /**
     * Opens {@code ?watch=1} from {@code resourceVersion}, with bookmarks, for at most
     * {@code timeoutSeconds} (the server ends it then, as it ends informers' watches).
     */
    WatchStream watchConfigMaps(String namespace, String resourceVersion, int timeoutSeconds) throws IOException, InterruptedException {
        String query = "?watch=1&allowWatchBookmarks=true&timeoutSeconds=" + timeoutSeconds + "&resourceVersion="
                + URLEncoder.encode(resourceVersion, StandardCharsets.UTF_8);
        HttpResponse<InputStream> r = http.send(request(configMaps(namespace) + query, Duration.ofSeconds(timeoutSeconds + 10))
                .GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            try (InputStream in = r.body()) {
                return new WatchStream(r.statusCode(), null, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return new WatchStream(200, r.body(), "");
    }
}
