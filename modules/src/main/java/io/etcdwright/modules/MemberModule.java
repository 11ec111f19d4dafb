package io.etcdwright.modules;

import io.etcdwright.engine.plan.Operation;
import io.etcdwright.engine.plan.Step;

import java.util.Optional;

/**
 * The contract every module keeps for its concern on one member's host, as Ansible's modules do:
 * from the desired state and the host's facts it finds the difference (with the reason, and for
 * files a before/after), and the step that closes it. Its operation reports what it really did:
 * OK when it found nothing to change when it ran, CHANGED otherwise.
 */
public interface MemberModule {
    /** Empty when the host already matches the desired state for this concern. */
    Optional<Change> plan(MemberContext member);

    /** Where a module's step goes in its host's preparation. */
    enum Placement {
        /** After the step of the module before it: files that build on each other. */
        IN_CHAIN,
        /**
         * Beside the chain, after only what was planned before it: work that needs the host set
         * up but nothing after (the release install streams while certificates and config land).
         */
        BESIDE_CHAIN
    }

    /**
     * A module's finding.
     *
     * @param step         the step, explained, without its dependencies (the planner orders it)
     * @param operation    what closes the difference
     * @param restartCause why a running etcd must restart to pick the change up; empty when it
     *                     does not need to (etcd re-reads it by itself, or it is not etcd's)
     * @param placement    in the host's chain, or beside it
     */
    record Change(Step.Builder step, Operation operation, Optional<String> restartCause, Placement placement) {
        public Change(Step.Builder step, Operation operation, Optional<String> restartCause) {
            this(step, operation, restartCause, Placement.IN_CHAIN);
        }
    }
}
