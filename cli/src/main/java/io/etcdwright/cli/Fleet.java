package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.run.FleetRun;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Several clusters in one run of plan, status or certs (docs/fleets.md), as the run service's
 * {@link FleetRun} runs them, reported with one summary: a table, a JSON document, a JUnit report.
 * A spec that is not usable is reported file:line:col and the others still run.
 */
final class Fleet {
    /** The version of the fleet's {@code -o json} document (schemas/fleet.schema.json). */
    static final int JSON_VERSION = 1;

    /** What one cluster came to, in words a CI report and a person read the same. */
    enum Verdict {
        OK("ok"), CHANGES("changes"), DRIFT("drift"), REFUSED("refused"), UNHEALTHY("unhealthy"), EXPIRING("expiring"),
        INVALID("invalid"), ERROR("error");

        final String label;

        Verdict(String label) {
            this.label = label;
        }

        /** Not as it should be: a JUnit failure. */
        boolean failure() {
            return this == CHANGES || this == DRIFT || this == REFUSED || this == UNHEALTHY || this == EXPIRING;
        }

        /** Could not be checked: a JUnit error. */
        boolean error() {
            return this == INVALID || this == ERROR;
        }
    }

    /**
     * What one cluster's work found, as its single-cluster command says it.
     *
     * @param exitCode the single-cluster command's exit code
     * @param text     what the single-cluster command prints (a failure's message in the JUnit report)
     * @param document its {@code -o json} document
     * @param counts   the summary's columns for it, by JSON name
     * @param detail   what the command found, for an output of its own ({@link Renderer}); may be null
     */
    record Outcome(Verdict verdict, int exitCode, String text, JsonNode document, Map<String, Object> counts, Object detail) {
        Outcome(Verdict verdict, int exitCode, String text, JsonNode document, Map<String, Object> counts) {
            this(verdict, exitCode, text, document, counts, null);
        }
    }

    /** An output of the command's own for the whole fleet (status's OpenMetrics), in place of the texts and the table. */
    interface Renderer {
        String render(List<Result> results);
    }

    /** A command's work on one cluster whose input is usable. */
    interface Work {
        Outcome run(DesiredState desired) throws Exception;
    }

    /** A column of the summary table: its header, and the key of {@link Outcome#counts} it shows. */
    record Column(String header, String key) {
    }

    /**
     * One cluster of the fleet: its input, its name when the spec could be read, what came of it and how long it took.
     *
     * @param unusable its input was not usable when read (its problems are printed once, on stderr)
     */
    record Result(FleetRun.Input input, Optional<String> cluster, Outcome outcome, List<Problem> problems, double seconds,
                  boolean unusable) {
        String name() {
            return cluster.orElse(input.spec().toString());
        }
    }

    private Fleet() {
    }

    /**
     * Runs {@code work} on every cluster of {@code options} ({@link FleetRun}), prints each one's
     * output then the summary (or, with {@code json}, one document), writes the JUnit report when
     * asked, and returns the fleet's exit code: 1 when any cluster's is 1 (an error, a refusal, bad
     * input), else 2 when any is 2, else 0.
     */
    static int run(String command, FleetOptions options, List<Column> columns, Work work, boolean json, PrintWriter out,
                   PrintWriter err) {
        return run(command, options, columns, work, json, null, out, err);
    }

    /** As above; a {@code renderer} prints the fleet's output instead of the texts and the summary. */
    static int run(String command, FleetOptions options, List<Column> columns, Work work, boolean json, Renderer renderer,
                   PrintWriter out, PrintWriter err) {
        long started = System.nanoTime();
        List<Result> results = FleetRun.run(options.inputs(), options.parallel, work::run).stream().map(Fleet::result).toList();
        int exit = exitCode(results);
        if (renderer != null) {
            out.print(renderer.render(results));
            // What the document cannot say: why a cluster is missing from it.
            results.stream().filter(r -> r.outcome().verdict() == Verdict.ERROR)
                    .forEach(r -> err.print("cluster " + r.name() + ": " + r.outcome().text()));
        } else if (json) {
            out.println(Json.write(document(command, results, exit)));
        } else {
            for (Result r : results) {
                out.println("=== cluster " + r.name() + " (" + r.input().spec() + ", inventory " + r.input().inventory() + ")");
                if (r.outcome().verdict() == Verdict.INVALID) {
                    out.println("Not checked: the input is not usable (the problems are above); no host of it was contacted.");
                } else {
                    out.print(r.outcome().text());
                }
                out.println();
            }
            summary(results, columns, exit).forEach(out::println);
        }
        // Bad input, as every command reports it: file:line:col on stderr; an inventory's own once, not once per spec.
        results.stream().filter(r -> r.unusable()).flatMap(r -> r.problems().stream())
                .map(p -> SecretRedaction.redact(p.toString())).distinct().forEach(err::println);
        if (options.junit != null) {
            JunitReport.write(options.junit, command, results, (System.nanoTime() - started) / 1e9);
            if (!json && renderer == null) {
                out.println("JUnit report: " + options.junit);
            }
        }
        return exit;
    }

