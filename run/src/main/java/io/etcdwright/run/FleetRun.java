package io.etcdwright.run;

import io.etcdwright.engine.exec.Parallel;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.inventory.InventoryLoader;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.YamlDocument;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Several clusters in one run (docs/fleets.md): each cluster goes the single-cluster way (its own
 * {@link ClusterRun}: its own connections, facts, refusals), up to {@code parallel} at once. Input is
 * checked first, every spec: one that is not usable comes back as such and the others still run;
 * two specs naming the same cluster, or one host in two clusters, refuse the whole run before any
 * host is contacted (their runs would take each other's locks and hosts). What each cluster's work
 * returns is the caller's; so is how the fleet is reported.
 */
public final class FleetRun {
    /** One cluster of the input: its spec and the inventory it is read with. */
    public record Input(Path spec, Path inventory) {
    }

    /** The work on one cluster whose input is usable. */
    public interface Work<T> {
        T run(DesiredState desired) throws Exception;
    }

    /** What came of one cluster. */
    public sealed interface Ran<T> {
        /** The work returned {@code value}. */
        record Done<T>(T value) implements Ran<T> {
        }

        /** The input was not usable when it was read: no host of it was contacted. */
        record Unusable<T>(InvalidInputException problem) implements Ran<T> {
        }

        /** The work threw {@code error} (bad input found later among them). */
        record Failed<T>(Exception error) implements Ran<T> {
        }
    }

    /** One cluster of the fleet: its input, its name when the spec could be read, what came of it and how long its work took. */
    public record Result<T>(Input input, Optional<String> cluster, Ran<T> ran, double seconds) {
    }

    private FleetRun() {
    }

    /**
     * Runs {@code work} on every usable cluster of {@code inputs}, up to {@code parallel} at once,
     * and returns each one's result in the order of the inputs.
     *
     * @throws InvalidInputException when two specs name one cluster or one host is in two clusters
     *                               (with every input's problems), before any host is contacted
     */
    public static <T> List<Result<T>> run(List<Input> inputs, int parallel, Work<T> work) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallel, Math.max(1, inputs.size())), r -> {
            Thread t = new Thread(r, "etcdwright-fleet");
            t.setDaemon(true);
            return t;
        });
        List<Future<Result<T>>> running = new ArrayList<>();
        try {
            // Per input, by its index: the desired state, or (when the input is not usable) its result.
            List<Future<DesiredState>> loads = loadAll(inputs, pool);
            List<Optional<DesiredState>> loaded = new ArrayList<>();
            List<Optional<Result<T>>> invalid = new ArrayList<>();
            List<Problem> allProblems = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                try {
                    loaded.add(Optional.of(Parallel.await(loads.get(i))));
                    invalid.add(Optional.empty());
                } catch (InvalidInputException e) {
                    loaded.add(Optional.empty());
                    allProblems.addAll(e.problems());
                    invalid.add(Optional.of(new Result<>(inputs.get(i), Optional.empty(), new Ran.Unusable<>(e), 0)));
                }
            }
            List<Problem> conflicts = conflicts(inputs, loaded);
            if (!conflicts.isEmpty()) {
                allProblems.addAll(conflicts);
                throw new InvalidInputException(allProblems.stream().distinct().toList());
            }
            for (int i = 0; i < inputs.size(); i++) {
                Input input = inputs.get(i);
                Optional<DesiredState> desired = loaded.get(i);
                if (desired.isEmpty()) {
                    running.add(CompletableFuture.completedFuture(invalid.get(i).orElseThrow()));
                } else {
                    running.add(pool.submit(() -> runOne(input, desired.get(), work)));
                }
            }
            List<Result<T>> results = new ArrayList<>();
            for (Future<Result<T>> f : running) {
                results.add(f.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Every input read and checked, nothing contacted, for a run that takes all of them or none (a
     * rollout): each cluster's desired state in the order of the inputs.
     *
     * @throws InvalidInputException with every input's problems, when any input is not usable, two
     *                               specs name one cluster or one host is in two clusters
     */
    public static List<DesiredState> loadEvery(List<Input> inputs, int parallel) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallel, Math.max(1, inputs.size())), r -> {
            Thread t = new Thread(r, "etcdwright-fleet");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<DesiredState>> loads = loadAll(inputs, pool);
            List<Optional<DesiredState>> loaded = new ArrayList<>();
            List<Problem> problems = new ArrayList<>();
            for (Future<DesiredState> load : loads) {
                try {
                    loaded.add(Optional.of(Parallel.await(load)));
                } catch (InvalidInputException e) {
                    loaded.add(Optional.empty());
                    problems.addAll(e.problems());
                }
            }
            problems.addAll(conflicts(inputs, loaded));
            if (!problems.isEmpty()) {
                throw new InvalidInputException(problems.stream().distinct().toList());
            }
            return loaded.stream().map(Optional::orElseThrow).toList();
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Every input read and checked, before any host is contacted, on the fleet's threads: each
     * inventory once however many specs name it (a fleet's specs often share one, which was read
     * and checked again for each), each spec on its own.
     */
    private static List<Future<DesiredState>> loadAll(List<Input> inputs, ExecutorService pool) {
        Map<Path, Future<InventoryLoader.Outcome>> inventories = new LinkedHashMap<>();
        List<Future<DesiredState>> loads = new ArrayList<>();
        for (Input input : inputs) {
            Future<InventoryLoader.Outcome> inventory = inventories.computeIfAbsent(input.inventory(),
                    path -> pool.submit(() -> InventoryLoader.read(path)));
            loads.add(pool.submit(() -> DesiredStateLoader.load(Parallel.await(inventory), input.spec())));
        }
        return loads;
    }

    private static <T> Result<T> runOne(Input input, DesiredState desired, Work<T> work) {
        long started = System.nanoTime();
        Ran<T> ran;
        try {
            ran = new Ran.Done<>(work.run(desired));
        } catch (Exception e) {
            ran = new Ran.Failed<>(e);
        }
        return new Result<>(input, Optional.of(desired.spec().name()), ran, (System.nanoTime() - started) / 1e9);
    }

    /**
     * Two specs for one cluster (its lock, PKI and state are by name), and one host in two clusters
     * (by its SSH address and port, whatever each inventory calls it), each at the second spec's
     * place for it.
     */
    public static List<Problem> conflicts(List<Input> inputs, List<Optional<DesiredState>> loaded) {
        List<Problem> problems = new ArrayList<>();
        Map<String, Integer> names = new LinkedHashMap<>();
        Map<String, Integer> hostOwner = new LinkedHashMap<>();
        Map<String, String> hostName = new LinkedHashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            if (loaded.get(i).isEmpty()) {
                continue;
            }
            DesiredState d = loaded.get(i).get();
            Path spec = inputs.get(i).spec();
            Integer first = names.putIfAbsent(d.spec().name(), i);
            if (first != null) {
                problems.add(Problem.error(locate(spec, FieldPath.of("cluster", "name")), "cluster.name", "cluster " + d.spec().name()
                        + " is also the cluster of " + inputs.get(first).spec() + ": one cluster has one spec in a fleet"
                        + " (its lock, certificates and state go by its name)"));
            }
            for (Member m : d.members()) {
                InventoryHost h = m.host();
                String key = h.address() + ":" + h.port();
                Integer owner = hostOwner.putIfAbsent(key, i);
                if (owner != null && owner != i) {
                    DesiredState other = loaded.get(owner).get();
                    problems.add(Problem.error(memberLocation(spec, d, h.name()), "members", "host " + h.name() + " ("
                            + key + ") is also host " + hostName.get(key) + " of cluster " + other.spec().name() + " in "
                            + inputs.get(owner).spec() + ": a host runs one member of one cluster"));
                } else {
                    hostName.putIfAbsent(key, h.name());
                }
            }
        }
        return problems;
    }

    private static Location locate(Path spec, FieldPath path) {
        try {
            YamlDocument doc = YamlDocument.load(spec);
            return doc.contains(path) ? doc.locationOf(path) : Location.ofFile(spec);
        } catch (RuntimeException e) {
            return Location.ofFile(spec);
        }
    }

    /** Where the spec names {@code host}: its item of members.hosts, else members.group, else the file. */
    private static Location memberLocation(Path spec, DesiredState d, String host) {
        List<String> listed = d.spec().members().hosts();
        int at = listed.indexOf(host);
        if (at >= 0) {
            return locate(spec, FieldPath.of("members", "hosts").index(at));
        }
        return locate(spec, FieldPath.of("members", "group"));
    }

}
