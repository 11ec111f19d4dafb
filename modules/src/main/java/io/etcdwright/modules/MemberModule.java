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

    /**
     * A module's finding.
     *
     * @param step         the step, explained, without its dependencies (the planner orders it)
     * @param operation    what closes the difference
     * @param restartCause why a running etcd must restart to pick the change up; empty when it
     *                     does not need to (etcd re-reads it by itself, or it is not etcd's)
     */
    record Change(Step.Builder step, Operation operation, Optional<String> restartCause) {
    }
}
