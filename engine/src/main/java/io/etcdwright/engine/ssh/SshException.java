package io.etcdwright.engine.ssh;

/**
 * A host could not be reached or used over SSH. The message is written for the operator: what
 * failed, on which host, and what to do about it; never a bare library stack trace.
 */
public final class SshException extends RuntimeException {
    /** Why a host is unusable; lets callers treat host-key problems apart from network ones. */
    public enum Reason {
        UNKNOWN_HOST_KEY, CHANGED_HOST_KEY, AUTHENTICATION, UNREACHABLE, TIMEOUT, PROTOCOL
    }

    private final String host;
    private final Reason reason;

    public SshException(String host, Reason reason, String message, Throwable cause) {
        super(host + ": " + message, cause);
        this.host = host;
        this.reason = reason;
    }

    public String host() {
        return host;
    }

    public Reason reason() {
        return reason;
    }

    /** The message without the host prefix, for places that print the host in a column. */
    public String detail() {
        return getMessage().substring(host.length() + 2);
    }
}
