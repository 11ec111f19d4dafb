package io.etcdwright.engine.plan;

import java.util.Objects;

/**
 * A reason the plan cannot proceed, as data: collected with every other reason and shown together,
 * each with what the operator can do, so that one run tells the whole story.
 *
 * @param kind     a stable name for scripts and tests ("unreachable-host", "quorum-at-risk", ...)
 * @param subject  what it is about: a host, a member or the cluster
 * @param what     what is wrong, from the facts
 * @param whatToDo what the operator can do about it
 */
public record Refusal(String kind, String subject, String what, String whatToDo) {
    public Refusal {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(whatToDo, "whatToDo");
    }

    /** "h2: unreachable (connection refused). What to do: ..." */
    public String line() {
        return subject + ": " + what + ". What to do: " + whatToDo;
    }
}
