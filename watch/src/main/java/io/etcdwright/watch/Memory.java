package io.etcdwright.watch;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the watch loop remembers between cycles and hands to {@link Policy} with each plan; the
 * policy itself remembers nothing, so the same memory and plan always give the same decision.
 *
 * @param downSince  each member host the loop saw down (etcd not running or not healthy), from the
 *                   first cycle it saw it so; the loop drops a host once it is up again
 * @param failures   steps that failed when run unattended, each under the digest of the facts it was
 *                   planned from; the loop drops them once a person's apply succeeds
 * @param suspension the cluster's suspension ({@code watch suspend}), read where every watcher sees it
 */
public record Memory(Map<String, Instant> downSince, List<FailedStep> failures, Optional<Suspension> suspension) {
    public static final Memory EMPTY = new Memory(Map.of(), List.of(), Optional.empty());

    public Memory {
        downSince = Map.copyOf(downSince);
        failures = List.copyOf(failures);
        Objects.requireNonNull(suspension, "suspension");
    }

    /**
     * A step that failed: its id and the digest of the facts it was planned from ({@link #digestOf}).
     * It is not tried again while a plan has the same step under the same digest.
     */
    public record FailedStep(String stepId, String digest, Instant at, String error) {
        public FailedStep {
            Objects.requireNonNull(stepId, "stepId");
            Objects.requireNonNull(digest, "digest");
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(error, "error");
        }

        /** The record the loop keeps when {@code step} of {@code plan} failed with {@code error} at {@code at}. */
        public static FailedStep of(Plan plan, Step step, Instant at, String error) {
            return new FailedStep(step.id(), digestOf(plan, step), at, error);
        }
    }

    /**
     * The facts a step was planned from: its observed digest, or, for a step that records none (a
     * restart, a wait for health), the plan's fingerprint, which changes with any step's facts.
     */
    public static String digestOf(Plan plan, Step step) {
        return step.observed().isEmpty() ? "plan:" + plan.fingerprint() : step.observed();
    }
}
