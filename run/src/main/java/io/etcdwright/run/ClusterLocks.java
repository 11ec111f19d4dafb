package io.etcdwright.run;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.lock.ClusterLockedException;
import io.etcdwright.modules.lock.LockHolder;
import io.etcdwright.modules.lock.WorkstationLock;
import io.etcdwright.modules.membership.EtcdAdminClient;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.state.StoreLock;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The lock a command that changes a cluster holds while it runs (apply, destroy, restore, defrag;
 * never plan): first the workstation's lock file, which decides between runs on this workstation
 * even when the cluster does not run yet, then the key in the cluster's own etcd, which decides
 * between workstations. A cluster whose etcd does not answer (not created yet, down, without
 * quorum, refusing writes with a NOSPACE alarm) is locked on the workstation only, and the command
 * says so.
 */
public final class ClusterLocks implements AutoCloseable {
    /**
     * One call to etcd while taking the lock. A running cluster answers in milliseconds, and one that
     * does not run refuses the connection at once; but the first call of a cold JVM on a busy
     * workstation carries the TLS handshakes, which can take seconds, and a call that ran out of time
     * would leave the run locked on this workstation only, unseen by another workstation's run.
     */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final WorkstationLock workstation;
    private final EtcdAdminClient client;
    private final ClusterLock etcd;
    private final Health.Access access;
    private StoreLock store;

    private ClusterLocks(WorkstationLock workstation, EtcdAdminClient client, ClusterLock etcd, Health.Access access) {
        this.workstation = workstation;
        this.client = client;
        this.etcd = etcd;
        this.access = access;
    }

    private ClusterLocks withStore(StoreLock lock) {
        this.store = lock;
        return this;
    }

    /**
     * Takes both, waiting up to {@code wait} for either.
     *
     * @throws ClusterLockedException naming the holder, having taken neither
     */
    public static ClusterLocks take(DesiredState desired, String command, LockSettings options, Consumer<String> out) {
        ReadOnlyRunner.refuse(desired, command);
        if (options.noLock()) {
            out.accept("Lock: not taken (--no-lock)");
            SharedStates.refreshForWrite(desired);
            return new ClusterLocks(null, null, null, null);
        }
        return take(desired, command, options.waitFor(), out);
    }

    public static ClusterLocks take(DesiredState desired, String command, Duration wait, Consumer<String> out) {
        ReadOnlyRunner.refuse(desired, command);
        String cluster = desired.spec().name();
        LockHolder holder = LockHolder.thisProcess(command, Instant.now());
        long deadline = System.nanoTime() + wait.toNanos();
        WorkstationLock workstation;
        try {
            workstation = WorkstationLock.take(EtcdwrightHome.lockFile(cluster), holder, wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the lock", e);
        }
        StoreLock stateLock = null;
        try {
            stateLock = storeLock(desired, holder, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), out);
            // Under the state store's lock: the cache is made the store's newest before anything is planned from it.
            SharedStates.refreshForWrite(desired);
        } catch (RuntimeException e) {
            if (stateLock != null) {
                stateLock.close();
            }
            workstation.close();
            throw e;
        }
        try {
            return take(desired, holder, deadline, workstation, stateLock != null, out).withStore(stateLock);
        } catch (RuntimeException e) {
            if (stateLock != null) {
                stateLock.close();
            }
            throw e;
        }
    }

    /**
     * With a state store, its own lock: the only one that decides between workstations before the
     * cluster's etcd runs (its first create), and the guard of the state itself afterwards.
     */
    private static StoreLock storeLock(DesiredState desired, LockHolder holder, Duration wait, Consumer<String> out) {
        Optional<io.etcdwright.modules.state.SharedState> state = SharedStates.open(desired);
        if (state.isEmpty()) {
            return null;
        }
        StoreLock lock = StoreLock.take(state.get().store(), desired.spec().name(), holder, wait, out);
        out.accept("Lock: held in the state store (" + state.get().store().describe(StoreLock.key(desired.spec().name()))
                + ", renewed every " + StoreLock.RENEW_EVERY.toSeconds() + " s, " + StoreLock.TTL.toSeconds()
                + " s TTL; released at the end)");
        return lock;
    }

