package io.etcdwright.modules.lock;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcdwright.modules.membership.Failures;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A cluster's lock held in its own etcd: the key {@code /etcdwright/lock/NAME}, created only if absent
 * (one transaction, so of two takers exactly one wins), attached to a lease that a thread of the
 * holder keeps alive. When the holder ends it deletes the key and revokes the lease; when it dies,
 * the lease runs out {@link #TTL} later and etcd deletes the key itself.
 *
 * <p>Only the taking needs a write: keeping the lease alive is no raft proposal, so it goes on while
 * etcdwright's write fence (a NOSPACE alarm) refuses puts, and the fence is raised after the lock is
 * taken. The key is part of the keyspace, so snapshots and backups carry it; one restored from a
 * backup taken while a lock was held expires {@link #TTL} after the restored cluster elects a leader.
 */
public final class ClusterLock implements AutoCloseable {
    /** The reserved prefix; nothing else of etcdwright's lives in the keyspace. */
    public static final String PREFIX = "/etcdwright/lock/";
    /** How long a dead holder keeps the lock: long enough for a busy workstation's keepalives, short enough to wait out. */
    public static final Duration TTL = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofSeconds(1);

    private final Client client;
    private final ByteSequence key;
    private final ByteSequence value;
    private final long leaseId;
    private final Duration callTimeout;
    private final ScheduledExecutorService keepalive;
    private final AtomicInteger failedKeepalives = new AtomicInteger();

    private ClusterLock(Client client, ByteSequence key, ByteSequence value, long leaseId, Duration callTimeout) {
        this.client = client;
        this.key = key;
        this.value = value;
        this.leaseId = leaseId;
        this.callTimeout = callTimeout;
        this.keepalive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "etcdwright-lock-keepalive");
            t.setDaemon(true);
            return t;
        });
        long every = TTL.toMillis() / 3;
        keepalive.scheduleWithFixedDelay(this::keepAlive, every, every, TimeUnit.MILLISECONDS);
    }

    public static String key(String cluster) {
        return PREFIX + cluster;
    }

    /** The etcd did not answer (down, no quorum, refusing writes): the lock cannot be had there. */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Takes the lock, waiting up to {@code wait} (zero: not at all) while another holds it.
     *
     * @throws ClusterLockedException naming the holder when it is still held after {@code wait}
     * @throws Unavailable            when etcd does not answer or does not take the write
     */
    public static ClusterLock take(Client client, String cluster, LockHolder holder, Duration wait, Duration callTimeout)
            throws InterruptedException {
        return take(client, cluster, holder, wait, callTimeout, h -> { }, h -> { });
    }

    /**
     * As {@link #take(Client, String, LockHolder, Duration, Duration)}; a lock whose holder is
     * {@linkplain LockHolder#provablyGone provably gone} (killed on this machine) is removed and taken,
     * told to {@code takenOver} first; {@code waiting} hears of the holder once, when the lock is
     * found held and there is time left to wait.
     */
    public static ClusterLock take(Client client, String cluster, LockHolder holder, Duration wait, Duration callTimeout,
                                   java.util.function.Consumer<Held> takenOver, java.util.function.Consumer<Held> waiting)
            throws InterruptedException {
        boolean told = false;
        ByteSequence key = bytes(key(cluster));
        ByteSequence value = bytes(holder.toJson());
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            long lease = call(() -> client.getLeaseClient().grant(TTL.toSeconds()), callTimeout, "grant a lease").getID();
            TxnResponse txn;
            try {
                txn = call(() -> client.getKVClient().txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(key, value, PutOption.builder().withLeaseId(lease).build()))
                        .Else(Op.get(key, GetOption.DEFAULT))
                        .commit(), callTimeout, "create the lock key");
            } catch (Unavailable e) {
                revokeQuietly(client, lease, callTimeout);
                throw e;
            }
            if (txn.isSucceeded()) {
                return new ClusterLock(client, key, value, lease, callTimeout);
            }
            revokeQuietly(client, lease, callTimeout);
            List<KeyValue> held = txn.getGetResponses().isEmpty() ? List.of() : txn.getGetResponses().get(0).getKvs();
            Optional<Held> dead = held.stream().findFirst().map(kv -> held(key(cluster), kv))
                    .filter(h -> h.holder().map(x -> x.provablyGone(holder.processSpace())).orElse(false));
            if (dead.isPresent()) {
                // Killed on this very machine (its process is gone): no need to wait out its lease.
                if (remove(client, dead.get(), callTimeout)) {
                    takenOver.accept(dead.get());
                }
                continue;
            }
            if (System.nanoTime() < deadline && !told && !held.isEmpty()) {
                waiting.accept(held(key(cluster), held.get(0)));
                told = true;
            }
            if (System.nanoTime() >= deadline) {
                throw new ClusterLockedException(lockedMessage(cluster, held.isEmpty() ? "" : held.get(0).getValue().toString(StandardCharsets.UTF_8)));
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    static String lockedMessage(String cluster, String heldValue) {
        String who = LockHolder.parse(heldValue).map(h -> h.describe(Instant.now()))
                .orElse("a holder etcdwright cannot read (" + heldValue.length() + " bytes)");
        return "cluster " + cluster + " is locked by " + who + " (key " + key(cluster) + " in the cluster's etcd)."
                + " Nothing was changed. Wait for it to finish, or pass --lock-timeout DURATION to wait here; if that"
                + " process died, its lease ends " + TTL.toSeconds() + " s after its last keepalive and the lock with it;"
                + " 'etcdwright unlock' removes it at once (only when you know it is not running)";
    }

    /** The lock key as it is now: what {@code etcdwright unlock} shows, then removes. */
    public record Held(String key, String value, Optional<LockHolder> holder, long leaseId, long modRevision) {
    }

    /** The lock key, if any. */
    public static Optional<Held> current(Client client, String cluster, Duration callTimeout) {
        List<KeyValue> kvs = call(() -> client.getKVClient().get(bytes(key(cluster))), callTimeout, "read the lock key").getKvs();
        if (kvs.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(held(key(cluster), kvs.get(0)));
    }

    /**
     * The lock key, if any, read over etcd's HTTP gateway with a client already open: what a status
     * or a rollout's plan shows. A cold gRPC channel per cluster, eight clusters at once on a busy
     * workstation, took more than the call's 10 s to answer its first read.
     */
    public static Optional<Held> current(io.etcdwright.modules.membership.EtcdHttp http, String cluster) {
        String key = key(cluster);
        return http.get(key).map(kv -> new Held(key, kv.value(), LockHolder.parse(kv.value()), kv.lease(), kv.modRevision()));
    }

    private static Held held(String key, KeyValue kv) {
        String value = kv.getValue().toString(StandardCharsets.UTF_8);
        return new Held(key, value, LockHolder.parse(value), kv.getLease(), kv.getModRevision());
    }

    /**
     * Deletes the key if it is still the one shown (not taken again meanwhile), and revokes its lease.
     *
     * @return whether it was deleted (false: it changed or went since it was read)
     */
    public static boolean remove(Client client, Held held, Duration callTimeout) {
        ByteSequence key = bytes(held.key());
        boolean deleted = call(() -> client.getKVClient().txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(held.modRevision())))
                .Then(Op.delete(key, DeleteOption.DEFAULT))
                .commit(), callTimeout, "delete the lock key").isSucceeded();
        if (deleted && held.leaseId() != 0) {
            revokeQuietly(client, held.leaseId(), callTimeout);
        }
        return deleted;
    }

    public long leaseId() {
        return leaseId;
    }

    /** Keepalives that failed (etcd down for a restart or a restore): the lease outlives a few of them. */
    public int failedKeepalives() {
        return failedKeepalives.get();
    }

    private void keepAlive() {
        try {
            // Bounded well inside the lease: a keepalive that hangs must not let the next come too late.
            Duration bound = Duration.ofMillis(Math.min(callTimeout.toMillis(), TTL.toMillis() / 4));
            call(() -> client.getLeaseClient().keepAliveOnce(leaseId), bound, "keep the lock's lease alive");
        } catch (RuntimeException e) {
            failedKeepalives.incrementAndGet();
        }
    }

    /**
     * Deletes the key while it is still this holding's (a restore may have brought back another) and
     * revokes the lease. Best effort: a cluster that was destroyed or is down cannot be told, and its
     * lease then ends on its own.
     *
     * @return whether etcd confirmed the release
     */
    public boolean release() {
        keepalive.shutdownNow();
        return releaseThrough(client);
    }

    /**
     * As {@link #release()}; when the shared client could not do it, through each member alone until
     * one does. The shared client spreads its calls over every member, and a call that lands on a
     * member cut off from its peers (reachable from the workstation, unable to reach a leader) runs out
     * of time; the lock would then outlive the run by its whole TTL, and the operator's next command,
     * started at once, would be refused as locked by a run that has ended.
     *
     * @param members one client URL per member, tried in this order
     * @param alone   opens a client that speaks to the one member given; closed here after its call
     * @return whether etcd confirmed the release
     */
    public boolean release(List<String> members, Function<String, Client> alone) {
        if (release()) {
            return true;
        }
        for (String member : members) {
            Client one;
            try {
                one = alone.apply(member);
            } catch (RuntimeException e) {
                continue; // That member cannot even be dialled; another may answer.
            }
            try (one) {
                if (releaseThrough(one)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean releaseThrough(Client through) {
        try {
            call(() -> through.getKVClient().txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(value)))
                    .Then(Op.delete(key, DeleteOption.DEFAULT))
                    .commit(), callTimeout, "delete the lock key");
            call(() -> through.getLeaseClient().revoke(leaseId), callTimeout, "revoke the lock's lease");
            return true;
        } catch (Unavailable e) {
            return false;
        }
    }

    @Override
    public void close() {
        release();
    }

    private static void revokeQuietly(Client client, long lease, Duration timeout) {
        try {
            call(() -> client.getLeaseClient().revoke(lease), timeout, "revoke a lease");
        } catch (RuntimeException e) {
            // It ends on its own after TTL.
        }
    }

    /**
     * How many times a call refused by a learner is made again. The client spreads its calls over
     * the members round-robin, and a learner (a member joining, as an interrupted grow leaves it)
     * refuses leases and writes without acting on them: the same call is then made again, and lands
     * on another member. A cluster has at most seven members.
     */
    private static final int LEARNER_REFUSALS = 7;

    private static <T> T call(Supplier<CompletableFuture<T>> call, Duration timeout, String what) {
        for (int refusals = 0; ; refusals++) {
            try {
                return once(call.get(), timeout, what);
            } catch (Unavailable e) {
                if (refusals >= LEARNER_REFUSALS || !Failures.refusedByLearner(e.getCause())) {
                    throw e;
                }
            }
        }
    }

    private static <T> T once(CompletableFuture<T> future, Duration timeout, String what) {
        try {
            return future.get(timeout.toMillis() + 250, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new Unavailable("cannot " + what + ": " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new Unavailable("cannot " + what + ": no answer within " + timeout.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted", e);
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
