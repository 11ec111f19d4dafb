package io.etcdwright.engine.plan;

import java.util.Objects;

/**
 * A way the world differs from the desired state that no step of the plan can fix by itself
 * (scheduled backups that are not being made): shown with the plan, and a change for
 * {@code plan --detailed-exitcode}, so monitoring that watches the exit code sees it.
 *
 * @param kind     a stable name for scripts and tests ("backup-stale")
 * @param subject  what it is about
 * @param what     what differs, from the facts
 * @param whatToDo where to look
 */
public record Drift(String kind, String subject, String what, String whatToDo) {
    public Drift {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(whatToDo, "whatToDo");
    }
}
