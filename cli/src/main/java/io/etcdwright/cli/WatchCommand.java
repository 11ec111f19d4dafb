package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.run.FleetRun;
import io.etcdwright.run.PlanSettings;
import io.etcdwright.watch.ClusterCondition;
import io.etcdwright.watch.EventLog;
import io.etcdwright.watch.Suspension;
import io.etcdwright.watch.Suspensions;
import io.etcdwright.watch.WatchMetrics;
import io.etcdwright.watch.WatchSettings;
import io.etcdwright.watch.Watcher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "watch", description = {"Keep clusters as their specs say, by themselves where that is safe, and hold the rest for a person.",
        "Every --interval: facts, the plan 'etcdwright plan' shows, then only the steps the spec's automation section lets run",
        "unattended (by default routine ones and repairs); every other step is held, with why and the command a person runs.",
        "A cycle that acts holds the cluster's lock, as apply does. docs/automation.md."},
        subcommands = {WatchCommand.Status.class, WatchCommand.Suspend.class, WatchCommand.Resume.class})
final class WatchCommand implements Callable<Integer> {
    // Not FleetOptions' required -i/-f: picocli would ask for them before 'watch suspend' too.
    @Option(names = {"-i", "--inventory"}, paramLabel = "INVENTORY",
            description = "Ansible-style inventory of the hosts. With several specs: once for all, or once per spec, in their order.")
    List<Path> inventories;

    @Option(names = {"-f", "--file"}, paramLabel = "SPEC",
            description = "Desired state of a cluster (YAML). More than once, or a directory of specs: a fleet, each watched on its own.")
    List<Path> specs;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    WaitOptions waits;

    @Option(names = "--interval", paramLabel = "SECONDS",
            description = "Seconds from one cycle's start to the next (default: the spec's automation.interval, else 30; at least 5).")
    Integer intervalSeconds;

    @Option(names = "--once", description = "One cycle of every cluster, then exit: 0 when every cluster ended healthy or"
            + " held nothing, 2 when a step is held or a cluster is degraded, 1 when a cycle failed.")
    boolean once;

    @Option(names = "--event-log", paramLabel = "FILE",
            description = "Append one JSON line per action and per newly held step to FILE (docs/automation.md).")
    Path eventLog;