    private static ClusterLocks take(DesiredState desired, LockHolder holder, long deadline, WorkstationLock workstation,
                                     boolean storeHeld, Consumer<String> out) {
        String cluster = desired.spec().name();
        // With the state store's lock held, that lock decides between workstations when etcd cannot.
        Optional<Health.Access> access = access(desired);
        if (access.isEmpty()) {
            out.accept("Lock: held on this workstation (" + workstation.file() + ")" + (storeHeld ? " and in the state store" : "")
                    + "; the cluster has no client certificate yet");
            return new ClusterLocks(workstation, null, null, null);
        }
        EtcdAdminClient client = null;
        try {
            List<String> endpoints = Endpoints.clientUrls(desired.members(), Layouts.of(desired));
            client = EtcdAdminClient.connect(endpoints, access.get().caCert(), access.get().clientCert(),
                    access.get().clientKey(), CALL_TIMEOUT);
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            ClusterLock etcd = ClusterLock.take(client.jetcd(), cluster, holder, left, CALL_TIMEOUT, dead -> out.accept(
                    "Lock: taken over from " + dead.holder().map(h -> h.describe(Instant.now())).orElse("?")
                            + ": that process is gone from this machine, so its lease was not waited out"),
                    busy -> out.accept("Lock: held by " + busy.holder().map(h -> h.describe(Instant.now())).orElse("another run")
                            + "; waiting up to " + left.toSeconds() + " s (--lock-timeout)"));
            out.accept("Lock: held (key " + ClusterLock.key(cluster) + " in the cluster's etcd, lease "
                    + Long.toHexString(etcd.leaseId()) + " kept alive, " + ClusterLock.TTL.toSeconds()
                    + " s TTL; released at the end)");
            return new ClusterLocks(workstation, client, etcd, access.get());
        } catch (ClusterLock.Unavailable | EtcdAdminException e) {
            closeQuietly(client);
            out.accept("Lock: held on this workstation" + (storeHeld ? "" : " only") + " (" + workstation.file() + ")"
                    + (storeHeld ? " and in the state store" : "") + ": the cluster's etcd did not"
                    + " take the lock (" + e.getMessage() + ")");
            return new ClusterLocks(workstation, null, null, null);
        } catch (ClusterLockedException e) {
            closeQuietly(client);
            workstation.close();
            throw e;
        } catch (InterruptedException e) {
            closeQuietly(client);
            workstation.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the lock", e);
        } catch (RuntimeException e) {
            closeQuietly(client);
            workstation.close();
            throw e;
        }
    }

    /** The admin client's files, when the workstation has them (not before the cluster's first apply). */
    public static Optional<Health.Access> access(DesiredState desired) {
        ClusterPki pki = Pkis.of(desired);
        Health.Access access = Endpoints.healthAccess(pki);
        boolean present = Files.isReadable(access.caCert()) && Files.isReadable(access.clientCert())
                && Files.isReadable(access.clientKey());
        return present ? Optional.of(access) : Optional.empty();
    }

    private static void closeQuietly(EtcdAdminClient client) {
        if (client != null) {
            client.close();
        }
    }

    @Override
    public void close() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            closeLocks();
        }
    }

    private void closeLocks() {
        try {
            if (etcd != null) {
                etcd.release(client.endpoints(), member -> EtcdAdminClient.connect(List.of(member), access.caCert(),
                        access.clientCert(), access.clientKey(), CALL_TIMEOUT).jetcd());
            }
        } finally {
            closeQuietly(client);
            if (workstation != null) {
                workstation.close();
            }
        }
    }
}
