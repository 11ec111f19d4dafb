package io.etcdwright.engine.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One explained change in a plan.
 *
 * @param id             unique and stable across runs with the same facts, e.g. {@code h1/install}
 * @param host           the inventory host it changes; empty for cluster-wide steps
 * @param module         the module that planned it
 * @param kind           create, update, delete or action
 * @param safety         how safe it is to run with no person watching ({@link SafetyClass}), decided by
 *                       the planner that builds it from the facts; shown by plan, read by watch's policy
 * @param summary        what it does, e.g. "install etcd 3.5.16"
 * @param reason         why, from the facts, e.g. "not installed"
 * @param after          ids of the steps that must succeed first (set from the steps themselves,
 *                       see {@link Builder#after(Step...)})
 * @param observed       a digest of the facts the step was planned from; a saved plan is stale when
 *                       it no longer matches
 * @param diff           before/after of a file, when the step writes one
 * @param preconditions  checked when the step runs, before it does anything
 * @param postconditions what "done" means: checked (and waited for) after it ran
 * @param operation      the work; not part of a saved plan
 */
public record Step(String id, Optional<String> host, String module, ChangeKind kind, SafetyClass safety, String summary,
                   String reason, List<String> after, String observed, Optional<FileDiff> diff,
                   @JsonIgnore List<Condition> preconditions, @JsonIgnore List<Condition> postconditions,
                   @JsonIgnore Operation operation) {
    public Step {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(safety, "safety");
        after = List.copyOf(after);
        preconditions = List.copyOf(preconditions);
        postconditions = List.copyOf(postconditions);
        Objects.requireNonNull(operation, "operation");
    }

    public String target() {
        return host.orElse("cluster");
    }

    /**
     * The same step, at least as careful as {@code floor}: for a planner whose whole plan is of one
     * class (a restore is {@code never} to the last step), or that knows more than the module that
     * built a step (a host's files written for a member that re-joins are part of its repair).
     */
    public Step atLeast(SafetyClass floor) {
        SafetyClass raised = safety.stricter(floor);
        return raised == safety ? this : new Step(id, host, module, kind, raised, summary, reason, after, observed, diff,
                preconditions, postconditions, operation);
    }

    /** The plan line: {@code + install etcd 3.5.16 (not installed)}. */
    public String line() {
        return kind.symbol() + " " + summary + (reason.isEmpty() ? "" : " (" + reason + ")");
    }

    /** What must hold when it runs, as the plan shows it. */
    @JsonProperty("requires")
    public List<String> requires() {
        return preconditions.stream().map(Condition::description).toList();
    }

    /** When it counts as done, as the plan shows it. */
    @JsonProperty("ready_when")
    public List<String> readyWhen() {
        return postconditions.stream().map(Condition::description).toList();
    }

    /** Starts a step; the builder keeps plans readable where they are written. */
    public static Builder on(String host, String module, String idSuffix) {
        return new Builder(Optional.of(host), module, host + "/" + idSuffix);
    }

    public static Builder cluster(String module, String idSuffix) {
        return new Builder(Optional.empty(), module, "cluster/" + idSuffix);
    }

    public static final class Builder {
        private final Optional<String> host;
        private final String module;
        private String id;
        private ChangeKind kind = ChangeKind.UPDATE;
        /** No default: a step nobody classified must not reach a plan the watcher reads ({@link #does}). */
        private SafetyClass safety;
        private String summary = "";
        private String reason = "";
        private final List<String> after = new ArrayList<>();
        private String observed = "";
        private Optional<FileDiff> diff = Optional.empty();
        private final List<Condition> preconditions = new ArrayList<>();
        private final List<Condition> postconditions = new ArrayList<>();

        private Builder(Optional<String> host, String module, String id) {
            this.host = host;
            this.module = module;
            this.id = id;
        }

        /**
         * The same step under the id {@code <id>-<tag>}: a plan that does one thing twice on a host
         * (a patch hop, then a minor upgrade: two installs, two restarts) names each time.
         */
        public Builder tagged(String tag) {
            id = id + "-" + tag;
            return this;
        }

        /** The summary said so far, and then {@code more}: "write /etc/etcd/etcd.conf.yml for etcd 3.6.16". */
        public Builder summaryThen(String more) {
            summary = summary + more;
            return this;
        }

        public Builder kind(ChangeKind value) {
            kind = value;
            return this;
        }

        /** How safe it is to run unattended; every step must say ({@link #does} refuses one that does not). */
        public Builder safety(SafetyClass value) {
            safety = Objects.requireNonNull(value, "safety");
            return this;
        }

        /**
         * At least as careful as {@code floor}: the class said so far, or {@code floor} when it is
         * stricter. A floor never classifies a step nobody classified ({@link #does} still refuses it).
         */
        public Builder atLeast(SafetyClass floor) {
            safety = safety == null ? null : safety.stricter(floor);
            return this;
        }

        public Builder summary(String value) {
            summary = value;
            return this;
        }

        public Builder reason(String value) {
            reason = value;
            return this;
        }

        /** Runs only after these steps have succeeded. */
        public Builder after(Step... steps) {
            return after(Arrays.asList(steps));
        }

        public Builder after(Collection<Step> steps) {
            steps.forEach(s -> {
                if (!after.contains(s.id())) {
                    after.add(s.id());
                }
            });
            return this;
        }

        public Builder observed(String value) {
            observed = value;
            return this;
        }

        public Builder diff(FileDiff value) {
            diff = Optional.ofNullable(value);
            return this;
        }

        public Builder requires(Condition condition) {
            preconditions.add(condition);
            return this;
        }

        public Builder readyWhen(Condition condition) {
            postconditions.add(condition);
            return this;
        }

        public Step does(Operation operation) {
            if (safety == null) {
                throw new IllegalStateException("step " + id + " has no safety class: the planner that builds it must say"
                        + " how safe it is to run unattended (Step.Builder.safety)");
            }
            return new Step(id, host, module, kind, safety, summary, reason, after, observed, diff, preconditions, postconditions,
                    operation);
        }
    }
}
