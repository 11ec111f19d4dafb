package io.etcdwright.engine.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The plan as a value, like Terraform's: ordered steps with reasons and dependencies, computed
 * from facts without touching any host. Showing it and running it are separate acts.
 *
 * @param subject     what it is a plan for (a cluster name)
 * @param steps       in a valid execution order
 * @param refusals    every reason the plan cannot proceed; a refused plan has no steps
 * @param warnings    things the operator should know that are not steps
 * @param drift       differences from the desired state no step fixes (stale scheduled backups);
 *                    not part of the fingerprint: applying does nothing about them
 * @param clients     the flags of the cluster's clients (kube-apiserver) this plan changes, which the operator
 *                    gives them: derived from the same facts as the steps, so not part of the fingerprint either
 */
public record Plan(String subject, List<Step> steps, List<Refusal> refusals, List<String> warnings, List<Drift> drift,
                   List<ClientChange> clients) {
    public Plan {
        steps = List.copyOf(steps);
        clients = List.copyOf(clients);
        refusals = List.copyOf(refusals);
        warnings = List.copyOf(warnings);
        drift = List.copyOf(drift);
        checkOrder(steps);
        if (!refusals.isEmpty() && !steps.isEmpty()) {
            throw new IllegalStateException("a refused plan has no steps: " + refusals);
        }
        if (steps.isEmpty() && !clients.isEmpty()) {
            throw new IllegalStateException("a plan without steps changes no client's flags: " + clients);
        }
    }

    public Plan(String subject, List<Step> steps, List<Refusal> refusals, List<String> warnings, List<Drift> drift) {
        this(subject, steps, refusals, warnings, drift, List.of());
    }

    public Plan(String subject, List<Step> steps, List<Refusal> refusals, List<String> warnings) {
        this(subject, steps, refusals, warnings, List.of());
    }

    /** The same plan, with the client flags it changes. */
    public Plan withClients(List<ClientChange> changes) {
        return new Plan(subject, steps, refusals, warnings, drift, changes);
    }

    /** Nothing can be done safely: every reason is in {@link #refusals()}, and no step is planned. */
    public static Plan refused(String subject, List<Refusal> refusals, List<String> warnings) {
        return new Plan(subject, List.of(), refusals, warnings);
    }

    /**
     * The same plan, every step at least as careful as {@code floor} ({@link Step#atLeast}): for a
     * planner whose whole plan is of one class, including the host steps modules built for it (a
     * restore's config files are part of the restore).
     */
    public Plan atLeast(SafetyClass floor) {
        return new Plan(subject, steps.stream().map(s -> s.atLeast(floor)).toList(), refusals, warnings, drift);
    }

    public boolean hasChanges() {
        return !steps.isEmpty();
    }

    /** Steps to run, or drift no step fixes: what {@code plan --detailed-exitcode} reports as 2. */
    public boolean differs() {
        return hasChanges() || !drift.isEmpty();
    }

    public boolean isRefused() {
        return !refusals.isEmpty();
    }

    /**
     * Identifies the plan by what it would do and the facts it was made from: two plans with the
     * same fingerprint do the same thing to the same state. Built from structured parts (ids,
     * kinds, dependencies, digests of the facts observed and of the files to be written), never
     * from the prose a person reads, so rewording a reason does not make saved plans stale.
     * A step's safety class is left out: it is derived from the same facts (the observed digests
     * are in) by the planner's rules, and it decides only what {@code watch} may run unattended,
     * never what an apply does, so a saved plan a person applies is not made stale by an
     * etcdwright that classifies a step differently.
     */
    public String fingerprint() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Step s : steps) {
                String written = s.diff().map(d -> d.path() + "\0" + d.after()).orElse("");
                for (String part : List.of(s.id(), s.kind().name(), s.observed(), String.join(",", s.after()), written)) {
                    md.update(part.getBytes(StandardCharsets.UTF_8));
                    md.update((byte) 0);
                }
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void checkOrder(List<Step> steps) {
        Set<String> seen = new LinkedHashSet<>();
        for (Step s : steps) {
            for (String dependency : s.after()) {
                if (!seen.contains(dependency)) {
                    throw new IllegalStateException("step " + s.id() + " waits for " + dependency
                            + ", which is not planned before it");
                }
            }
            if (!seen.add(s.id())) {
                throw new IllegalStateException("step " + s.id() + " is planned twice");
            }
        }
    }
}
