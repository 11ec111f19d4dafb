package io.etcdwright.modules.restore;

/** A snapshot that must not be restored (damaged, cut short, not etcd's): said before any host is touched. */
public final class InvalidSnapshotException extends RuntimeException {
    public InvalidSnapshotException(String message) {
        super(message);
    }

    public InvalidSnapshotException(String message, Throwable cause) {
        super(message, cause);
    }
}
