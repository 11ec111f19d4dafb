package io.etcdwright.modules.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.backup.store.VersionConflictException;
import io.etcdwright.modules.lock.ClusterLockedException;
import io.etcdwright.modules.lock.LockHolder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The state store's own lock ({@code NAME/lock.json}): what decides between workstations before
 * the cluster's etcd can hold a lock (the first create), and beside it afterwards, since it guards
 * the state itself. Taken by creating the object only if absent; kept by rewriting it every
 * {@link #RENEW_EVERY} with a new expiry, each a compare-and-swap on the version this holder wrote;
 * released by deleting it only while it is still that version. A holder that died leaves an object
 * whose expiry passes {@link #TTL} after its last renewal; a later taker replaces it (again by
 * compare-and-swap, so of two takers one wins), at once when the holder provably ran on this
 * machine and is gone ({@link LockHolder#provablyGone}).
 */
public final class StoreLock implements AutoCloseable {
    public static final Duration TTL = Duration.ofSeconds(60);
    public static final Duration RENEW_EVERY = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Store store;
    private final String key;
    private final LockHolder holder;
    private final Thread renewer;
    private volatile String version;
    private volatile boolean lost;
    private volatile boolean closed;

    private StoreLock(Store store, String key, LockHolder holder, String version, Consumer<String> notes) {
        this.store = store;
        this.key = key;
        this.holder = holder;
        this.version = version;
        this.renewer = new Thread(() -> renew(notes), "state-lock-renewer");
        renewer.setDaemon(true);
        renewer.start();
    }

    public static String key(String cluster) {
        return cluster + "/lock.json";
    }

    /**
     * Takes the lock, waiting up to {@code wait} for a holder to finish.
     *
     * @throws ClusterLockedException naming the holder, having taken nothing
     */
    public static StoreLock take(Store store, String cluster, LockHolder holder, Duration wait, Consumer<String> notes) {
        String key = key(cluster);
        long deadline = System.nanoTime() + wait.toNanos();
        boolean waitSaid = false;
        while (true) {
            Instant now = Instant.now();
            try {
                String v = store.putIfVersion(key, body(holder, now.plus(TTL)), Optional.empty());
                return new StoreLock(store, key, holder, v, notes);
            } catch (VersionConflictException taken) {
                Optional<Store.Versioned> current;
                try {
                    current = read(store, key);
                } catch (IOException e) {
                    throw unavailable(store, key, e);
                }
                if (current.isEmpty()) {
                    continue; // released meanwhile
                }
                Held held = Held.parse(current.get().content());
                boolean expired = held.expires.map(e -> e.isBefore(now)).orElse(true);
                boolean gone = held.holder.map(h -> h.provablyGone(LockHolder.thisProcessSpace())).orElse(false);
                if (expired || gone) {
                    try {
                        String v = store.putIfVersion(key, body(holder, now.plus(TTL)), Optional.of(current.get().version()));
                        notes.accept("Lock: took over the state store's lock from " + held.describe(now) + ": "
                                + (gone ? "that process is gone from this machine" : "it was not renewed for " + TTL.toSeconds()
                                + " s (its holder stopped without releasing it)"));
                        return new StoreLock(store, key, holder, v, notes);
                    } catch (VersionConflictException raced) {
                        continue; // another taker won: look again
                    } catch (IOException e) {
                        throw unavailable(store, key, e);
                    }
                }
                if (System.nanoTime() >= deadline) {
                    throw new ClusterLockedException("cluster " + cluster + " is locked by " + held.describe(now) + " (the state"
                            + " store's lock, " + store.describe(key) + "). Nothing was changed. Wait for it to finish, or pass"
                            + " --lock-timeout DURATION to wait here; if that process died, its lock ends "
                            + held.expires.map(e -> "at " + e + " (" + TTL.toSeconds() + " s after its last renewal)")
                                    .orElse("once its expiry passes")
                            + "; 'etcdwright unlock' removes it at once (only when you know it is not running)");
                }
                if (!waitSaid) {
                    notes.accept("Lock: the state store's lock is held by " + held.describe(now) + "; waiting (--lock-timeout)");
                    waitSaid = true;
                }
                sleep();
            } catch (IOException e) {
                throw unavailable(store, key, e);
            }
        }
    }

    private static StateException unavailable(Store store, String key, IOException e) {
        return new StateException("cannot take the state store's lock at " + store.describe(key) + ": " + e.getMessage()
                + ". Nothing was changed. Run again once the store answers", e);
    }

    private static Optional<Store.Versioned> read(Store store, String key) throws IOException {
        return store.read(key);
    }

    private static void sleep() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the state store's lock", e);
        }
    }

    static byte[] body(LockHolder holder, Instant expires) {
        try {
            ObjectNode n = (ObjectNode) JSON.readTree(holder.toJson());
            n.put("expires", expires.toString());
            return (n.toString() + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the lock's JSON", e);
        }
    }

    /** What a lock object says: who holds it and until when, if it says so. */
    public record Held(Optional<LockHolder> holder, Optional<Instant> expires) {
        public static Held parse(byte[] content) {
            String text = new String(content, StandardCharsets.UTF_8);
            Optional<Instant> expires = Optional.empty();
            try {
                JsonNode n = JSON.readTree(text);
                if (n != null && n.path("expires").isTextual()) {
                    expires = Optional.of(Instant.parse(n.path("expires").asText()));
                }
            } catch (IOException | DateTimeParseException e) {
                // unreadable: treated as expired, so a damaged lock object never blocks forever
            }
            return new Held(LockHolder.parse(text), expires);
        }

        public String describe(Instant now) {
            return holder.map(h -> h.describe(now)).orElse("an unknown holder");
        }
    }

    /** The lock object as it is now, if any: for 'state show' and 'unlock'. */
    public static Optional<Store.Versioned> current(Store store, String cluster) throws IOException {
        return store.read(key(cluster));
    }

    private void renew(Consumer<String> notes) {
        while (!closed) {
            try {
                Thread.sleep(RENEW_EVERY.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            if (closed) {
                return;
            }
            try {
                version = store.putIfVersion(key, body(holder, Instant.now().plus(TTL)), Optional.of(version));
            } catch (VersionConflictException e) {
                lost = true;
                notes.accept("Lock: warning: the state store's lock was taken from this run (" + store.describe(key)
                        + " changed); its writes stay compare-and-swap, so nothing it did not read is overwritten");
                return;
            } catch (IOException e) {
                notes.accept("Lock: warning: could not renew the state store's lock (" + e.getMessage() + "); trying again in "
                        + RENEW_EVERY.toSeconds() + " s");
            }
        }
    }

    public boolean lost() {
        return lost;
    }

    /** Releases it, only while it is still this holding's version. */
    @Override
    public void close() {
        closed = true;
        renewer.interrupt();
        try {
            renewer.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (lost) {
            return;
        }
        try {
            store.deleteIfVersion(key, version);
        } catch (IOException e) {
            // Another took it over (conflict), or the store is down: its expiry ends it either way.
        }
    }
}
