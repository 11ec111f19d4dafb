package io.etcdwright.cli;

import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.FleetRun;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * -i and -f of the commands that take a fleet (plan, status, certs): one spec and its inventory as
 * every command, or several clusters at once: -f given more than once, or a directory of specs
 * (every *.yaml and *.yml in it, by name), each with its inventory: one -i for all, or one -i per
 * spec in the same order (docs/fleets.md). A directory without a spec in it is refused as any file that
 * is not a spec.
 */
final class FleetOptions {
    @Option(names = {"-i", "--inventory"}, required = true, paramLabel = "INVENTORY",
            description = "Ansible-style inventory of the hosts. With several specs: once for all, or once per spec, in their order.")
    List<Path> inventories;

    @Option(names = {"-f", "--file"}, required = true, paramLabel = "SPEC",
            description = "Desired state of a cluster (YAML). More than once, or a directory of specs: a fleet, each cluster on its own.")
    List<Path> specs;

    @Option(names = "--parallel", defaultValue = "8", paramLabel = "N",
            description = "Clusters of a fleet worked on at once (default: ${DEFAULT-VALUE}); each still reaches up to --forks hosts at once.")
    int parallel;

    @Option(names = "--junit", paramLabel = "FILE",
            description = "Write a JUnit XML report: one test case per cluster, a cluster that is not as it should be a failure.")
    Path junit;

    /** A fleet: more than one spec, a directory of them, or a JUnit report asked for. */
    boolean fleet() {
        return specs.size() > 1 || specs.stream().anyMatch(s -> Files.isDirectory(s) && !specsIn(s).isEmpty()) || junit != null;
    }

    /** The only cluster, as every other command takes it. */
    InputOptions single() {
        if (inventories.size() != 1) {
            throw new IllegalArgumentException("-i is given " + inventories.size() + " times for one spec: give it once");
        }
        InputOptions input = new InputOptions();
        input.inventory = inventories.get(0);
        input.spec = specs.get(0);
        return input;
    }

    /** Every cluster of the input, in the order given (a directory's specs by name), each with its inventory. */
    List<FleetRun.Input> inputs() {
        ConnectionSettings.positive("--parallel", parallel);
        List<Path> expanded = new ArrayList<>();
        List<Integer> origin = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            Path spec = specs.get(i);
            // A directory without a spec is left to the loader, which says what it says of any file it cannot read.
            List<Path> found = Files.isDirectory(spec) ? specsIn(spec) : List.of();
            if (!found.isEmpty()) {
                for (Path f : found) {
                    expanded.add(f);
                    origin.add(i);
                }
            } else {
                expanded.add(spec);
                origin.add(i);
            }
        }
        if (inventories.size() != 1 && inventories.size() != specs.size()) {
            throw new IllegalArgumentException("-i is given " + inventories.size() + " times for " + specs.size()
                    + " -f: give one inventory for every spec, or one for each -f in the same order");
        }
        List<FleetRun.Input> inputs = new ArrayList<>();
        for (int i = 0; i < expanded.size(); i++) {
            inputs.add(new FleetRun.Input(expanded.get(i), inventories.get(inventories.size() == 1 ? 0 : origin.get(i))));
        }
        return inputs;
    }

    private static List<Path> specsIn(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> Files.isRegularFile(f) && !f.getFileName().toString().startsWith("."))
                    .filter(f -> f.getFileName().toString().endsWith(".yaml") || f.getFileName().toString().endsWith(".yml"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
