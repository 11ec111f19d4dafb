package io.etcdwright.watch;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the watcher did, as Prometheus metrics (Prometheus' own Java client), served on
 * {@code --metrics-address} for the alert rules in monitoring/ (a watcher that stopped cycling, a
 * step held for longer than an hour) and the watcher's Grafana dashboard. Every series carries the
 * cluster's name, so one watcher of a fleet is one scrape.
 */
public final class WatchMetrics implements AutoCloseable {
    /** The conditions a cluster can be in; the current one is 1, the others 0. */
    public static final List<String> CONDITIONS = List.of("healthy", "degraded", "drifted", "held", "suspended", "failed");

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter cycles = Counter.builder().name("etcdwright_watch_cycles_total")
            .help("Watch cycles ended, by result: acted (ran steps), idle (nothing to run), error (facts or plan failed)")
            .labelNames("cluster", "result").register(registry);
    private final Counter actions = Counter.builder().name("etcdwright_watch_actions_total")
            .help("Steps the watcher ran by itself, by safety class and outcome (ok, changed, failed)")
            .labelNames("cluster", "safety", "outcome").register(registry);
    private final Gauge held = Gauge.builder().name("etcdwright_watch_held_steps")
            .help("Steps held for a person at the last cycle, by safety class")
            .labelNames("cluster", "safety").register(registry);
    private final Gauge heldSince = Gauge.builder().name("etcdwright_watch_held_since_timestamp_seconds")
            .help("Since when the oldest step held now has been held (Unix time); 0 when nothing is held")
            .labelNames("cluster").register(registry);
    private final Gauge interval = Gauge.builder().name("etcdwright_watch_interval_seconds")
            .help("The watcher's interval: from one cycle's start to the next")
            .labelNames("cluster").register(registry);
    private final Gauge lastCycle = Gauge.builder().name("etcdwright_watch_last_cycle_timestamp_seconds")
            .help("When the last cycle ended, whatever its result (Unix time)")
            .labelNames("cluster").register(registry);
    private final Gauge lastGoodCycle = Gauge.builder().name("etcdwright_watch_last_good_cycle_timestamp_seconds")
            .help("When the last cycle ended that gathered facts and planned without an error (Unix time)")
            .labelNames("cluster").register(registry);
    private final Gauge condition = Gauge.builder().name("etcdwright_watch_condition")
            .help("The cluster's condition as the watcher sees it: 1 for the current one")
            .labelNames("cluster", "condition").register(registry);
    private final Histogram detectionToRepair = Histogram.builder().name("etcdwright_watch_detection_to_repair_seconds")
            .help("From the cycle that first planned a step to the end of the run that did it, for steps the watcher ran")
            .classicUpperBounds(5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600)
            .labelNames("cluster", "safety").register(registry);
    private Optional<HTTPServer> server = Optional.empty();

    /** Serves the metrics on {@code address} at /metrics until closed. */
    public void serve(InetSocketAddress address) {
        try {
            server = Optional.of(HTTPServer.builder().inetAddress(address.getAddress()).port(address.getPort())
                    .registry(registry).buildAndStart());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + address + ": " + e.getMessage(), e);
        }
    }

    /** The port served on (an ephemeral one when asked for port 0). */
    public int port() {
        return server.orElseThrow(() -> new IllegalStateException("not serving")).getPort();
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public void cycleEnded(String cluster, String result, Instant at, boolean good, Duration every) {
        interval.labelValues(cluster).set(every.toMillis() / 1000.0);
        cycles.labelValues(cluster, result).inc();
        lastCycle.labelValues(cluster).set(seconds(at));
        if (good) {
            lastGoodCycle.labelValues(cluster).set(seconds(at));
        }
    }

    public void action(String cluster, String safety, String outcome) {
        actions.labelValues(cluster, safety, outcome).inc();
    }

    public void repaired(String cluster, String safety, Duration sinceDetected) {
        detectionToRepair.labelValues(cluster, safety).observe(sinceDetected.toMillis() / 1000.0);
    }

    /** The held steps of the last cycle: their count by class, and since when the oldest has been held. */
    public void held(String cluster, java.util.Map<String, Integer> countBySafety, Optional<Instant> oldestSince) {
        for (String safety : List.of("routine", "repair", "change", "never")) {
            held.labelValues(cluster, safety).set(countBySafety.getOrDefault(safety, 0));
        }
        heldSince.labelValues(cluster).set(oldestSince.map(WatchMetrics::seconds).orElse(0.0));
    }

    public void condition(String cluster, String current) {
        for (String c : CONDITIONS) {
            condition.labelValues(cluster, c).set(c.equals(current) ? 1 : 0);
        }
    }

    private static double seconds(Instant at) {
        return at.toEpochMilli() / 1000.0;
    }

    @Override
    public void close() {
        server.ifPresent(HTTPServer::close);
    }
}
