package io.etcdwright.it;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link WriteLoad} one level up: writers create ConfigMaps (each name once) through a real
 * kube-apiserver's REST API while an operation runs on its etcd, and log every create the API
 * server acknowledged (201 Created: name, resourceVersion, when). Beside them a {@link ConfigMapWatch}
 * follows the namespace as an informer does, and a {@link Readiness} poller times /readyz.
 * {@link #stop} then proves what a cluster's users rely on: every acknowledged create is there
 * afterwards at the resourceVersion it was acknowledged at (a LIST through the API server and,
 * given etcd, each key read from etcd itself), the watch saw each of them, and how long no create
 * was acknowledged (the longest stall) and /readyz failed.
 *
 * <p>A create that failed or timed out is not acknowledged: it may or may not have been stored, so
 * it proves nothing and is only counted (and reported if found stored). A 409 AlreadyExists for a
 * name used once is impossible unless a create was applied twice.
 */
final class ConfigMapLoad implements AutoCloseable {
    /** As {@link WriteLoad#TEST_PACE}: each writer starts a create at most this often. */
    static final Duration PACE = WriteLoad.TEST_PACE;
    /** How long the watch may take, once the writers stop, to deliver what they were acknowledged. */
    private static final Duration WATCH_CATCH_UP = Duration.ofSeconds(15);

    /** One create kube-apiserver acknowledged (201): the name, its resourceVersion (etcd's revision), when (ms since start). */
    record Ack(String name, String resourceVersion, long atMillis) {
    }

    /** One create that was not acknowledged: the name tried, what came back, when. */
    record Failure(String name, String what, long atMillis) {
    }

    /**
     * The verdict. {@code missingOrChanged}: acknowledged creates not found, or found at another
     * resourceVersion, through the API server's LIST ({@code "list NAME"}) and in etcd
     * ({@code "etcd NAME"}, when it was asked); {@code storedUnacknowledged}: names stored whose
     * create failed (their outcome was unknown: no loss, no fault); {@code watchMissed}:
     * acknowledged creates the watch never saw, neither as an event nor in a relist.
     */
    record Report(String namespace, List<Ack> acks, List<Failure> failures, int duplicateCreates, long ranMillis,
                  Map<String, String> missingOrChanged, List<String> storedUnacknowledged, boolean checkedInEtcd,
                  ConfigMapWatch.Seen watch, List<String> watchMissed, Readiness.Seen readiness, Path log) {
        boolean lostNothing() {
            return missingOrChanged.isEmpty() && duplicateCreates == 0;
        }

        boolean watchSawEveryAck() {
            return watchMissed.isEmpty() && watch.problems().isEmpty();
        }

        /**
         * Each writer's creates were acknowledged one after another, so at increasing etcd revisions:
         * a recorded resourceVersion out of order is a harness (or a storage) fault.
         */
        boolean resourceVersionsIncreasePerWriter() {
            Map<String, Long> lastByWriter = new java.util.HashMap<>();
            for (Ack ack : acks.stream().sorted(java.util.Comparator.comparing(Ack::name)).toList()) {
                String writer = ack.name().substring(0, ack.name().lastIndexOf('-'));
                long revision = Long.parseLong(ack.resourceVersion());
                Long previous = lastByWriter.put(writer, revision);
                if (previous != null && previous >= revision) {
                    return false;
                }
            }
            return true;
        }

        long longestStallMillis() {
            return longestStall()[1];
        }

        long longestStallFromMillis() {
            return longestStall()[0];
        }

        /** As {@link WriteLoad.Acks#longestStallMillis}: from the first acknowledgement to the stop. */
        private long[] longestStall() {
            return WriteLoad.longestStall(acks.stream().map(Ack::atMillis).toList(), ranMillis);
        }

        @Override
        public String toString() {
            return String.format("ConfigMap load in %s: %d acknowledged, %d failed or timed out (%d of them stored), duplicate"
                            + " creates %d, in %.1f s; longest stall %d ms (from %d ms); acknowledged but missing or changed%s: %s;"
                            + " watch: %s; acknowledged, never seen by the watch: %s; %s; failures: %s; log %s",
                    namespace, acks.size(), failures.size(), storedUnacknowledged.size(), duplicateCreates, ranMillis / 1000.0,
                    longestStallMillis(), longestStallFromMillis(), checkedInEtcd ? " (LIST and etcd)" : " (LIST)",
                    missingOrChanged.isEmpty() ? "none" : missingOrChanged.entrySet().stream().limit(5).toList(), watch,
                    watchMissed.isEmpty() ? "none" : watchMissed.size() + " " + watchMissed.stream().limit(5).toList(), readiness,
                    failureSummary(), log);
        }

        /** The failures by what came back, counted. */
        String failureSummary() {
            Map<String, Integer> byWhat = new LinkedHashMap<>();
            failures.forEach(f -> byWhat.merge(f.what().replaceAll("\\d{2,}", "N"), 1, Integer::sum));
            return byWhat.isEmpty() ? "none" : byWhat.toString();
        }
    }

    private final KubeApi api;
    private final String namespace;
    private final String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private final List<Thread> writers = new ArrayList<>();
    private final List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
    private final List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger duplicates = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final long startedNanos = System.nanoTime();
    private final BufferedWriter log;
    private final Path logFile;
    private final ConfigMapWatch watch;
    private final Readiness readiness;
    private Report stopped;

    private ConfigMapLoad(KubeApi api, String namespace, Path logFile) throws IOException {
        this.api = api;
        this.namespace = namespace;
        this.logFile = logFile;
        Files.createDirectories(logFile.getParent());
        this.log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
        this.watch = ConfigMapWatch.start(api, namespace);
        this.readiness = Readiness.start(api);
    }

    /**
     * Creates {@code namespace} (if need be), then starts the watch, the /readyz poller and
     * {@code writerCount} writers, logging acknowledgements to {@code logFile} ("name resourceVersion ms").
     */
    static ConfigMapLoad start(KubeApi api, String namespace, int writerCount, Path logFile) throws IOException, InterruptedException {
        api.createNamespace(namespace);
        ConfigMapLoad load = new ConfigMapLoad(api, namespace, logFile);
        for (int w = 0; w < writerCount; w++) {
            int writer = w;
            Thread thread = new Thread(() -> load.write(writer), "configmap-load-" + w);
            thread.setDaemon(true);
            load.writers.add(thread);
            thread.start();
        }
        return load;
    }

    private void write(int writer) {
        long nextStart = System.nanoTime();
        for (long seq = 0; !stopping.get(); seq++) {
            String name = "load-" + run + "-w" + writer + "-" + String.format("%07d", seq);
            long wait = nextStart - System.nanoTime();
            if (wait > 0) {
                sleep(TimeUnit.NANOSECONDS.toMillis(wait));
            }
            nextStart = Math.max(nextStart + PACE.toNanos(), System.nanoTime());
            try {
                KubeApi.Answer created = api.createConfigMap(namespace, name, Map.of("writer", Integer.toString(writer),
                        "seq", Long.toString(seq)));
                if (created.status() == 201) {
                    Ack ack = new Ack(name, created.json().path("metadata").path("resourceVersion").asText(), millisSinceStart());
                    acks.add(ack);
                    synchronized (log) {
                        log.write(ack.name() + " " + ack.resourceVersion() + " " + ack.atMillis() + "\n");
                    }
                } else if (created.status() == 409) {
                    duplicates.incrementAndGet();
                } else {
                    failures.add(new Failure(name, created.problem(), millisSinceStart()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException e) {
                // Unknown outcome (a timeout, the connection reset): not acknowledged.
                failures.add(new Failure(name, e.getClass().getSimpleName(), millisSinceStart()));
                sleep(20);
            }
        }
    }

    int acknowledged() {
        return acks.size();
    }

    /** Waits until at least {@code count} creates more than now were acknowledged (the load is really running). */
    void awaitMore(int count, Duration within) {
        int target = acks.size() + count;
        long deadline = System.nanoTime() + within.toNanos();
        while (acks.size() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the ConfigMap load got " + acks.size() + " acknowledgements, expected " + target + " within "
                        + within + " (" + failures.size() + " creates failed: " + failures.subList(Math.max(0, failures.size() - 3),
                        failures.size()) + "); log " + logFile);
            }
            sleep(20);
        }
    }

    /** Stops the writers, then checks through the API server alone. */
    Report stop() {
        return stop(Optional.empty());
    }

    /** Stops the writers, then checks through the API server and in {@code etcd}, key by key. */
    Report stop(EtcdConfigMaps etcd) {
        return stop(Optional.of(etcd));
    }

    private Report stop(Optional<EtcdConfigMaps> etcd) {
        if (stopped != null) {
            return stopped;
        }
        long ran = haltWriters();
        List<Ack> acked = List.copyOf(acks);
        watch.awaitAll(acked.stream().map(Ack::name).toList(), WATCH_CATCH_UP);
        ConfigMapWatch.Seen seen = watch.stop();
        Readiness.Seen ready = readiness.stop();
        Map<String, String> stored = listed();
        Map<String, String> problems = new LinkedHashMap<>(problems("list", acked, stored));
        etcd.ifPresent(e -> problems.putAll(problems("etcd", acked, e.resourceVersions(namespace))));
        java.util.Set<String> ackedNames = new java.util.HashSet<>(acked.stream().map(Ack::name).toList());
        List<String> storedUnacknowledged = failures.stream().map(Failure::name).filter(stored::containsKey)
                .filter(n -> !ackedNames.contains(n)).toList();
        List<String> missed = acked.stream().map(Ack::name).filter(n -> !seen.names().containsKey(n)).toList();
        stopped = new Report(namespace, acked, List.copyOf(failures), duplicates.get(), ran, problems, storedUnacknowledged,
                etcd.isPresent(), seen, missed, ready, logFile);
        return stopped;
    }

    /** Stops the writers (each create under way ends within its request timeout); returns how long they ran. */
    private long haltWriters() {
        stopping.set(true);
        for (Thread writer : writers) {
            try {
                writer.join(TimeUnit.SECONDS.toMillis(25));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long ran = millisSinceStart();
        try {
            synchronized (log) {
                log.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ran;
    }

    private Map<String, String> listed() {
        try {
            return api.listConfigMaps(namespace).resourceVersions();
        } catch (IOException e) {
            throw new AssertionError("cannot LIST the load's ConfigMaps: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Every acknowledged create checked in {@code stored} (name to resourceVersion, as {@code where}
     * holds them): missing, or at another resourceVersion than it was acknowledged at.
     */
    static Map<String, String> problems(String where, List<Ack> acked, Map<String, String> stored) {
        Map<String, String> problems = new LinkedHashMap<>();
        for (Ack ack : acked) {
            String at = stored.get(ack.name());
            if (at == null) {
                problems.put(where + " " + ack.name(), "missing, acknowledged at resourceVersion " + ack.resourceVersion());
            } else if (!at.equals(ack.resourceVersion())) {
                problems.put(where + " " + ack.name(), "at resourceVersion " + at + ", acknowledged at " + ack.resourceVersion());
            }
        }
        return problems;
    }

    private long millisSinceStart() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    /** Never leaves a thread behind a failed test; checks nothing. */
    @Override
    public void close() {
        if (stopped == null) {
            if (!stopping.get()) {
                haltWriters();
            }
            watch.stop();
            readiness.stop();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
