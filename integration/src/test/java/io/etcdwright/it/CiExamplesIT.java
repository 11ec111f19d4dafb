package io.etcdwright.it;

import io.etcdwright.cli.Main;
import io.etcdwright.rollout.RolloutRecords;
import io.etcdwright.run.rollout.Shard;
import io.etcdwright.run.rollout.WaveSizes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The job-engine examples (examples/ci) judged by each engine's own validator, without test hosts:
 * the GitHub Actions workflow by actionlint (integration/actionlint, with shellcheck over its run:
 * scripts), the GitLab CI pipeline by gitlab-ci-local against GitLab's CI schema
 * (integration/gitlab-ci-local), the Kubernetes Jobs by the apiserver's own strict decoding,
 * defaults and Job validation (integration/kubernetes-job). Each test also hands its validator a
 * copy broken on purpose and sees it refused, so that a pass means something.
 * <p>
 * And every etcdwright command in them, expanded as the engine's shell expands it (bash, with the
 * variables the engine sets: the matrix, CI_NODE_INDEX/CI_NODE_TOTAL, JOB_COMPLETION_INDEX), is
 * parsed by etcdwright's own command line (picocli's parseArgs: nothing runs), so that an option
 * renamed in the CLI fails here; the rollout the shards make together is checked as etcdwright
 * computes it: one --waves and --rollout everywhere, every wave of a ten-cluster fleet run after
 * the one before, each wave as shards 1..N exactly once, and a report that merges every shard.
 * Named *IT: the validators are built by scripts/setup (cached outside the checkout; this finds
 * them in milliseconds, or builds them itself), run with the integration tests.
 */
class CiExamplesIT {
    private static final Path EXAMPLES = Testbed.ROOT.resolve("examples/ci");
    /** The fleet whose waves the examples must cover: ten clusters, as FleetAndMonitoringIT's. */
    private static final int FLEET = 10;
    private static final Pattern EXPRESSION = Pattern.compile("\\$\\{\\{\\s*([^}]*?)\\s*}}");
    private static Path work;

    @BeforeAll
    static void workDirectory() throws IOException {
        work = Files.createDirectories(Testbed.ROOT.resolve("integration/target/ci-examples-it"));
    }

