package io.etcdwright.it;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Response;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The write-load harness's recorded history: a few clients issue a mix of operations on a small set
 * of keys, so that they conflict, each through one member's client endpoint chosen per operation
 * (puts, compare-and-swap transactions on mod_revision or value, linearizable and serializable gets),
 * and log each as a JSON line: invocation and return time on the load's one monotonic clock
 * (System.nanoTime, ns since the load started), the member it went to and the member ID that
 * answered, the response's revision and result, or {@code "ok": false} with the error when it failed
 * or timed out: then its outcome is unknown, and the checker treats it so (a write that may have
 * been applied at any time after its call; a read that says nothing). The checker
 * (integration/linearizability, {@link Linearizability}) proves the history linearizable.
 *
 * <p>Every value written is unique (client and sequence number), so a read names the write it saw.
 * The keys rotate: every {@link #OPS_PER_GENERATION} operations the clients move on to fresh keys,
 * so no key's history grows past a bound however long the operation runs (porcupine's search is
 * per key, and an indeterminate write stays open until the end of its key's history); once stopped,
 * one linearizable get of every key ever used ends each key's history, so a write lost later (after
 * its key went out of use) still shows.
 */
final class History {
    /** Clients of the mix: two, paced as the writers are, add 50 operations a second to their 100. */
    static final int CLIENTS = 2;
    /** Keys in use at a time: few, so that the two clients' operations on a key overlap often. */
    static final int KEYS = 4;
    /** Operations per set of keys: about 40 s at the tests' pace, some 250 operations per key. */
    static final int OPS_PER_GENERATION = 2_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    /**
     * How long a client leaves a member alone after an operation through it failed: a member that is
     * down (restarted, replaced) fails every request, and each failed write is one more open
     * operation for the checker. Writes keep going through the other members meanwhile.
     */
    private static final long COOL_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);

    /** Per client env (two while a cluster moves from HTTP to TLS), one client per member endpoint. */
    private final List<List<Client>> clients;
    private final List<List<URI>> endpoints;
    private final String prefix;
    private final Path file;
    private final BufferedWriter out;
    private final long startedNanos;
    private final long paceNanos;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong recorded = new AtomicLong();
    private final Set<String> keysUsed = ConcurrentHashMap.newKeySet();
    private final Map<URI, Long> coolUntil = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private boolean closed;

    History(List<Map<String, String>> clientEnvs, String prefix, Path file, long startedNanos, Duration pace) throws IOException {
        this.prefix = prefix + "history/";
        this.file = file;
        this.startedNanos = startedNanos;
        this.paceNanos = pace.toNanos();
        List<List<Client>> perEnv = new ArrayList<>();
        List<List<URI>> perEnvEndpoints = new ArrayList<>();
        for (Map<String, String> env : clientEnvs) {
            List<URI> members = WriteLoad.endpoints(env);
            perEnvEndpoints.add(members);
            perEnv.add(members.stream().map(m -> WriteLoad.client(env, List.of(m))).toList());
        }
        this.clients = List.copyOf(perEnv);
        this.endpoints = List.copyOf(perEnvEndpoints);
        Files.createDirectories(file.getParent());
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
    }

    void start() {
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            Thread thread = new Thread(() -> run(client), "write-load-history-" + c);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    Path file() {
        return file;
    }

    /** What one client last saw of a key: the expectations of its next compare-and-swap there. */
    private record Seen(String value, long modRevision) {
    }

    private void run(int client) {
        SplittableRandom random = new SplittableRandom(client * 7919L + startedNanos);
        Map<String, Seen> seen = new HashMap<>();
        int through = 0;
        long nextStart = System.nanoTime();
        for (long seq = 0; !stopping.get(); seq++) {
            long wait = nextStart - System.nanoTime();
            if (wait > 0) {
                sleep(wait);
            }
            nextStart = Math.max(nextStart + paceNanos, System.nanoTime());
            long generation = started.getAndIncrement() / OPS_PER_GENERATION;
            String key = prefix + generation + "/k" + random.nextInt(KEYS);
            keysUsed.add(key);
            int member = pickMember(through, random);
            URI endpoint = endpoints.get(through).get(member);
            Client c = clients.get(through).get(member);
            int dice = random.nextInt(100);
            boolean ok;
            if (dice < 30) {
                ok = put(c, endpoint, client, key, "c" + client + "-" + seq, seen);
            } else if (dice < 50) {
                ok = compareAndSwap(c, endpoint, client, key, "c" + client + "-" + seq, seen.get(key), random.nextBoolean(), seen);
            } else {
                ok = get(c, endpoint, client, key, dice >= 80, seen);
            }
            if (!ok) {
                coolUntil.put(endpoint, System.nanoTime() + COOL_NANOS);
                // As the writers do: a failure may mean this env's endpoints are gone (HTTP turned off).
                through = (through + 1) % clients.size();
            }
        }
    }

    /** A member at random, leaving out those that just failed, unless all did. */
    private int pickMember(int through, SplittableRandom random) {
        List<URI> members = endpoints.get(through);
        long now = System.nanoTime();
        List<Integer> usable = new ArrayList<>();
        for (int m = 0; m < members.size(); m++) {
            if (coolUntil.getOrDefault(members.get(m), 0L) - now <= 0) {
                usable.add(m);
            }
        }
        return usable.isEmpty() ? random.nextInt(members.size()) : usable.get(random.nextInt(usable.size()));
    }

    private boolean put(Client c, URI endpoint, int client, String key, String value, Map<String, Seen> seen) {
        long call = now();
        try {
            PutResponse r = c.getKVClient().put(bytes(key), bytes(value)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            long ret = now();
            seen.put(key, new Seen(value, r.getHeader().getRevision()));
            record(client, "put", key, endpoint, call, ret, r.getHeader(), "\"value\":" + json(value));
            return true;
        } catch (Exception e) {
            seen.remove(key);
            failed(client, "put", key, endpoint, call, e, "\"value\":" + json(value));
            return false;
        }
    }

    private boolean compareAndSwap(Client c, URI endpoint, int client, String key, String value, Seen expected,
                                   boolean onValue, Map<String, Seen> seen) {
        // On value only when the client has seen one (etcd: a value comparison on an absent key is false).
        boolean byValue = onValue && expected != null;
        long expectMod = expected == null ? 0 : expected.modRevision();
        Cmp cmp = byValue ? new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.value(bytes(expected.value())))
                : new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.modRevision(expectMod));
        String args = "\"value\":" + json(value) + (byValue ? ",\"compare\":\"value\",\"expectValue\":" + json(expected.value())
                : ",\"compare\":\"mod\",\"expectMod\":" + expectMod);
        long call = now();
        try {
            TxnResponse r = c.getKVClient().txn().If(cmp).Then(Op.put(bytes(key), bytes(value), PutOption.DEFAULT))
                    .commit().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            long ret = now();
            if (r.isSucceeded()) {
                seen.put(key, new Seen(value, r.getHeader().getRevision()));
            }
            record(client, "cas", key, endpoint, call, ret, r.getHeader(), args + ",\"succeeded\":" + r.isSucceeded());
            return true;
        } catch (Exception e) {
            seen.remove(key);
            failed(client, "cas", key, endpoint, call, e, args);
            return false;
        }
    }

    private boolean get(Client c, URI endpoint, int client, String key, boolean serializable, Map<String, Seen> seen) {
        long call = now();
        try {
            GetResponse r = c.getKVClient().get(bytes(key), GetOption.builder().withSerializable(serializable).build())
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            long ret = now();
            String result;
            if (r.getKvs().isEmpty()) {
                result = "\"found\":false";
                seen.remove(key);
            } else {
                KeyValue kv = r.getKvs().get(0);
                String got = kv.getValue().toString(StandardCharsets.UTF_8);
                result = "\"found\":true,\"got\":" + json(got) + ",\"modRevision\":" + kv.getModRevision();
                seen.put(key, new Seen(got, kv.getModRevision()));
            }
            record(client, "get", key, endpoint, call, ret, r.getHeader(), result + (serializable ? ",\"serializable\":true" : ""));
            return true;
        } catch (Exception e) {
            failed(client, "get", key, endpoint, call, e, serializable ? "\"serializable\":true" : "");
            return false;
        }
    }

    private void record(int client, String op, String key, URI endpoint, long call, long ret, Response.Header header, String rest) {
        line("{\"client\":" + client + ",\"op\":\"" + op + "\",\"key\":" + json(key) + ",\"member\":" + json(endpoint.toString())
                + ",\"call\":" + call + ",\"return\":" + ret + ",\"ok\":true,\"revision\":" + header.getRevision()
                + ",\"memberId\":\"" + Long.toHexString(header.getMemberId()) + "\"," + rest + "}");
    }

    private void failed(int client, String op, String key, URI endpoint, long call, Exception e, String rest) {
        Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        line("{\"client\":" + client + ",\"op\":\"" + op + "\",\"key\":" + json(key) + ",\"member\":" + json(endpoint.toString())
                + ",\"call\":" + call + ",\"ok\":false,\"error\":" + json(String.valueOf(cause)) + (rest.isEmpty() ? "" : "," + rest) + "}");
    }

    private void line(String json) {
        synchronized (out) {
            try {
                out.write(json);
                out.write('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        recorded.incrementAndGet();
    }

    /**
     * Stops the clients, then ends every key's history with a linearizable get of it (a client of its
     * own, through the members in turn, a failed get tried on the next), and closes the file.
     * Returns the number of operations recorded.
     */
    long stop() {
        if (closed) {
            return recorded.get();
        }
        stopping.set(true);
        for (Thread t : threads) {
            try {
                t.join(TIMEOUT.toMillis() * 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int last = clients.size() - 1;   // the env the clients were moving to (TLS, after HTTP)
        int member = 0;
        for (String key : keysUsed.stream().sorted().toList()) {
            for (int attempt = 0; attempt < endpoints.get(last).size(); attempt++, member++) {
                int m = member % endpoints.get(last).size();
                if (get(clients.get(last).get(m), endpoints.get(last).get(m), CLIENTS, key, false, new HashMap<>())) {
                    break;
                }
            }
        }
        synchronized (out) {
            try {
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        closed = true;
        return recorded.get();
    }

    void close() {
        stop();
        clients.forEach(env -> env.forEach(Client::close));
    }

    private long now() {
        return System.nanoTime() - startedNanos;
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    private static String json(String s) {
        return Linearizability.json(s);
    }

    private static void sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
