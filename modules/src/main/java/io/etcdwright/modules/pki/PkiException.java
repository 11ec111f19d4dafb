package io.etcdwright.modules.pki;

/**
 * A problem an operator has to fix: an unreadable file, a key that does not match, a CA that
 * cannot sign. The message is meant to be printed as is, so it names the file and the problem.
 */
public final class PkiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PkiException(String message) {
        super(message);
    }

    public PkiException(String message, Throwable cause) {
        super(message, cause);
    }
}