    @Test
    void theGithubActionsWorkflowPassesActionlintAndRunsEveryWave() throws Exception {
        Path actionlint = validator("integration/actionlint/build");
        // actionlint checks the run: scripts only with a shellcheck on PATH: required, not skipped.
        assertEquals(0, exec(work, "", List.of("sh", "-c", "command -v shellcheck")).exitCode(),
                "no shellcheck on PATH: actionlint would not check the workflow's scripts; run scripts/setup (Debian's shellcheck)");
        Path example = EXAMPLES.resolve("github-actions.yml");
        String text = Files.readString(example);

        Testbed.Result clean = exec(work, "", List.of(actionlint.toString(), "-no-color", example.toString()));
        assertEquals(0, clean.exitCode(), "actionlint:\n" + clean.stdout() + clean.stderr());
        assertEquals("", clean.stdout() + clean.stderr(), "actionlint's findings");

        Testbed.Result unknownJob = actionlint(actionlint, broken(text, "needs: wave-2\n", "needs: wave-two\n"));
        assertEquals(1, unknownJob.exitCode(), unknownJob.stdout());
        assertTrue(unknownJob.stdout().contains("job \"wave-3\" needs job \"wave-two\" which does not exist in this workflow"), unknownJob.stdout());
        Testbed.Result unquoted = actionlint(actionlint, broken(text, "--shard \"$SHARD\"", "--shard $SHARD"));
        assertEquals(1, unquoted.exitCode(), unquoted.stdout());
        assertTrue(unquoted.stdout().contains("SC2086"), "shellcheck, through actionlint, did not see the unquoted variable:\n" + unquoted.stdout());

        Map<String, Object> workflow = new Yaml().load(text);
        Map<String, Map<String, Object>> jobs = new LinkedHashMap<>();
        map(workflow.get("jobs")).forEach((name, job) -> jobs.put(name, map(job)));
        Path dir = Files.createDirectories(fresh("github").resolve("reports")).getParent();
        List<ShardRun> runs = new ArrayList<>();
        Map<String, Set<Integer>> wavesOfJob = new TreeMap<>();
        List<Pending> reports = new ArrayList<>();
        for (var job : jobs.entrySet()) {
            List<Object> shards = job.getValue().containsKey("strategy")
                    ? list(map(map(job.getValue().get("strategy")).get("matrix")).get("shard")) : List.of("");
            for (int i = 0; i < shards.size(); i++) {
                Map<String, String> context = Map.of("github.run_id", "4242", "matrix.shard", String.valueOf(shards.get(i)),
                        "strategy.job-index", String.valueOf(i), "strategy.job-total", String.valueOf(shards.size()));
                for (Map<String, Object> step : this.<Map<String, Object>>typed(list(job.getValue().get("steps")))) {
                    if (!step.containsKey("run")) {
                        continue;
                    }
                    String script = (String) step.get("run");
                    assertFalse(script.contains("${{"), job.getKey() + ": an expression inside a run: script (pass it through env:)");
                    Map<String, String> env = new LinkedHashMap<>();
                    for (Object scope : new Object[]{workflow.get("env"), job.getValue().get("env"), step.get("env")}) {
                        if (scope != null) {
                            map(scope).forEach((k, v) -> env.put(k, evaluate(String.valueOf(v), context)));
                        }
                    }
                    for (String line : etcdwrightLines(script)) {
                        String where = "github-actions.yml job " + job.getKey() + (shards.size() > 1 ? " (shard " + shards.get(i) + ")" : "");
                        if (line.startsWith("etcdwright rollout report")) {
                            reports.add(new Pending(where, line, env));
                            continue;
                        }
                        Command apply = parse(where, expand(line, env, dir));
                        runs.add(new ShardRun(apply, env));
                        wavesOfJob.computeIfAbsent(job.getKey(), k -> new TreeSet<>()).add(apply.option("--wave"));
                    }
                }
            }
        }
        int waves = checkRollout(runs).keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
        for (int k = 1; k <= waves; k++) {
            assertEquals(Set.of(k), wavesOfJob.get("wave-" + k), "job wave-" + k + " runs wave " + k + " only");
            if (k > 1) {
                assertEquals("wave-" + (k - 1), jobs.get("wave-" + k).get("needs"), "wave " + k + " needs wave " + (k - 1));
            }
        }
        Map<String, Object> report = jobs.get("report");
        assertEquals(IntStream.rangeClosed(1, waves).mapToObj(k -> "wave-" + k).toList(), report.get("needs"));
        assertEquals("always()", report.get("if"), "the report runs when a wave failed too");
        checkReport(reports, dir, runs.size());
    }

