package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Follows a namespace's ConfigMaps as an informer's reflector does: LIST, then WATCH from the
 * list's resourceVersion (with bookmarks), WATCH again from the last resourceVersion seen whenever
 * the server ends the stream (its timeoutSeconds, or its watch cache starting over after etcd went
 * away), and LIST again on 410 Gone (the version is compacted or fell out of the watch cache). What
 * a relist brings that no event did is counted on its own: an informer's cache has it, but its
 * handlers saw no ADDED for it from the watch.
 *
 * <p>ResourceVersions are opaque to clients in general; with kube-apiserver's etcd3 storage they
 * are etcd revisions, and the harness is about etcd: so events are checked to arrive in increasing
 * revision order, each name ADDED once.
 */
final class ConfigMapWatch {
    /** The server ends each watch after this, as it ends informers' (theirs last 5 to 10 minutes): a stop waits at most this long. */
    static final int WATCH_SECONDS = 5;
    private static final long BACKOFF_MILLIS = 200;

    /**
     * What it saw: each name with the resourceVersion it was first seen at, those it learnt from a
     * relist only, how often it watched, relisted and why, and what should not have happened.
     */
    record Seen(Map<String, String> names, Set<String> byRelistOnly, int watches, int relists, int gone, int tooManyRequests,
                int errors, List<String> problems) {
        @Override
        public String toString() {
            return String.format("%d ConfigMaps seen (%d only through a relist), %d watches, %d relists (%d after 410 Gone),"
                            + " %d answers 429, %d errors; problems: %s", names.size(), byRelistOnly.size(), watches, relists,
                    gone, tooManyRequests, errors, problems.isEmpty() ? "none" : problems.stream().limit(5).toList());
        }
    }

    private final KubeApi api;
    private final String namespace;
    private final Thread thread;
    private final Map<String, String> names = new HashMap<>();
    private final Set<String> byRelistOnly = new HashSet<>();
    private final List<String> problems = new ArrayList<>();
    private volatile boolean stopping;
    private volatile InputStream current;
    private int watches;
    private int relists = -1;   // the first LIST is a list, not a relist
    private int gone;
    private int tooManyRequests;
    private int errors;
    private long lastRevision;

    private ConfigMapWatch(KubeApi api, String namespace) {
        this.api = api;
        this.namespace = namespace;
        this.thread = new Thread(this::follow, "configmap-watch-" + namespace);
        thread.setDaemon(true);
    }

    static ConfigMapWatch start(KubeApi api, String namespace) {
        ConfigMapWatch watch = new ConfigMapWatch(api, namespace);
        watch.thread.start();
        return watch;
    }

    private void follow() {
        String from = null;
        while (!stopping) {
            try {
                if (from == null) {
                    from = relist();
                    continue;
                }
                KubeApi.WatchStream w = api.watchConfigMaps(namespace, from, WATCH_SECONDS);
                if (w.status() == 410) {
                    counted(() -> gone++);
                    from = null;
                    continue;
                }
                if (w.status() == 429) {
                    // The watch cache is (re)initializing after etcd came back: as client-go, wait and ask again.
                    counted(() -> tooManyRequests++);
                    pause(1000);
                    continue;
                }
                if (w.status() != 200) {
                    counted(() -> errors++);
                    pause(BACKOFF_MILLIS);
                    continue;
                }
                counted(() -> watches++);
                from = events(w.events(), from);
            } catch (IOException e) {
                counted(() -> errors++);
                pause(BACKOFF_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** LISTs, taking every name not seen yet; returns the list's resourceVersion to watch from. */
    private String relist() throws IOException, InterruptedException {
        KubeApi.Listing listing = api.listConfigMaps(namespace);
        synchronized (this) {
            relists++;
            for (Map.Entry<String, String> item : listing.resourceVersions().entrySet()) {
                if (names.putIfAbsent(item.getKey(), item.getValue()) == null && relists > 0) {
                    byRelistOnly.add(item.getKey());
                }
            }
        }
        return listing.resourceVersion();
    }

    /** Reads one watch's events; returns the resourceVersion to go on from, or null to relist. */
    private String events(InputStream stream, String from) throws IOException {
        current = stream;
        String at = from;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            for (String line; !stopping && (line = lines.readLine()) != null; ) {
                JsonNode event = KubeApi.JSON.readTree(line);
                String type = event.path("type").asText();
                JsonNode object = event.path("object");
                if (type.equals("ERROR")) {
                    if (object.path("code").asInt() == 410) {
                        counted(() -> gone++);
                        return null;
                    }
                    counted(() -> errors++);
                    return at;
                }
                at = object.path("metadata").path("resourceVersion").asText();
                if (!type.equals("BOOKMARK")) {
                    seen(type, object.path("metadata").path("name").asText(), at);
                }
            }
        } catch (IOException e) {
            if (!stopping) {
                throw e;
            }
        } finally {
            current = null;
        }
        return at;
    }

    private synchronized void seen(String type, String name, String resourceVersion) {
        long revision = Long.parseLong(resourceVersion);
        if (revision <= lastRevision) {
            problems.add(type + " " + name + " at resourceVersion " + revision + " after " + lastRevision);
        }
        lastRevision = Math.max(lastRevision, revision);
        if (!type.equals("ADDED")) {
            problems.add(type + " " + name + " at resourceVersion " + revision + ": nothing modifies or deletes the load's ConfigMaps");
        } else if (names.putIfAbsent(name, resourceVersion) != null) {
            problems.add("ADDED " + name + " again at resourceVersion " + revision + " (first at " + names.get(name) + ")");
        }
    }

    /** Waits until it has seen every one of {@code expected}; returns whether it did within {@code within}. */
    boolean awaitAll(Collection<String> expected, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            synchronized (this) {
                if (names.keySet().containsAll(expected)) {
                    return true;
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Stops following (at the latest when the server ends the current watch) and returns what it saw. */
    Seen stop() {
        stopping = true;
        InputStream open = current;
        if (open != null) {
            try {
                open.close();
            } catch (IOException e) {
                // Closing is only a way to end the read sooner; the server ends the watch anyway.
            }
        }
        try {
            thread.join((WATCH_SECONDS + 10) * 1000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            List<String> all = new ArrayList<>(problems);
            if (thread.isAlive()) {
                all.add("the watch did not stop within " + (WATCH_SECONDS + 10) + " s");
            }
            return new Seen(Map.copyOf(names), Set.copyOf(byRelistOnly), watches, Math.max(0, relists), gone, tooManyRequests, errors,
                    List.copyOf(all));
        }
    }

    private synchronized void counted(Runnable count) {
        count.run();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();   // the next request ends the loop
        }
    }
}
