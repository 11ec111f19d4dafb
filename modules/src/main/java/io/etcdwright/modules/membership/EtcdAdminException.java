package io.etcdwright.modules.membership;

/**
 * The admin client could not do what was asked. The message is written for the operator: what
 * failed, against which endpoints, and why in one line each; never a bare library stack trace.
 */
public class EtcdAdminException extends RuntimeException {
    public EtcdAdminException(String message) {
        super(message);
    }

    public EtcdAdminException(String message, Throwable cause) {
        super(message, cause);
    }
}
