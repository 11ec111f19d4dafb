package io.etcdwright.modules.state;

/**
 * The shared state cannot be used as asked: unreachable, undecryptable, changed by someone without
 * the key, moved on by another workstation. The message says what happened, that nothing was
 * overwritten, and what the operator can do.
 */
public final class StateException extends RuntimeException {
    public StateException(String message) {
        super(message);
    }

    public StateException(String message, Throwable cause) {
        super(message, cause);
    }
}
