package io.etcdwright.engine.plan;

import io.etcdwright.engine.ssh.HostSession;

/** What an operation may use while it runs. */
public interface StepContext {
    /** The session of the step's own host (steps without a host have none). */
    HostSession session();

    /** Any host's session, for cluster-wide steps such as health checks. */
    HostSession session(String host);

    /** A line of progress detail for the operator (a wait, a retry). */
    void note(String message);
}
