package io.etcdwright.modules.lock;

/** Another run holds the cluster's lock: the message names it, since when, and what the operator can do. */
public final class ClusterLockedException extends RuntimeException {
    public ClusterLockedException(String message) {
        super(message);
    }
}
