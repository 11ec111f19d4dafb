package io.etcdwright.engine.plan;

/** A step's condition did not hold when it ran; the message says why and what the operator can do. */
public final class ConditionNotMetException extends RuntimeException {
    public ConditionNotMetException(String message) {
        super(message);
    }
}
