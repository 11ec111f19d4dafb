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
 * @param unreachable hosts whose facts could not be gathered, with the reason; a plan with any
 *                    is shown but never applied
 * @param warnings    things the operator should know that are not steps
 */
public record Plan(String subject, List<Step> steps, List<String> unreachable, List<String> warnings) {
    public Plan {
        steps = List.copyOf(steps);
        unreachable = List.copyOf(unreachable);
        warnings = List.copyOf(warnings);
        checkOrder(steps);
    }

    public boolean hasChanges() {
        return !steps.isEmpty();
    }

    /**
     * Identifies the plan by what it would do and the facts it was made from: two plans with the
     * same fingerprint do the same thing to the same state.
     */
    public String fingerprint() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Step s : steps) {
                for (String part : List.of(s.id(), s.kind().name(), s.summary(), s.reason(), s.observed(),
                        String.join(",", s.after()))) {
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