    @Test
    void theGitlabPipelinePassesGitlabsSchemaAndRunsEveryWave() throws Exception {
        Path gitlabCiLocal = validator("integration/gitlab-ci-local/install");
        String text = Files.readString(EXAMPLES.resolve("gitlab-ci.yml"));

        Testbed.Result listed = gitlabCiLocal(gitlabCiLocal, text, "--list");
        assertEquals(0, listed.exitCode(), "gitlab-ci-local --list:\n" + listed.stdout() + listed.stderr());
        assertTrue(listed.stderr().contains("json schema validated"), "gitlab-ci-local did not validate against GitLab's schema:\n" + listed.stderr());
        for (String job : List.of("wave-1 ", "wave-2: [1/2]", "wave-2: [2/2]", "wave-3: [1/3]", "wave-3: [3/3]", "report ")) {
            assertTrue(listed.stdout().contains(job), "gitlab-ci-local lists no job " + job + ":\n" + listed.stdout());
        }
        // Two faults in one copy: gitlab-ci-local lists every schema error it finds.
        Testbed.Result refused = gitlabCiLocal(gitlabCiLocal, broken(broken(text, "parallel: 2\n", "paralel: 2\n"), "parallel: 3\n",
                "parallel: 201\n"), "--list");
        String said = refused.stdout() + refused.stderr();
        assertEquals(1, refused.exitCode(), said);
        assertTrue(said.contains("Invalid .gitlab-ci.yml configuration!"), said);
        assertTrue(said.contains("'paralel' property is not expected to be here at wave-2"), said);
        assertTrue(said.contains("property 'parallel' must be <= 200 at wave-3.parallel"), said);

        // The pipeline as GitLab runs it: extends, default: and anchors resolved by gitlab-ci-local itself.
        // (The schema was judged above: --preview skips the check, the slowest part of a run.)
        Testbed.Result preview = gitlabCiLocal(gitlabCiLocal, text, "--preview", "--json-schema-validation=false");
        assertEquals(0, preview.exitCode(), preview.stderr());
        Map<String, Object> pipeline = new Yaml().load(preview.stdout());
        List<Object> stages = list(pipeline.get("stages"));
        Map<String, Object> globals = map(pipeline.get("variables"));
        Path dir = Files.createDirectories(fresh("gitlab").resolve("reports")).getParent();
        List<ShardRun> runs = new ArrayList<>();
        Map<String, Set<Integer>> wavesOfJob = new TreeMap<>();
        List<Pending> reports = new ArrayList<>();
        for (var entry : pipeline.entrySet()) {
            if (!(entry.getValue() instanceof Map<?, ?> raw) || !raw.containsKey("script") || entry.getKey().startsWith(".")) {
                continue;
            }
            Map<String, Object> job = map(raw);
            int parallel = job.containsKey("parallel") ? (Integer) job.get("parallel") : 1;
            for (int node = 1; node <= parallel; node++) {
                String name = entry.getKey() + (job.containsKey("parallel") ? " " + node + "/" + parallel : "");
                Map<String, String> env = new LinkedHashMap<>();
                env.put("CI_PIPELINE_ID", "4242");
                env.put("CI_JOB_NAME", name);
                env.put("CI_JOB_NAME_SLUG", name.toLowerCase().replaceAll("[^a-z0-9]", "-"));
                if (job.containsKey("parallel")) {
                    env.put("CI_NODE_INDEX", String.valueOf(node));
                    env.put("CI_NODE_TOTAL", String.valueOf(parallel));
                }
                for (Object scope : new Object[]{globals, job.get("variables")}) {
                    if (scope != null) {
                        map(scope).forEach((k, v) -> env.put(k, gitlabExpand(String.valueOf(v), env)));
                    }
                }
                for (Object command : list(job.get("script"))) {
                    for (String line : etcdwrightLines((String) command)) {
                        String where = "gitlab-ci.yml job " + name;
                        if (line.startsWith("etcdwright rollout report")) {
                            reports.add(new Pending(where, line, env));
                            continue;
                        }
                        Command apply = parse(where, expand(line, env, dir));
                        runs.add(new ShardRun(apply, env));
                        assertEquals("wave-" + apply.<Integer>option("--wave"), job.get("stage"), where + ": a wave's jobs are in its stage");
                        wavesOfJob.computeIfAbsent(entry.getKey(), k -> new TreeSet<>()).add(apply.option("--wave"));
                    }
                }
            }
        }
        int waves = checkRollout(runs).keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
        List<Object> order = IntStream.rangeClosed(1, waves).mapToObj(k -> "wave-" + k).collect(Collectors.toList());
        order.add("report");
        assertEquals(order, stages.stream().filter(s -> !String.valueOf(s).startsWith(".")).toList(), "a stage a wave, in order, then the report");
        for (int k = 1; k <= waves; k++) {
            assertEquals(Set.of(k), wavesOfJob.get("wave-" + k), "job wave-" + k + " runs wave " + k + " only");
        }
        assertEquals("always", map(pipeline.get("report")).get("when"), "the report runs when a wave failed too");
        checkReport(reports, dir, runs.size());
    }

