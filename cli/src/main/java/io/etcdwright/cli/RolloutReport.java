package io.etcdwright.cli;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.StepResult;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.rollout.ClusterState;
import io.etcdwright.rollout.RolloutListener;
import io.etcdwright.rollout.RolloutPlan;
import io.etcdwright.rollout.RolloutRecord;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/** How a rollout is shown: its plan, its live lines, its summary table, its JUnit report. */
final class RolloutReport {
    private RolloutReport() {
    }

    /** The whole rollout before it runs: every wave, every cluster's plan, and every precondition not met. */
    static void plan(RolloutPlan plan, PrintWriter out) {
        RolloutRecord.Settings s = plan.settings();
        long clusters = plan.entries().size();
        out.println("Rollout " + plan.id() + ": " + clusters + (clusters == 1 ? " cluster" : " clusters") + " in "
                + plan.waves().size() + (plan.waves().size() == 1 ? " wave" : " waves") + " (waves " + s.waves() + ", up to "
                + s.parallel() + " at once, at most " + s.maxFailures() + " failed a wave; gate: " + s.validateCount()
                + " health checks " + DurationText.format(s.validateInterval()) + " apart, soak " + DurationText.format(s.soak())
                + (s.pauseAfterWave() ? ", pause after each wave" : "") + ")"
                + (plan.offline() ? "\nPlanned offline from recorded facts: locks, quorum and backups were not asked." : ""));
        for (RolloutPlan.Wave w : plan.waves()) {
            out.println();
            out.println("Wave " + w.number() + w.label().map(l -> ": " + l).orElse("") + " (" + w.clusters().size()
                    + (w.clusters().size() == 1 ? " cluster" : " clusters") + ")");
            for (RolloutPlan.Entry e : w.clusters()) {
                String steps = e.plan().map(p -> p.isRefused() ? "refused" : p.steps().isEmpty() ? "up to date"
                        : p.steps().size() + (p.steps().size() == 1 ? " step" : " steps")).orElse("not planned");
                out.println("  " + e.name() + ": " + steps);
                e.plan().filter(p -> !p.isRefused()).ifPresent(p -> {
                    for (Step step : p.steps()) {
                        out.println("      " + step.line() + "  [" + step.safety().label() + "]");
                    }
                });
                for (String problem : e.problems()) {
                    out.println("      ! " + problem);
                }
            }
        }
        out.println();
        long notReady = plan.entries().stream().filter(e -> !e.problems().isEmpty()).count();
        if (notReady > 0) {
            out.println("Not ready: " + notReady + " of " + clusters + " clusters do not meet the rollout's preconditions"
                    + " (above); nothing is touched until every one does.");
        } else {
            long changing = plan.entries().stream().filter(RolloutPlan.Entry::hasChanges).count();
            out.println(changing + " of " + clusters + " clusters have changes.");
        }
    }

    /** The live lines of a running rollout, each cluster's prefixed with its name (clusters run side by side). */
    static RolloutListener live(PrintWriter out) {
        return new RolloutListener() {
            @Override
            public void line(String line) {
                synchronized (out) {
                    out.println("rollout: " + line);
                    out.flush();
                }
            }

            @Override
            public void planned(String cluster, Plan plan) {
                line(cluster + ": " + (plan.isRefused() ? "plan refused" : plan.steps().size() + " steps to run"));
            }

            @Override
            public ProgressListener progress(String cluster) {
                return new ProgressListener() {
                    @Override
                    public void started(Step step) {
                    }

                    @Override
                    public void finished(StepResult result) {
                        line(cluster + ": " + result.status().name().toLowerCase(Locale.ROOT) + " " + result.step().line()
                                + " (" + String.format(Locale.ROOT, "%.1fs", result.took().toMillis() / 1000.0) + ")"
                                + result.error().map(e -> ": " + e).orElse(""));
                    }

                    @Override
                    public void note(Step step, String message) {
                        line(cluster + ": " + message);
                    }
                };
            }
        };
    }

