package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright SIGKILLed anywhere in one change, the KilledAnywhere*IT classes' shared chain: a run
 * (one step at a time, {@code --forks 1}) is killed at the first kill point of its own plan, the
 * next run (which plans again from what it finds) at the first point of its own plan not killed at
 * yet, and so on, until a run is let finish. Each kill lands on the state the earlier kills left,
 * the way a flaky CI runner would leave it. The kill points come from the plan itself (each step's
 * start and end lines as the run prints them), so a step added to a planner is covered by
 * construction: at every step's end (a step boundary) but the last one's (after it only the recap
 * is left, a kill there interrupts nothing), and inside every step that takes time (an action: a
 * restart, a health wait, a member added; and a release streaming to a host), as its start line is
 * printed before its work.
 *
 * <p>Both kinds of run, {@link #applies} and {@link #restores}, print their plan and ask for
 * confirmation: the kill point is chosen from that plan, then the run is confirmed. A restore is
 * re-run as the same restore, as the operator would run it again. {@link #converged} is what every
 * chain must end in.
 */
final class KillChain {
    static final String INV = Testbed.INVENTORY.toString();
    static final ObjectMapper JSON = new ObjectMapper();
    /** A bound on the chain: a planner that kept planning new steps after each kill would never converge. */
    private static final int MAX_KILLS = 80;
    private static final Pattern CONFIRM = Pattern.compile(Pattern.quote("Only 'yes' will be accepted"));

    private final Path home;
    private final Path spec;

    KillChain(Path home, Path spec) {
        this.home = home;
        this.spec = spec;
    }

    /** What a chain did: the points killed at, in order, and the run that was let finish (null: a killed run ended its stage). */
    record Result(List<String> killed, long tookMillis, Cli.Run last) {
        @Override
        public String toString() {
            return killed.size() + " kills in " + tookMillis / 1000 + " s: " + killed;
        }
    }

    /**
     * Which kill points a chain kills at: every step boundary always, and inside steps either every
     * point ({@link #EVERY}) or one per kind of step ({@link #BOUNDARIES_AND_EACH_KIND_INSIDE}).
     */
    enum Sample {
        EVERY,
        /**
         * Every boundary, and inside each kind of step once: on the first host it runs on (a
         * restart inside on h1, not again on h2 and h3; every cluster step). Each kill costs a whole
         * run (a JVM, the facts, the lock, the steps before the point: 5 to 15 s on CI's two cores
         * under the write load), and a rolling change or a restore has 20 to 30 points, each
         * inside kill of a restart adding the member's health wait. The same step interrupted on
         * another host leaves the same kind of state; a boundary kill there is kept.
         */
        BOUNDARIES_AND_EACH_KIND_INSIDE,
        /**
         * Every step boundary and no point inside a step: for a change whose steps leave nothing
         * half-done inside them that a boundary does not (an online downgrade: etcd's own calls go
         * through raft whole, and systemd finishes a restart the run was killed in).
         */
        BOUNDARIES;

        boolean keeps(KillPoint p, Set<String> killedInside) {
            if (this == BOUNDARIES) {
                return !p.where().equals("inside");
            }
            return this == EVERY || !p.where().equals("inside") || !killedInside.contains(p.summary());
        }
    }

    /** A step's start line, and its end line; a start only where the step can take a while. */
    record KillPoint(String target, String identity, String summary, String where, Pattern pattern) {
        @Override
        public String toString() {
            return where + " " + target + " " + identity;
        }
    }

    /** One planned step, as the plan shows it; {@code occurrence} counts the steps of that target and summary so far. */
    private record Planned(String target, String identity, String summary, String line, List<String> summaries,
                           boolean takesTime, int occurrence) {
    }

    /** Applies of the spec as it is now, each killed at a point of its own plan, until one is let finish (exit 0). */
    Result applies(Sample sample) throws Exception {
        return applies(sample, () -> "one stage");
    }

    /**
     * Applies as {@link #applies(Sample)}, for a change made in stages, one apply each (a CA
     * rotation's phases): the chain ends, with no run let finish ({@link Result#last()} null), as
     * soon as {@code stage} reads other than at the start. A kill inside a stage's last step, after
     * its work, has finished the stage, and the next plan is the next stage's, which its own chain
     * (its own writers, with the credentials that stage needs) must cover.
     */
    Result applies(Sample sample, Supplier<String> stage) throws Exception {
        return chain(List.of("apply", "-i", INV, "-f", spec.toString()), sample, stage);
    }

    /**
     * {@code etcdwright restore ARGS} (without --yes), each run killed at a point of the plan it
     * printed before asking for confirmation, until one is confirmed and let finish (exit 0). The
     * re-run is the same restore, as the operator would run it again.
     */
    Result restores(Sample sample, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("restore", "-i", INV, "-f", spec.toString()));
        command.addAll(List.of(args));
        return chain(command, sample, () -> "one stage");
    }

    /**
     * Runs {@code command} (which prints its plan, then asks for confirmation) again and again: each
     * run is killed at the first point of the plan it printed not killed at yet, and the first run
     * left with no such point is confirmed and let finish. The point is chosen from the very plan
     * the run carries out, so a member still starting after the last kill cannot make them differ;
     * and the kill is armed before the confirmation, so the run cannot pass the point unwatched.
     * One step at a time ({@code --forks 1}), so that each kill point is a state of its own: with
     * steps side by side, the others would run on while the one awaited finishes.
     */
    private Result chain(List<String> base, Sample sample, Supplier<String> stage) throws Exception {
        String startStage = stage.get();
        long start = System.nanoTime();
        Set<String> killed = new LinkedHashSet<>();
        Set<String> killedInside = new HashSet<>();
        List<String> command = new ArrayList<>(base);
        command.addAll(List.of("--forks", "1"));
        for (int round = 0; round <= MAX_KILLS; round++) {
            try (Cli.Launched run = Cli.Launched.start(home, command.toArray(String[]::new))) {
                Optional<String> shown;
                try {
                    shown = run.awaitUnlessEnded(CONFIRM, Duration.ofMinutes(3));
                } catch (AssertionError e) {
                    throw stuck(e, killed);
                }
                if (shown.isEmpty()) {
                    // Nothing left to ask about: the kills before finished the change (a kill inside
                    // the last step, after its work). Converged, if it says so and exits 0.
                    Cli.Run last = run.finish(Duration.ofSeconds(30));
                    assertTrue(round > 0, "the spec differs from the hosts: there is something to kill: " + last.out());
                    assertEquals(0, last.exitCode(), "the run after " + killed.size() + " kills converges: " + last.out());
                    return done(killed, start, last);
                }
                List<KillPoint> points = killPoints(fromText(shown.get()));
                if (round == 0) {
                    assertFalse(points.isEmpty(), "the plan has steps to kill: " + shown.get());
                }
                KillPoint point = round == MAX_KILLS ? null : next(points, killed, killedInside, sample);
                if (point == null) {
                    run.answer("yes");
                    Cli.Run last = run.finish(Duration.ofMinutes(10));
                    assertEquals(0, last.exitCode(), "the run after " + killed.size() + " kills converges: " + last.out());
                    return done(killed, start, last);
                }
                run.killWhen(point.pattern());
                run.answer("yes");
                String seen;
                try {
                    seen = run.killAfter(point.pattern(), Duration.ofMinutes(3));
                } catch (AssertionError e) {
                    throw stuck(e, killed);
                }
                assertFalse(seen.contains("RECAP"), "killed before it finished (" + point + "): " + seen);
                killedAt(point, killed, killedInside);
            }
            if (!stage.get().equals(startStage)) {
                return done(killed, start, null);
            }
        }
        throw new AssertionError("unreachable: the last round lets the run finish");
    }

    private static KillPoint next(List<KillPoint> points, Set<String> killed, Set<String> killedInside, Sample sample) {
        return points.stream().filter(p -> sample.keeps(p, killedInside)).filter(p -> !killed.contains(p.toString()))
                .findFirst().orElse(null);
    }

    /** Records a kill done: the point, and for a kill inside a step the step's kind. */
    private static void killedAt(KillPoint point, Set<String> killed, Set<String> killedInside) {
        killed.add(point.toString());
        if (point.where().equals("inside")) {
            killedInside.add(point.summary());
        }
    }

    private Result done(Set<String> killed, long start, Cli.Run last) {
        Result result = new Result(List.copyOf(killed), (System.nanoTime() - start) / 1_000_000, last);
        System.out.println("[kill chain " + spec.getFileName() + "] " + result);
        return result;
    }

    /** What the hosts looked like right after: the state a refusal or a stuck step came from. */
    private AssertionError stuck(AssertionError e, Set<String> killed) {
        return new AssertionError(e.getMessage() + "\nafter kills at " + killed + "\nfacts right after:\n"
                + Cli.run("facts", "-i", INV, "-f", spec.toString(), "-o", "json").out(), e);
    }

    private static final Pattern TEXT_TARGET = Pattern.compile("^([^\\s:]+):$");
    private static final Pattern TEXT_STEP = Pattern.compile("^  (?:\\[[a-z]+\\] +)?([-+~>]) (.+)$");

    /**
     * The steps of a plan as its text shows them, in the order they run: a target's line, then
     * its steps' lines ({@code [routine] + summary (reason)}: the safety class, then the step). The text does not mark where the summary ends
     * and the reason begins: each "summary" before a " (" is a candidate for the step's end line.
     */
    private static List<Planned> fromText(String shown) {
        List<Planned> steps = new ArrayList<>();
        Map<String, Integer> occurrences = new java.util.HashMap<>();
        String target = null;
        for (String line : shown.split("\n")) {
            Matcher t = TEXT_TARGET.matcher(line);
            Matcher s = TEXT_STEP.matcher(line);
            if (t.matches()) {
                target = t.group(1);
            } else if (target != null && s.matches()) {
                String text = s.group(2);
                List<String> summaries = new ArrayList<>(List.of(text));
                for (int at = text.indexOf(" ("); at > 0; at = text.indexOf(" (", at + 1)) {
                    summaries.add(text.substring(0, at));
                }
                String summary = withoutReason(text);
                // A step planned twice for one target (a restart in each round of a change) is a point of its own.
                int seen = occurrences.merge(target + " " + summary, 1, Integer::sum);
                String identity = seen == 1 ? summary : summary + " #" + seen;
                // Actions, and the steps that stream a file to a host (a release, a snapshot), take time.
                steps.add(new Planned(target, identity, summary, s.group(1) + " " + text, summaries,
                        s.group(1).equals(">") || text.startsWith("install ") || text.startsWith("copy "), seen));
            } else if (line.startsWith("Plan: ")) {
                break;
            }
        }
        return steps;
    }

    /**
     * A step's line without its reason: the balanced parenthesized group that ends it. A reason
     * may nest parentheses and may change from run to run (what the hosts hold now), so it is no
     * part of the step's identity: the same step must not count as a new kill point.
     */
    static String withoutReason(String text) {
        if (!text.endsWith(")")) {
            return text;
        }
        int depth = 0;
        for (int at = text.length() - 1; at > 0; at--) {
            char c = text.charAt(at);
            depth += c == ')' ? 1 : c == '(' ? -1 : 0;
            if (depth == 0) {
                return text.charAt(at - 1) == ' ' ? text.substring(0, at - 1) : text;
            }
        }
        return text;
    }

    static List<KillPoint> killPoints(List<Planned> steps) {
        List<KillPoint> points = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            Planned step = steps.get(i);
            String prefix = "^" + Pattern.quote(step.target()) + " +";
            if (step.takesTime()) {
                // Inside the step: it prints its start line before its work (streaming, starting, waiting).
                points.add(new KillPoint(step.target(), step.identity(), step.summary(), "inside",
                        nth(step.occurrence(), prefix + Pattern.quote(step.line()) + " \\.\\.\\.$")));
            }
            if (i == steps.size() - 1) {
                // After the last step the run has nothing left but its recap: a kill there lands on
                // a finished run or races it, and is no interruption.
                continue;
            }
            String summaries = String.join("|", step.summaries().stream().map(Pattern::quote).toList());
            points.add(new KillPoint(step.target(), step.identity(), step.summary(), "after",
                    nth(step.occurrence(), prefix + "(?:" + summaries + "): (?:changed|ok) \\(")));
        }
        return points;
    }

    /** A pattern found only once {@code line} (a regex of one output line) was printed {@code n} times. */
    private static Pattern nth(int n, String line) {
        return Pattern.compile("(?ms)" + (n == 1 ? "" : "(?:" + line + ".*?){" + (n - 1) + "}") + line);
    }

    Map<String, String> clientEnv() {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec.toString());
        assertEquals(0, env.exitCode(), env.all());
        return Etcdctl.env(env.out());
    }

    /** Healthy, exactly these voting members, no change left, and one cluster id on every member's own disk. */
    void converged(List<String> members) throws Exception {
        converged(spec, members);
    }

    /** What every chain, and every fault test, must end in: see {@link #converged(List)}. */
    static void converged(Path spec, List<String> members) throws Exception {
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "nothing is left to do: " + again.all());
        JsonNode status = JSON.readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        Set<String> names = new TreeSet<>();
        for (JsonNode m : status.path("members")) {
            names.add(m.path("name").asText());
            assertFalse(m.path("learner").asBoolean(), m.toString());
        }
        assertEquals(new TreeSet<>(members), names, status.toString());
        // Each member asked on its own host, with its own healthcheck client: a member that had
        // bootstrapped a cluster of its own would answer another cluster id.
        Set<String> clusterIds = new TreeSet<>();
        for (String member : members) {
            int host = Integer.parseInt(member.substring(1));
            String answer = Testbed.ssh(host, "etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/etcd/pki/ca.crt"
                    + " --cert=/etc/etcd/pki/healthcheck-client.crt --key=/etc/etcd/pki/healthcheck-client.key"
                    + " endpoint status -w json");
            JsonNode header = JSON.readTree(answer).get(0).path("Status").path("header");
            clusterIds.add(header.path("cluster_id").asText());
        }
        assertEquals(1, clusterIds.size(), "one cluster, not two: " + clusterIds);
    }

    /** Something run while the write load writes. */
    interface Operation {
        void run() throws Exception;
    }

    /**
     * Runs {@code operation} while four writers write through {@code env}, and returns what they saw
     * (acknowledged once more after the operation: the cluster takes writes again).
     */
    static WriteLoad.Acks underWrites(Map<String, String> env, String label, Operation operation) throws Exception {
        try (WriteLoad load = WriteLoad.startRecorded(env, 4, LOGS.resolve("killed-anywhere-" + label + ".acks"))) {
            load.awaitMore(100, Duration.ofSeconds(30));
            operation.run();
            load.awaitMore(100, Duration.ofSeconds(30));
            return load.stop();
        }
    }

    static final Path LOGS = Testbed.ROOT.resolve("integration/target/write-load");

    /** Writes {@code text} to the spec. */
    void spec(String text) throws Exception {
        Files.writeString(spec, text);
    }
}
