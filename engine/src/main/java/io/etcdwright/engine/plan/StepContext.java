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

    /**
     * A transfer the operator can watch: {@code totalBytes} is what will move, or -1 when unknown.
     * Report the bytes moved with {@link Progress#advanced}; close it when the transfer ends.
     */
    default Progress transfer(String what, long totalBytes) {
        return Progress.NONE;
    }

    /** A wait the operator can watch (time waited, and what it still waits on); close it when it ends. */
    default Progress waiting(String what) {
        return Progress.NONE;
    }

    /** Records a value this step produced (a member id from an add) for the steps after it. */
    void output(String key, String value);

    /**
     * A value an earlier step of this run produced; empty when that step did not run in this apply
     * (it ran in an earlier, interrupted one), so a reader must be able to find the value itself.
     */
    java.util.Optional<String> outputOf(String stepId, String key);
}