    @Test
    void theKubernetesJobsPassTheApiserversValidationAndRunEveryWave() throws Exception {
        Path checker = validator("integration/kubernetes-job/build");
        String text = Files.readString(EXAMPLES.resolve("kubernetes-jobs.yaml"));

        Testbed.Result judged = exec(work, text, List.of(checker.toString()));
        assertEquals(0, judged.exitCode(), "the apiserver's Job validation:\n" + judged.stdout() + judged.stderr());
        assertEquals(List.of("ok: batch/v1 Job etcd-rollout-wave-1: completionMode=Indexed completions=1 parallelism=1 suspend=false",
                        "ok: batch/v1 Job etcd-rollout-wave-2: completionMode=Indexed completions=2 parallelism=2 suspend=true",
                        "ok: batch/v1 Job etcd-rollout-wave-3: completionMode=Indexed completions=3 parallelism=3 suspend=true"),
                judged.stdout().lines().toList(), judged.stderr());
        Testbed.Result unknownField = exec(work, broken(text, "  parallelism: 2\n", "  parallelizm: 2\n"), List.of(checker.toString()));
        assertEquals(1, unknownField.exitCode(), unknownField.stdout() + unknownField.stderr());
        assertTrue(unknownField.stderr().contains("document 2: decoding: strict decoding error: unknown field \"spec.parallelizm\""),
                unknownField.stderr());
        Testbed.Result notIndexed = exec(work, broken(text, "  completionMode: Indexed\n  completions: 3\n",
                "  completionMode: NonIndexed\n  completions: 3\n"), List.of(checker.toString()));
        assertEquals(1, notIndexed.exitCode(), notIndexed.stdout() + notIndexed.stderr());
        assertTrue(notIndexed.stderr().contains("document 3: Job.batch \"etcd-rollout-wave-3\" is invalid"), notIndexed.stderr());
        assertTrue(notIndexed.stderr().contains("spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"),
                notIndexed.stderr());

        List<ShardRun> runs = new ArrayList<>();
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Object doc : new Yaml().loadAll(text)) {
            jobs.add(map(doc));
        }
        for (Map<String, Object> job : jobs) {
            Map<String, Object> spec = map(job.get("spec"));
            String name = (String) map(job.get("metadata")).get("name");
            Map<String, Object> container = map(list(map(map(spec.get("template")).get("spec")).get("containers")).get(0));
            List<String> words = new ArrayList<>(this.<String>typed(list(container.get("command"))));
            words.addAll(this.<String>typed(list(container.get("args"))));
            int completions = (Integer) spec.get("completions");
            assertEquals(completions, spec.get("parallelism"), name + ": every shard of a wave at once");
            for (int index = 0; index < completions; index++) {
                // No shell: the args are the words. The pod's JOB_COMPLETION_INDEX is the shard.
                Command apply = parse("kubernetes-jobs.yaml Job " + name, words);
                assertEquals(completions, apply.<Integer>option("--shards"), name + ": --shards is the Job's completions");
                runs.add(new ShardRun(apply, Map.of("JOB_COMPLETION_INDEX", String.valueOf(index))));
                int wave = apply.option("--wave");
                assertEquals("etcd-rollout-wave-" + wave, name);
                assertEquals(wave > 1, Boolean.TRUE.equals(spec.get("suspend")), name + ": wave 1 starts, the later ones wait suspended");
            }
        }
        Map<Integer, List<String>> records = checkRollout(runs);
        // The workstation's part, in the file's comments: one shard's record from the state store, then the report.
        Path dir = fresh("kubernetes");
        List<String> commented = text.lines().filter(l -> l.startsWith("#   etcdwright ")).map(l -> l.substring(4)).toList();
        assertEquals(2, commented.size(), "the comments' etcdwright commands: " + commented);
        Command status = parse("kubernetes-jobs.yaml comments", expand(commented.get(0), Map.of(), dir));
        assertEquals("etcdwright rollout status", status.name());
        String shown = status.sub().matchedPositionalValue(0, null);
        assertTrue(records.values().stream().anyMatch(ids -> ids.contains(shown)), shown + " is no shard record of the Jobs: " + records);
        Command report = parse("kubernetes-jobs.yaml comments", expand(commented.get(1), Map.of(), dir));
        assertEquals("etcdwright rollout report", report.name());
        assertNotNull(report.option("--junit"));
    }

    // ---- the rollout the shards make together ------------------------------------------------

    /** One shard as a job runs it: its apply and the environment the engine gives it. */
    record ShardRun(Command apply, Map<String, String> env) {
        Shard shard() {
            Integer shards = apply.option("--shards");
            return Shard.of(Optional.ofNullable(apply.option("--shard")), shards == null ? OptionalInt.empty() : OptionalInt.of(shards), env)
                    .orElse(new Shard(1, 1));
        }
    }

    /**
     * The shards judged as etcdwright computes them: each an apply of one wave with --yes and -o
     * json, all with the same --waves and --rollout; every wave that --waves makes of a ten-cluster
     * fleet present, each as shards 1..N of one N exactly once. Returns each wave's shard records.
     */
    static Map<Integer, List<String>> checkRollout(List<ShardRun> runs) {
        assertFalse(runs.isEmpty(), "no etcdwright apply");
        Set<String> sizes = new TreeSet<>();
        Set<String> names = new TreeSet<>();
        Map<Integer, List<Shard>> byWave = new TreeMap<>();
        for (ShardRun run : runs) {
            Command apply = run.apply();
            assertEquals("etcdwright apply", apply.name(), apply.source());
            assertEquals(Boolean.TRUE, apply.option("--yes"), apply.source() + ": no one answers the question in a job");
            assertEquals("json", String.valueOf(apply.<Object>option("--output")), apply.source() + ": -o json, the record the report merges");
            assertNotNull(apply.option("--inventory"), apply.source());
            assertNotNull(apply.option("--file"), apply.source());
            Integer wave = apply.option("--wave");
            assertNotNull(wave, apply.source() + ": a job runs one wave");
            sizes.add(apply.option("--waves"));
            names.add(RolloutRecords.checkId(apply.option("--rollout")));
            byWave.computeIfAbsent(wave, k -> new ArrayList<>()).add(run.shard());
        }
        assertEquals(1, sizes.size(), "every shard must compute the same waves: " + sizes);
        assertEquals(1, names.size(), "every shard names the same rollout: " + names);
        int count = WaveSizes.parse(sizes.iterator().next()).split(IntStream.range(0, FLEET).boxed().toList()).size();
        assertEquals(IntStream.rangeClosed(1, count).boxed().toList(), List.copyOf(byWave.keySet()),
                "the waves " + sizes + " makes of " + FLEET + " clusters");
        Map<Integer, List<String>> records = new TreeMap<>();
        String name = names.iterator().next();
        byWave.forEach((wave, shards) -> {
            int total = shards.get(0).total();
            List<Shard> sorted = shards.stream().sorted(Comparator.comparingInt(Shard::index)).toList();
            assertEquals(IntStream.rangeClosed(1, total).mapToObj(i -> new Shard(i, total)).toList(), sorted,
                    "wave " + wave + ": shards 1.." + total + " of " + total + ", each once");
            records.put(wave, sorted.stream().map(s -> name + "-wave" + wave + "-shard" + s.index() + "of" + s.total()).toList());
        });
        records.values().forEach(ids -> ids.forEach(RolloutRecords::checkId));
        return records;
    }

    /** A report command waiting for the shards' files: expanded once every apply has made its own. */
    record Pending(String where, String line, Map<String, String> env) {
    }

    /** One report, merging exactly the files the shards' applies wrote their records to (bash made each, empty). */
    static void checkReport(List<Pending> reports, Path dir, int shards) throws IOException {
        assertEquals(1, reports.size(), "one report job: " + reports);
        Pending pending = reports.get(0);
        Command report = parse(pending.where(), expand(pending.line(), pending.env(), dir));
        assertEquals("etcdwright rollout report", report.name());
        assertNotNull(report.option("--junit"), pending.where() + ": the joined JUnit report");
        List<Path> written;
        try (Stream<Path> files = Files.walk(dir)) {
            written = files.filter(f -> f.toString().endsWith(".json")).map(dir::relativize).sorted().toList();
        }
        assertEquals(shards, written.size(), "every shard writes its record to a file of its own: " + written);
        List<Path> merged = report.<List<Path>>option("--merge").stream().sorted().toList();
        assertEquals(written, merged, "the report merges every shard's record");
    }

    // ---- etcdwright's command line ------------------------------------------------------------

    /** One etcdwright command line as etcdwright's own picocli command line parsed it. */
    record Command(String source, List<String> words, CommandLine.ParseResult parsed) {
        /** The innermost subcommand's parse: apply's, or rollout report's. */
        CommandLine.ParseResult sub() {
            CommandLine.ParseResult r = parsed;
            while (r.subcommand() != null) {
                r = r.subcommand();
            }
            return r;
        }

        String name() {
            return sub().commandSpec().qualifiedName();
        }

        <T> T option(String option) {
            return sub().matchedOptionValue(option, null);
        }
    }

    /** Parses {@code words} ("etcdwright", then its arguments) as Main does before it runs anything. */
    static Command parse(String where, List<String> words) {
        assertEquals("etcdwright", words.get(0), where);
        String[] args = words.subList(1, words.size()).toArray(String[]::new);
        try {
            return new Command(where, words, Main.commandLine(args).parseArgs(args));
        } catch (CommandLine.ParameterException e) {
            throw new AssertionError(where + ": etcdwright's command line refuses " + words + ": " + e.getMessage(), e);
        }
    }

    /** The etcdwright commands of a shell script: the lines that start with it, backslash continuations joined. */
    static List<String> etcdwrightLines(String script) {
        List<String> found = new ArrayList<>();
        StringBuilder current = null;
        for (String raw : script.lines().toList()) {
            String line = raw.strip();
            if (current == null && line.startsWith("etcdwright ")) {
                current = new StringBuilder();
            }
            if (current != null) {
                boolean continues = line.endsWith("\\");
                current.append(continues ? line.substring(0, line.length() - 1) : line).append(' ');
                if (!continues) {
                    found.add(current.toString().strip());
                    current = null;
                }
            }
        }
        assertTrue(current == null, "a continuation runs off the end of:\n" + script);
        return found;
    }

    /**
     * The words of one command line as bash expands them (quotes, ${VAR%/*}, globs, redirections)
     * in {@code dir} with {@code env} alone: etcdwright there is a shell function that writes its
     * arguments to a file of its own, so nothing runs; a redirection makes its (empty) file.
     */
    static List<String> expand(String line, Map<String, String> env, Path dir) {
        try {
            Path words = Files.createTempFile(work, "words", ".bin");
            ProcessBuilder bash = new ProcessBuilder("bash", "--noprofile", "--norc", "-c",
                    "exec 3>\"$0\"; etcdwright() { printf '%s\\0' \"$@\" >&3; }; " + line, words.toString())
                    .directory(dir.toFile()).redirectErrorStream(true);
            bash.environment().clear();
            bash.environment().put("PATH", "/usr/bin:/bin");
            bash.environment().putAll(env);
            Process p = bash.start();
            p.getOutputStream().close();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "bash did not finish: " + line);
            assertEquals(0, p.exitValue(), "bash refused: " + line + "\n" + said);
            String written = Files.readString(words);
            Files.delete(words);
            assertFalse(written.isEmpty(), "bash did not reach etcdwright in: " + line + "\n" + said);
            List<String> result = new ArrayList<>(List.of("etcdwright"));
            result.addAll(List.of(written.substring(0, written.length() - 1).split("\0", -1)));
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A GitHub expression as the runner fills it in: from {@code context}; secrets and variables stand for themselves. */
    static String evaluate(String value, Map<String, String> context) {
        Matcher m = EXPRESSION.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String expression = m.group(1);
            String filled = expression.startsWith("secrets.") || expression.startsWith("vars.") ? "(" + expression + ")" : context.get(expression);
            assertNotNull(filled, "an expression the test does not know: ${{ " + expression + " }}");
            m.appendReplacement(out, Matcher.quoteReplacement(filled));
        }
        return m.appendTail(out).toString();
    }

    /** A GitLab variable's value with the variables it names expanded, as GitLab expands them. */
    static String gitlabExpand(String value, Map<String, String> env) {
        Matcher m = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)}?").matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String known = env.get(m.group(1));
            assertNotNull(known, "a variable the test does not set: " + m.group());
            m.appendReplacement(out, Matcher.quoteReplacement(known));
        }
        return m.appendTail(out).toString();
    }

    // ---- the validators ---------------------------------------------------------------------

    /** A validator, built or installed by its recipe under integration/ (cached: scripts/setup made it); one that cannot be had fails the test. */
    static Path validator(String recipe) {
        Testbed.Result made = Testbed.exec(List.of(Testbed.ROOT.resolve(recipe).toString()));
        assertEquals(0, made.exitCode(), "cannot build or install " + recipe + ": run scripts/setup (it builds every validator"
                + " once for the machine), or " + recipe + " itself, and see why:\n" + made.stderr());
        return Path.of(made.stdout().strip());
    }

    static Testbed.Result actionlint(Path actionlint, String workflow) throws IOException {
        Path copy = Files.writeString(fresh("github-broken").resolve("workflow.yml"), workflow);
        return exec(work, "", List.of(actionlint.toString(), "-no-color", copy.toString()));
    }

    /** gitlab-ci-local over {@code pipeline} as a project's .gitlab-ci.yml, in a directory of its own (it writes its state there). */
    static Testbed.Result gitlabCiLocal(Path launcher, String pipeline, String... mode) throws IOException {
        Path project = fresh("gitlab-project");
        Files.writeString(project.resolve(".gitlab-ci.yml"), pipeline);
        List<String> command = new ArrayList<>(List.of(launcher.toString(), "--cwd", ".", "--no-color"));
        command.addAll(List.of(mode));
        return exec(project, "", command);
    }

    static String broken(String text, String what, String into) {
        assertTrue(text.contains(what), "the example no longer has '" + what + "' to break");
        return text.replace(what, into);
    }

    static Path fresh(String name) throws IOException {
        Path dir = work.resolve(name);
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
        return Files.createDirectories(dir);
    }

    static Testbed.Result exec(Path dir, String stdin, List<String> command) {
        try {
            Path err = Files.createTempFile(work, "stderr", ".txt");
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectError(err.toFile()).start();
            try (var in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command);
            }
            String errText = Files.readString(err);
            Files.delete(err);
            Testbed.Result result = new Testbed.Result(p.exitValue(), out, errText);
            System.out.println("$ " + String.join(" ", command) + "\n" + out + errText + "[exit " + result.exitCode() + "]");
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        assertTrue(o instanceof Map, "not a mapping: " + o);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        assertTrue(o instanceof List, "not a list: " + o);
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    <T> List<T> typed(List<Object> l) {
        return (List<T>) (List<?>) l;
    }
}