    /** One cluster's result as the fleet reports it: bad input and errors in the words a command uses for them. */
    private static Result result(FleetRun.Result<Outcome> ran) {
        Outcome outcome;
        List<Problem> problems = List.of();
        boolean unusable = false;
        if (ran.ran() instanceof FleetRun.Ran.Done<Outcome> done) {
            outcome = done.value();
        } else if (ran.ran() instanceof FleetRun.Ran.Unusable<Outcome> bad) {
            unusable = true;
            problems = bad.problem().problems();
            outcome = new Outcome(Verdict.INVALID, Main.ERROR, String.join("\n", problems.stream()
                    .map(p -> SecretRedaction.redact(p.toString())).toList()) + "\n", null, Map.of());
        } else {
            Exception e = ((FleetRun.Ran.Failed<Outcome>) ran.ran()).error();
            if (e instanceof InvalidInputException invalid) {
                problems = invalid.problems();
                outcome = new Outcome(Verdict.INVALID, Main.ERROR, e.getMessage() + "\n", null, Map.of());
            } else {
                String message = SecretRedaction.redact(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
                outcome = new Outcome(Verdict.ERROR, Main.ERROR, "error: " + message + "\n", null, Map.of());
            }
        }
        return new Result(ran.input(), ran.cluster(), outcome, problems, ran.seconds(), unusable);
    }

    static int exitCode(List<Result> results) {
        if (results.stream().anyMatch(r -> r.outcome().exitCode() == Main.ERROR)) {
            return Main.ERROR;
        }
        return results.stream().anyMatch(r -> r.outcome().exitCode() == Main.CHANGES) ? Main.CHANGES : Main.OK;
    }

    static List<String> summary(List<Result> results, List<Column> columns, int exit) {
        List<String[]> rows = new ArrayList<>();
        List<String> header = new ArrayList<>(List.of("CLUSTER", "RESULT"));
        columns.forEach(c -> header.add(c.header()));
        header.addAll(List.of("TIME", "SPEC"));
        rows.add(header.toArray(String[]::new));
        for (Result r : results) {
            List<String> row = new ArrayList<>(List.of(r.cluster().orElse("-"), r.outcome().verdict().label));
            columns.forEach(c -> {
                Object v = r.outcome().counts().get(c.key());
                row.add(v == null ? "-" : v.toString());
            });
            row.add(r.outcome().verdict() == Verdict.INVALID ? "-" : String.format(java.util.Locale.ROOT, "%.1f s", r.seconds()));
            row.add(r.input().spec().toString());
            rows.add(row.toArray(String[]::new));
        }
        int[] widths = new int[header.size()];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == row.length - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s", row[i]));
            }
            lines.add(line.toString().stripTrailing());
        }
        Map<String, Long> byVerdict = new LinkedHashMap<>();
        for (Verdict v : Verdict.values()) {
            long n = results.stream().filter(r -> r.outcome().verdict() == v).count();
            if (n > 0) {
                byVerdict.put(v.label, n);
            }
        }
        List<String> parts = new ArrayList<>();
        byVerdict.forEach((k, n) -> parts.add(n + " " + k));
        lines.add(results.size() + " cluster" + (results.size() == 1 ? "" : "s") + ": " + String.join(", ", parts) + " (exit " + exit + ")");
        return lines;
    }

    /** The fleet's {@code -o json} document (schemas/fleet.schema.json). */
    static Map<String, Object> document(String command, List<Result> results, int exit) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", JSON_VERSION);
        doc.put("command", command);
        doc.put("exit_code", exit);
        List<Map<String, Object>> clusters = new ArrayList<>();
        for (Result r : results) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("cluster", r.cluster().orElse(null));
            c.put("spec", r.input().spec().toString());
            c.put("inventory", r.input().inventory().toString());
            c.put("result", r.outcome().verdict().label);
            c.put("exit_code", r.outcome().exitCode());
            c.put("seconds", Math.round(r.seconds() * 1000) / 1000.0);
            c.put("counts", r.outcome().counts());
            List<Map<String, Object>> problems = new ArrayList<>();
            for (Problem p : r.problems()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("file", p.location().file().toString());
                m.put("line", p.location().line());
                m.put("column", p.location().column());
                m.put("severity", p.severity().label());
                m.put("field", p.field());
                m.put("message", SecretRedaction.redact(p.message()));
                problems.add(m);
            }
            c.put("problems", problems);
            c.put("error", r.outcome().verdict() == Verdict.ERROR ? r.outcome().text().strip().replaceFirst("^error: ", "") : null);
            c.put("document", r.outcome().document());
            clusters.add(c);
        }
        doc.put("clusters", clusters);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("clusters", results.size());
        summary.put("ok", results.stream().filter(r -> r.outcome().verdict() == Verdict.OK).count());
        summary.put("failures", results.stream().filter(r -> r.outcome().verdict().failure()).count());
        summary.put("errors", results.stream().filter(r -> r.outcome().verdict().error()).count());
        doc.put("summary", summary);
        return doc;
    }
}