    @Option(names = "--metrics-address", paramLabel = "HOST:PORT",
            description = "Serve the watcher's Prometheus metrics at http://HOST:PORT/metrics.")
    String metricsAddress;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        if (inventories == null || specs == null) {
            throw new IllegalArgumentException("watch needs -i INVENTORY and -f SPEC (or a 'watch suspend' or 'watch resume')");
        }
        FleetOptions fleet = new FleetOptions();
        fleet.inventories = inventories;
        fleet.specs = specs;
        fleet.parallel = 1;
        List<FleetRun.Input> inputs = fleet.inputs();
        // Every input is read and checked before the first host is contacted: a bad spec is exit 1 at once.
        Duration interval = null;
        for (FleetRun.Input input : inputs) {
            DesiredState desired = DesiredStateLoader.load(input.inventory(), input.spec());
            Duration fromSpec = desired.spec().automation().interval();
            interval = interval == null || fromSpec.compareTo(interval) < 0 ? fromSpec : interval;
        }
        if (intervalSeconds != null) {
            interval = Duration.ofSeconds(intervalSeconds);
        }
        Optional<InetSocketAddress> metricsAt = metricsAddress == null ? Optional.empty() : Optional.of(address(metricsAddress));
        // Unattended: a safety snapshot before risky steps, never downtime.
        WatchSettings settings = new WatchSettings(interval, connection.settings(), new PlanSettings(true, false, waits.timeouts()));
        List<Watcher.Target> targets = inputs.stream().map(i -> new Watcher.Target(i.inventory(), i.spec())).toList();
        try (EventLog events = eventLog == null ? EventLog.none() : EventLog.appendingTo(eventLog);
             WatchMetrics metrics = new WatchMetrics()) {
            metricsAt.ifPresent(a -> {
                metrics.serve(a);
                out.println("Metrics: http://" + a.getHostString() + ":" + metrics.port() + "/metrics");
            });
            Watcher watcher = new Watcher(targets, settings, events, metrics, Clock.systemUTC(), line -> {
                synchronized (out) {
                    out.println(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + " " + line);
                    out.flush();
                }
            });
            if (once) {
                Map<String, ClusterCondition> conditions = watcher.cycle();
                if (conditions.values().stream().anyMatch(c -> c instanceof ClusterCondition.Failed)) {
                    return Main.ERROR;
                }
                return conditions.values().stream().allMatch(c -> c instanceof ClusterCondition.Healthy) ? Main.OK : Main.CHANGES;
            }
            out.println("Watching " + targets.size() + (targets.size() == 1 ? " cluster" : " clusters") + " every "
                    + settings.interval().toSeconds() + " s; stop with Ctrl-C (or systemctl stop).");
            Thread loop = Thread.currentThread();
            Runtime.getRuntime().addShutdownHook(new Thread(loop::interrupt, "watch-stop"));
            try {
                watcher.run();
            } catch (InterruptedException e) {
                out.println("Stopped.");
            }
            return Main.OK;
        }
    }

    static InetSocketAddress address(String value) {
        int colon = value.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--metrics-address must be HOST:PORT (for instance 127.0.0.1:9479), got '" + value + "'");
        }
        String host = value.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--metrics-address: the port must be a number, got '" + value.substring(colon + 1) + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--metrics-address: the port must be 0 to 65535, got " + port);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host.isEmpty() ? "0.0.0.0" : host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--metrics-address: unknown host '" + host + "'");
        }
    }

    @Command(name = "status", description = {"Show what the watchers would do now: each cluster's condition, and every held step with why and the command to run.",
            "Plans as a cycle does and decides as its policy does, but runs nothing, logs nothing and remembers nothing.",
            "Exit 0 when every cluster is healthy, 2 when a step is held or waits, 1 on an error."})
    static final class Status implements Callable<Integer> {
        @Mixin
        InputOptions input;

        @Mixin
        ConnectionOptions connection;

        @Mixin
        WaitOptions waits;

        @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
        OutputFormat output;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
            WatchSettings settings = new WatchSettings(desired.spec().automation().interval(), connection.settings(),
                    new PlanSettings(true, false, waits.timeouts()));
            Watcher watcher = new Watcher(List.of(new Watcher.Target(input.inventory, input.spec)), settings, EventLog.none(),
                    new WatchMetrics(), Clock.systemUTC(), line -> { });
            Map<String, io.etcdwright.watch.Decision> decisions = watcher.observe();
            PrintWriter out = spec.commandLine().getOut();
            boolean healthy = true;
            List<Map<String, Object>> clusters = new java.util.ArrayList<>();
            for (Map.Entry<String, io.etcdwright.watch.Decision> e : decisions.entrySet()) {
                io.etcdwright.watch.Decision d = e.getValue();
                healthy &= d.condition() instanceof ClusterCondition.Healthy;
                if (output == OutputFormat.json) {
                    Map<String, Object> c = new java.util.LinkedHashMap<>();
                    c.put("cluster", e.getKey());
                    c.put("condition", d.condition().name());
                    c.put("detail", Watcher.describe(d.condition()));
                    c.put("runs_next", d.run().stream().map(io.etcdwright.engine.plan.Step::id).toList());
                    c.put("held", d.held().stream().map(h -> {
                        Map<String, Object> m = new java.util.LinkedHashMap<>();
                        m.put("safety", h.safety().label());
                        m.put("steps", h.steps().stream().map(io.etcdwright.engine.plan.Step::id).toList());
                        m.put("kind", h.why().kind());
                        m.put("reason", h.why().reason());
                        m.put("command", h.why().command());
                        return m;
                    }).toList());
                    clusters.add(c);
                } else {
                    out.println("cluster " + e.getKey() + ": " + Watcher.describe(d.condition()));
                    d.run().forEach(s -> out.println("  next cycle runs [" + s.safety().label() + "] " + s.id() + ": " + s.line()));
                    for (io.etcdwright.watch.Decision.Held h : d.held()) {
                        out.println("  held [" + h.safety().label() + "] " + (h.steps().isEmpty() ? "the plan"
                                : h.steps().stream().map(io.etcdwright.engine.plan.Step::id).collect(java.util.stream.Collectors.joining(", "))));
                        out.println("      why: " + h.why().reason());
                        out.println("      run: " + h.why().command());
                    }
                }
            }
            if (output == OutputFormat.json) {
                Map<String, Object> doc = new java.util.LinkedHashMap<>();
                doc.put("version", 1);
                doc.put("clusters", clusters);
                out.println(io.etcdwright.engine.output.Json.write(doc));
            }
            return healthy ? Main.OK : Main.CHANGES;
        }
    }

    @Command(name = "suspend", description = {"Hold every step of the cluster's watchers, routine ones included, until resume.",
            "Recorded in the cluster's own etcd (who, when, why), where every watcher and 'status' reads it."})
    static final class Suspend implements Callable<Integer> {
        @Mixin
        InputOptions input;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the next person (shown by status and watch).")
        String reason;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
            Suspension suspension = new Suspension(who(), Instant.now(), reason == null ? "" : reason);
            Suspensions.suspend(desired, suspension);
            spec.commandLine().getOut().println("Cluster " + desired.spec().name() + ": " + suspension.describe(Instant.now())
                    + ". Watchers hold every step until 'etcdwright watch resume -i " + input.inventory + " -f " + input.spec + "'.");
            return Main.OK;
        }
    }

    @Command(name = "resume", description = "Let the cluster's watchers act again, as the spec's automation section allows.")
    static final class Resume implements Callable<Integer> {
        @Mixin
        InputOptions input;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
            boolean was = Suspensions.resume(desired);
            spec.commandLine().getOut().println("Cluster " + desired.spec().name() + ": " + (was
                    ? "resumed; its watchers act again at their next cycle."
                    : "was not suspended; nothing changed."));
            return Main.OK;
        }
    }

    /** user@host, as the cluster's lock names its holder. */
    private static String who() {
        io.etcdwright.modules.lock.LockHolder me = io.etcdwright.modules.lock.LockHolder.thisProcess("watch suspend", Instant.now());
        return me.user() + "@" + me.host();
    }
}
