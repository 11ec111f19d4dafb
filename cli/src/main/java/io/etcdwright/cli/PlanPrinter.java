package io.etcdwright.cli;

import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.plan.ClientChange;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Shows a plan: grouped by host in text, every field in JSON. */
final class PlanPrinter {
    /** Of {@code plan -o json} (schemas/plan.schema.json): raised only when a field is renamed, removed or changes meaning. */
    static final int JSON_VERSION = 1;

    private PlanPrinter() {
    }

    static void text(Plan plan, boolean withDiff, PrintWriter out) {
        text(plan, withDiff, out, "No changes. Cluster " + plan.subject() + " matches the desired state.");
    }

    static void text(Plan plan, boolean withDiff, PrintWriter out, String noChanges) {
        plan.warnings().forEach(w -> out.println("warning: " + w));
        if (plan.isRefused()) {
            out.println("Cannot plan cluster " + plan.subject() + ": " + plan.refusals().size() + " reason"
                    + (plan.refusals().size() == 1 ? "" : "s") + ", nothing was planned:");
            plan.refusals().forEach(r -> {
                out.println("  - " + r.subject() + ": " + r.what() + ".");
                out.println("    What to do: " + r.whatToDo() + ".");
            });
            return;
        }
        plan.drift().forEach(d -> {
            out.println("drift: " + d.subject() + ": " + d.what() + ".");
            out.println("    What to do: " + d.whatToDo() + ".");
        });
        if (!plan.hasChanges()) {
            out.println(plan.drift().isEmpty() ? noChanges : "No steps to apply; the drift above needs a person.");
            return;
        }
        String current = null;
        for (Step s : plan.steps()) {
            if (!s.target().equals(current)) {
                current = s.target();
                out.println(current + ":");
            }
            // The class first and fixed-width, so a column of them reads down the plan beside the lines.
            out.println("  " + tag(s) + " " + s.line());
            s.requires().forEach(c -> out.println("      requires: " + c));
            s.readyWhen().forEach(c -> out.println("      ready when: " + c));
            if (withDiff) {
                s.diff().ifPresent(d -> printDiff(d, out));
            }
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        plan.steps().forEach(s -> counts.merge(s.kind().name().toLowerCase(), 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        counts.forEach((k, v) -> parts.add(v + " " + k));
        // Then how many of each safety class, least careful first: what 'watch' could run by itself.
        Map<io.etcdwright.engine.plan.SafetyClass, Integer> classes = new java.util.EnumMap<>(io.etcdwright.engine.plan.SafetyClass.class);
        plan.steps().forEach(s -> classes.merge(s.safety(), 1, Integer::sum));
        List<String> safety = new ArrayList<>();
        classes.forEach((c, v) -> safety.add(v + " " + c.label()));
        out.println("Plan: " + plan.steps().size() + " step" + (plan.steps().size() == 1 ? "" : "s") + " ("
                + String.join(", ", parts) + "; " + String.join(", ", safety) + ").");
        clientChanges(plan, out);
    }

    /** {@code [routine]}, padded to the widest class so the step lines start in one column. */
    static String tag(Step s) {
        return String.format("%-9s", "[" + s.safety().label() + "]");
    }

    /**
     * The flags of the cluster's clients the plan changes, each with what the operator does and when
     * (said once for the lines that share it): after the plan, and again as apply's last lines.
     */
    static void clientChanges(Plan plan, PrintWriter out) {
        String client = null;
        String when = null;
        for (ClientChange c : plan.clients()) {
            if (!c.client().equals(client)) {
                client = c.client();
                when = null;
                out.println(client + ": its etcd flags change (it reads them only at start, and no step restarts it):");
            }
            out.println("  " + c.line());
            if (!c.when().equals(when)) {
                when = c.when();
                out.println("      when: " + when);
            }
        }
    }

    /** A unified-style diff; good enough for short config files and units. */
    static void printDiff(FileDiff d, PrintWriter out) {
        out.println("      --- " + d.path() + " (on host)");
        out.println("      +++ " + d.path() + " (desired)");
        List<String> before = d.before().isEmpty() ? List.of() : List.of(d.before().split("\n"));
        List<String> after = d.after().isEmpty() ? List.of() : List.of(d.after().split("\n"));
        for (String line : before) {
            if (!after.contains(line)) {
                out.println("      -" + line);
            }
        }
        for (String line : after) {
            if (!before.contains(line)) {
                out.println("      +" + line);
            }
        }
    }

    static String json(Plan plan) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", JSON_VERSION);
        doc.put("cluster", plan.subject());
        doc.put("changes", plan.hasChanges());
        doc.put("fingerprint", plan.fingerprint());
        doc.put("warnings", plan.warnings());
        doc.put("refusals", plan.refusals());
        doc.put("drift", plan.drift());
        doc.put("steps", plan.steps());
        doc.put("clients", clientsJson(plan));
        return Json.write(doc);
    }

    /** {@code clients}: by client (kube_apiserver), each flag the plan changes with both sides and when. */
    static Map<String, Object> clientsJson(Plan plan) {
        Map<String, Object> clients = new LinkedHashMap<>();
        for (ClientChange c : plan.clients()) {
            Map<String, Object> change = new LinkedHashMap<>();
            change.put("host", c.host().orElse(null));
            change.put("flag", c.flag());
            change.put("before", c.before().orElse(null));
            change.put("after", c.after().orElse(null));
            change.put("holds_before", c.holdsBefore().orElse(null));
            change.put("holds_after", c.holdsAfter().orElse(null));
            change.put("when", c.when());
            @SuppressWarnings("unchecked")
            List<Object> changes = (List<Object>) clients.computeIfAbsent(c.client().replace('-', '_'), k -> new ArrayList<>());
            changes.add(change);
        }
        return clients;
    }
}