    /** The summary table: cluster, wave, result, steps, time; then the rollout's state and what to do. */
    static void summary(RolloutRecord record, PrintWriter out) {
        int width = Math.max(7, record.clusters().stream().mapToInt(c -> c.name().length()).max().orElse(7));
        out.println();
        out.println(String.format(Locale.ROOT, "%-" + width + "s  %4s  %-10s  %5s  %7s", "CLUSTER", "WAVE", "RESULT", "STEPS", "TIME"));
        for (RolloutRecord.Cluster c : record.clusters()) {
            out.println(String.format(Locale.ROOT, "%-" + width + "s  %4d  %-10s  %5d  %6.1fs", c.name(), c.wave(), c.state().label(),
                    c.steps(), c.seconds()));
        }
        for (RolloutRecord.Cluster c : record.clusters()) {
            c.error().ifPresent(e -> out.println(c.name() + ": " + e));
        }
        out.println("Rollout " + record.id() + " " + record.state().label() + record.reason().map(r -> ": " + r).orElse("."));
    }

    /** One test suite a wave, one case a cluster: a failed one with its error, one not run skipped. */
    static String junit(RolloutRecord record, Instant now) {
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        long failures = record.clusters().stream().filter(c -> c.state() == ClusterState.FAILED).count();
        x.append("<testsuites name=\"etcdwright rollout ").append(attr(record.id())).append("\" tests=\"").append(record.clusters().size())
                .append("\" failures=\"").append(failures).append("\" errors=\"0\">\n");
        for (int w = 1; w <= record.waveCount(); w++) {
            List<RolloutRecord.Cluster> wave = record.wave(w);
            if (wave.isEmpty()) {
                continue;
            }
            long failed = wave.stream().filter(c -> c.state() == ClusterState.FAILED).count();
            long skipped = wave.stream().filter(c -> c.state() != ClusterState.FAILED && c.state() != ClusterState.DONE).count();
            double time = wave.stream().mapToDouble(RolloutRecord.Cluster::seconds).max().orElse(0);
            x.append("  <testsuite name=\"wave ").append(w).append("\" tests=\"").append(wave.size()).append("\" failures=\"")
                    .append(failed).append("\" errors=\"0\" skipped=\"").append(skipped).append("\" time=\"")
                    .append(String.format(Locale.ROOT, "%.3f", time)).append("\" timestamp=\"")
                    .append(now.truncatedTo(ChronoUnit.SECONDS).toString().replace("Z", "")).append("\">\n");
            for (RolloutRecord.Cluster c : wave) {
                x.append("    <testcase classname=\"etcdwright.rollout.wave").append(w).append("\" name=\"").append(attr(c.name()))
                        .append("\" file=\"").append(attr(c.spec())).append("\" time=\"")
                        .append(String.format(Locale.ROOT, "%.3f", c.seconds())).append('"');
                if (c.state() == ClusterState.DONE) {
                    x.append("/>\n");
                } else if (c.state() == ClusterState.FAILED) {
                    String error = c.error().orElse("failed");
                    x.append(">\n      <failure message=\"").append(attr(firstLine(error))).append("\">").append(text(error))
                            .append("</failure>\n    </testcase>\n");
                } else {
                    x.append(">\n      <skipped message=\"").append(attr(c.state().label())).append("\"/>\n    </testcase>\n");
                }
            }
            x.append("  </testsuite>\n");
        }
        return x.append("</testsuites>\n").toString();
    }

    static void writeJunit(Path file, RolloutRecord record) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try {
                Files.writeString(tmp, junit(record, Instant.now()), StandardCharsets.UTF_8);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JUnit report " + file + ": " + e.getMessage(), e);
        }
    }

    static String json(RolloutRecord record) {
        return new String(record.toJson(), StandardCharsets.UTF_8).strip();
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String attr(String s) {
        return text(s).replace("\"", "&quot;");
    }

    private static String text(String s) {
        StringBuilder b = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if (ch == '&') {
                b.append("&amp;");
            } else if (ch == '<') {
                b.append("&lt;");
            } else if (ch == '>') {
                b.append("&gt;");
            } else if (ch < 0x20 && ch != '\n' && ch != '\t') {
                b.append(' ');
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }

    static String render(RolloutPlan plan) {
        StringWriter w = new StringWriter();
        plan(plan, new PrintWriter(w, true));
        return w.toString();
    }
}
