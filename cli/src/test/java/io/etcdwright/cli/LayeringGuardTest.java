package io.etcdwright.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the layers of docs/ARCHITECTURE.md pointing one way as the code grows: engine -> modules
 * -> run -> watch | rollout -> cli (watch: the automation policy and, on it, the loop; rollout: waves of
 * clusters; the two side by side, neither importing the other). No layer imports one to its right, and the command line neither plans nor applies
 * by itself: every planner, its inputs and the executor are reached through the run service, so a
 * watch loop or a rollout beside it does exactly what a command does.
 */
class LayeringGuardTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> LAYERS = List.of("engine", "modules", "run", "watch", "rollout", "cli");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?io\\.etcdwright\\.(\\w+)\\.");
    /** What only the run service may do: call a planner, build its inputs, run the executor. */
    private static final Pattern PLANS_OR_APPLIES = Pattern.compile(
            "\\b\\w+Planner\\.plan\\(|new \\w+Planner\\.Inputs\\(|new Executor\\(|new FactGatherer\\(");

    @Test
    void noLayerImportsALayerAboveIt() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (int i = 0; i < LAYERS.size(); i++) {
            for (Path f : sources(LAYERS.get(i))) {
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    int imported = LAYERS.indexOf(m.group(1));
                    if (imported > i) {
                        offenders.add(ROOT.relativize(f) + " imports io.etcdwright." + m.group(1));
                    }
                }
            }
        }
        assertEquals(List.of(), offenders, "a layer imports one above it (engine -> modules -> run -> watch | rollout -> cli)");
    }

    /** watch and rollout sit side by side on the run service: what one does the other does not reach into. */
    @Test
    void watchAndRolloutDoNotImportEachOther() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Path f : sources("rollout")) {
            Matcher m = IMPORT.matcher(Files.readString(f));
            while (m.find()) {
                if (m.group(1).equals("watch")) {
                    offenders.add(ROOT.relativize(f) + " imports io.etcdwright.watch");
                }
            }
        }
        assertEquals(List.of(), offenders, "rollout imports watch: both build on the run service only");
    }

    /** Neither the command line nor watch plans or applies by itself: what watch does is what plan would show. */
    @Test
    void theCommandLineNeitherPlansNorApplies() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Path f : concat(concat(sources("cli"), sources("watch")), sources("rollout"))) {
            Matcher m = PLANS_OR_APPLIES.matcher(Files.readString(f));
            while (m.find()) {
                offenders.add(ROOT.relativize(f) + ": " + m.group());
            }
        }
        assertEquals(List.of(), offenders, "cli/, watch/ or rollout/ plans, builds a planner's inputs or runs steps itself: call the run service");
    }

    @Test
    void theGuardSeesWhatItGuards() throws IOException {
        // A run service that plans and applies is what the command line is checked against.
        String run = String.join("\n", sources("run").stream().map(LayeringGuardTest::read).toList());
        assertTrue(PLANS_OR_APPLIES.matcher(run).find(), "the run service's planner calls were not recognised");
        assertTrue(sources("cli").size() > 30, "cli's sources not found under " + ROOT);
    }

    private static List<Path> sources(String layer) throws IOException {
        Path root = ROOT.resolve(layer).resolve("src/main/java");
        assertTrue(Files.isDirectory(root), "main sources not found at " + root);
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java")).toList();
        }
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
