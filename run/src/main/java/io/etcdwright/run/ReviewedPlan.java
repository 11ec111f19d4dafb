package io.etcdwright.run;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.config.EtcdConfigFile;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A plan a person reviewed and saved ({@code plan --out}, {@code rollout plan --out}): what its apply
 * must find again. The apply plans afresh, and the fresh plan is applied only when its fingerprint
 * ({@link Plan#fingerprint}: the steps and the facts they were made from) is the saved one, as
 * Terraform refuses a stale plan; a stale one is never run.
 *
 * @param fingerprint     the saved plan's fingerprint
 * @param newClusterToken the token a plan that bootstraps a new cluster writes into the members'
 *                        config files: drawn at random by each plan, so it is kept with the saved
 *                        plan, and its apply plans with it (else every saved create would be stale)
 */
public record ReviewedPlan(String fingerprint, Optional<String> newClusterToken) {
    /** A token as etcdwright writes them: what a plan file read back may hold (it goes into the members' config files). */
    public static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.-]{0,99}");

    /** What {@code plan}, shown to the person who saves it, commits its apply to. */
    public static ReviewedPlan of(Plan plan) {
        return new ReviewedPlan(plan.fingerprint(), plan.steps().stream().flatMap(s -> s.diff().stream())
                .filter(d -> d.path().equals(EtcdLayout.CONFIG_FILE))
                .flatMap(d -> EtcdConfigFile.tokenIn(d.after()).stream())
                .findFirst());
    }

    /** {@code fresh}, the plan made now, is the reviewed one: the same steps from the same facts. */
    public boolean matches(Plan fresh) {
        return fresh.fingerprint().equals(fingerprint);
    }

    /**
     * Why {@code fresh}, the plan made now, is not the reviewed one (what it would do instead), or
     * empty when it is: the same steps from the same facts.
     */
    public Optional<String> staleness(Plan fresh) {
        if (matches(fresh)) {
            return Optional.empty();
        }
        if (fresh.isRefused()) {
            return Optional.of("the hosts changed since the plan was made; now the plan is refused:\n  "
                    + String.join("\n  ", fresh.refusals().stream().map(Refusal::line).toList()));
        }
        if (!fresh.hasChanges()) {
            return Optional.of("the hosts changed since the plan was made; now there is nothing to do");
        }
        return Optional.of("the hosts changed since the plan was made; now the plan would be:\n  "
                + String.join("\n  ", fresh.steps().stream().map(s -> s.target() + ": " + s.line()).toList()));
    }
}
