package io.etcdwright.it;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.etcdwright.modules.membership.TlsMaterial;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write-load harness: writers create unique keys (create-only transactions) through the
 * cluster's client endpoints while an operation runs, and log every write etcd acknowledged (key,
 * revision, when). {@link #check} then proves what an operator must be able to rely on after a
 * rolling operation: every acknowledged write is on every member with the revision it was
 * acknowledged at, a watch from the first acknowledged revision sees each exactly once, in
 * order, at the revision it was acknowledged at, a linearizable read through the cluster finds them
 * all too, every member's key-value store hashes the same (HashKV) at the last acknowledged
 * revision, and how long the cluster accepted no write at all (the longest stall). It reports
 * acknowledged, indeterminate (failed or timed out: may or may not have been applied) and lost.
 *
 * <p>A write that failed or timed out is not acknowledged: etcd may or may not have applied it, so
 * it proves nothing either way and is only counted. The acknowledgement log is kept in a file, so a
 * failed check can be examined after the test.
 *
 * <p>Started with {@link #startRecorded}, a {@link History} beside the writers records a mix of puts,
 * compare-and-swap transactions and linearizable and serializable gets of a few keys through the
 * members' endpoints (the writers only ever create keys and never read, so a member serving a stale
 * or a future value would pass them), and the check runs the linearizability checker on it
 * ({@link Linearizability}): the report gives the operations recorded, linearizable yes or no, and the
 * check's time, and anything but "yes" fails the check. The tests that have been run with it record
 * one; the others follow once each has been seen to pass with it (a false alarm would stop CI).
 */
final class WriteLoad implements AutoCloseable {
    static final String PREFIX = "/etcdwright-write-load/";
    private static final Duration PUT_TIMEOUT = Duration.ofSeconds(3);
    /**
     * The tests' writers start a write at most every 40 ms each: four of them make 100 writes a
     * second, without a pause longer than a few milliseconds, so every stall an operation causes
     * shows. Unpaced, they took 400 a second and three etcd members' share of CI's two cores: the
     * operation under test, and the suite, ran a third slower, and the proof is the same either way.
     * The benches ({@link UnderWrites}) write unpaced, as hard as the cluster takes.
     */
    static final Duration TEST_PACE = Duration.ofMillis(40);

    /** One write etcd acknowledged: its key, the revision it created, and when (ms since the load started). */
    record Ack(String key, long revision, long atMillis) {
    }

    /**
     * The load's recorded history once stopped: its file and operation count, and the checker's
     * verdict, asked once (a test may check one load's writes several times, as after each restore).
     */
    static final class Recorded {
        private final Path file;
        private final long operations;
        private Linearizability.Verdict verdict;

        Recorded(Path file, long operations) {
            this.file = file;
            this.operations = operations;
        }

        long operations() {
            return operations;
        }

        synchronized Linearizability.Verdict verdict() {
            if (verdict == null) {
                verdict = Linearizability.check(file);
            }
            return verdict;
        }

        @Override
        public String toString() {
            return operations + " operations recorded, " + verdict();
        }
    }

    /** What the load saw while it ran; {@code history} null when the load recorded none (the benches). */
    record Acks(String prefix, List<Ack> acks, int unacknowledgedAttempts, int duplicateCreates, long ranMillis, Path log,
                Recorded history) {
        long lastRevision() {
            return acks.stream().mapToLong(Ack::revision).max().orElse(0);
        }

        /**
         * The longest time in which no writer got an acknowledgement, from the first acknowledgement to
         * the stop (before the first, the client was still connecting: no operation runs until the load
         * is seen writing); the whole run when nothing was acknowledged.
         */
        long longestStallMillis() {
            return longestStall()[1];
        }

        /** When the longest stall began (ms since the load started). */
        long longestStallFromMillis() {
            return longestStall()[0];
        }

        private long[] longestStall() {
            return WriteLoad.longestStall(acks.stream().map(Ack::atMillis).toList(), ranMillis);
        }
    }

    /**
     * The longest gap between acknowledgements ({@code ackMillis}, ms since the load started) and from
     * the last one to the stop ({@code ranMillis}), as {from, length}; the whole run when nothing was
     * acknowledged. Any load that times its acknowledgements reports its stall with this.
     */
    static long[] longestStall(List<Long> ackMillis, long ranMillis) {
        List<Long> times = new ArrayList<>(ackMillis);
        times.add(ranMillis);
        Collections.sort(times);
        long previous = times.size() == 1 ? 0 : times.get(0);
        long[] longest = {previous, 0};
        for (long t : times) {
            if (t - previous > longest[1]) {
                longest = new long[]{previous, t - previous};
            }
            previous = t;
        }
        return longest;
    }

    /** The verdict: nothing missing or changed, and one hash for all members. */
    record Report(Acks load, Map<String, String> missingOrChanged, Map<String, Integer> hashByMember,
                  List<String> watchProblems) {
        /** Acknowledged keys missing or changed anywhere, each counted once however many members lack it. */
        long lostKeys() {
            return missingOrChanged.keySet().stream().map(where -> where.substring(where.indexOf(' ') + 1)).distinct().count();
        }

        boolean lostNothing() {
            return missingOrChanged.isEmpty() && load.duplicateCreates() == 0;
        }

        /** A watch from the first acknowledged revision saw every acknowledged write once, in order. */
        boolean watchSawEachOnceInOrder() {
            return watchProblems.isEmpty();
        }

        boolean membersAgree() {
            return hashByMember.values().stream().distinct().count() == 1;
        }

        /** The mixed history proved linearizable (true when the load recorded none). */
        boolean linearizable() {
            return load.history() == null || load.history().verdict().linearizable();
        }

        @Override
        public String toString() {
            return String.format("write load: %d acknowledged, %d indeterminate (failed or timed out), %d lost in %.1f s;"
                            + " duplicate creates %d; longest stall %d ms; acknowledged but missing or changed: %s; watch: %s;"
                            + " HashKV at revision %d by member: %s; log %s; history: %s",
                    load.acks().size(), load.unacknowledgedAttempts(), lostKeys(), load.ranMillis() / 1000.0,
                    load.duplicateCreates(), load.longestStallMillis(),
                    missingOrChanged.isEmpty() ? "none" : firstFew(missingOrChanged),
                    watchProblems.isEmpty() ? "every write once, in order" : watchProblems.stream().limit(5).toList(),
                    load.lastRevision(), hashByMember, load.log(), load.history() == null ? "none recorded" : load.history());
        }

        private static String firstFew(Map<String, String> problems) {
            return problems.entrySet().stream().limit(5).map(e -> e.getKey() + " (" + e.getValue() + ")").toList().toString();
        }
    }

    /**
     * The clients writes go through: the first, then the second after a write on the first failed,
     * and so on. One alone usually; two while a cluster moves from plain HTTP to TLS (an http client
     * and an https one), as a client that knows both endpoints of a member would do.
     */
    private final List<Client> clients;
    private final List<Thread> writers = new ArrayList<>();
    private final List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger unacknowledged = new AtomicInteger();
    /** Keys found existing before their one and only create: impossible unless a write was applied twice. */
    private final AtomicInteger duplicates = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final BufferedWriter log;
    private final Path logFile;
    private final long startedNanos = System.nanoTime();
    private final long paceNanos;
    /** Each run writes under a prefix of its own, so runs on one cluster never overwrite each other's keys. */
    private final String prefix = PREFIX + Long.toHexString(System.nanoTime()) + "/";
    /** The mixed history, kept beside the acknowledgement log (NAME.history.jsonl); null when not recorded. */
    private final History history;
    private Acks stopped;

    private WriteLoad(List<Map<String, String>> clientEnvs, Path logFile, Duration pace, boolean recordHistory) throws IOException {
        this.clients = clientEnvs.stream().map(env -> client(env, endpoints(env))).toList();
        this.paceNanos = pace.toNanos();
        this.logFile = logFile;
        Files.createDirectories(logFile.getParent());
        this.log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
        this.history = recordHistory
                ? new History(clientEnvs, prefix, logFile.resolveSibling(logFile.getFileName() + ".history.jsonl"), startedNanos, pace)
                : null;
    }

    /**
     * Starts {@code writerCount} writers against the endpoints and TLS files of {@code clientEnv}
     * (the variables 'etcdwright client-env' prints), logging acknowledgements to {@code logFile}.
     */
    static WriteLoad start(Map<String, String> clientEnv, int writerCount, Path logFile) throws IOException {
        return start(List.of(clientEnv), writerCount, logFile);
    }

    /**
     * As {@link #start(Map, int, Path)}, each writer starting a write at most every {@code pace} (zero:
     * unpaced, as the benches write), and no history recorded: its clients would take a share of
     * what the benches measure, and unpaced it would outgrow what the checker proves in seconds.
     */
    static WriteLoad start(Map<String, String> clientEnv, int writerCount, Path logFile, Duration pace) throws IOException {
        return start(List.of(clientEnv), writerCount, logFile, pace, false);
    }

    /**
     * As {@link #start(Map, int, Path)}, and a mixed {@link History} recorded beside the writers
     * (NAME.history.jsonl beside the acknowledgement log), which the check proves linearizable. Not
     * for a load that runs across a restore: the history before the cut and the one after it would
     * each need checking on their own, the after one from exactly the backup's state, and the
     * harness does not cut a history yet.
     */
    static WriteLoad startRecorded(Map<String, String> clientEnv, int writerCount, Path logFile) throws IOException {
        return start(List.of(clientEnv), writerCount, logFile, TEST_PACE, true);
    }

    /**
     * As above, through the first of {@code clientEnvs} until a write fails, then the next (a
     * cluster moving from plain HTTP to TLS: the http client env, then the https one).
     */
    static WriteLoad start(List<Map<String, String>> clientEnvs, int writerCount, Path logFile) throws IOException {
        return start(clientEnvs, writerCount, logFile, TEST_PACE, false);
    }

    private static WriteLoad start(List<Map<String, String>> clientEnvs, int writerCount, Path logFile, Duration pace,
                                   boolean recordHistory) throws IOException {
        WriteLoad load = new WriteLoad(clientEnvs, logFile, pace, recordHistory);
        if (load.history != null) {
            load.history.start();
        }
        for (int w = 0; w < writerCount; w++) {
            int writer = w;
            Thread thread = new Thread(() -> load.write(writer), "write-load-" + w);
            thread.setDaemon(true);
            load.writers.add(thread);
            thread.start();
        }
        return load;
    }

    private void write(int writer) {
        int through = 0;
        long nextStart = System.nanoTime();
        for (long seq = 0; !stopping.get(); seq++) {
            String key = prefix + "w" + writer + "/" + String.format("%08d", seq);
            long wait = nextStart - System.nanoTime();
            if (wait > 0) {
                sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            // After a write that took longer than the pace, the next starts at once, not in a burst.
            nextStart = Math.max(nextStart + paceNanos, System.nanoTime());
            try {
                // Create-only: the key must not exist yet, so a write etcd applied twice would show.
                TxnResponse put = clients.get(through).getKVClient().txn()
                        .If(new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(bytes(key), bytes("writer " + writer + " write " + seq), PutOption.DEFAULT))
                        .commit().get(PUT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                if (!put.isSucceeded()) {
                    duplicates.incrementAndGet();
                    continue;
                }
                Ack ack = new Ack(key, put.getHeader().getRevision(), millisSinceStart());
                acks.add(ack);
                synchronized (log) {
                    log.write(ack.key() + " " + ack.revision() + " " + ack.atMillis() + "\n");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // Unknown outcome (the member restarted, a leader election, a timeout): not acknowledged.
                unacknowledged.incrementAndGet();
                through = (through + 1) % clients.size();
                sleep(20);
            }
        }
    }

    /** Number of writes acknowledged so far. */
    int acknowledged() {
        return acks.size();
    }

    /** Waits until at least {@code count} writes more than now were acknowledged (the load is really running). */
    void awaitMore(int count, Duration within) {
        int target = acks.size() + count;
        long deadline = System.nanoTime() + within.toNanos();
        while (acks.size() < target) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the write load got " + acks.size() + " acknowledgements, expected " + target
                        + " within " + within + " (" + unacknowledged.get() + " attempts failed); log " + logFile);
            }
            sleep(20);
        }
    }

    /** Stops the writers and returns what they saw. */
    Acks stop() {
        if (stopped == null) {
            stopping.set(true);
            for (Thread writer : writers) {
                try {
                    writer.join(PUT_TIMEOUT.toMillis() * 2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try {
                synchronized (log) {
                    log.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long ran = millisSinceStart();
            Recorded recorded = history == null ? null : new Recorded(history.file(), history.stop());
            stopped = new Acks(prefix, List.copyOf(acks), unacknowledged.get(), duplicates.get(), ran, logFile, recorded);
        }
        return stopped;
    }

    @Override
    public void close() {
        stop();
        clients.forEach(Client::close);
        if (history != null) {
            history.close();
        }
    }

    /**
     * Asks every member on its own (serializable reads, served from that member's store, not the
     * leader's) once it has caught up to the last acknowledged revision.
     */
    static Report check(Map<String, String> clientEnv, Acks load) {
        Map<String, String> problems = new LinkedHashMap<>();
        Map<String, Integer> hashes = new LinkedHashMap<>();
        long revision = load.lastRevision();
        for (URI member : endpoints(clientEnv)) {
            try (Client one = client(clientEnv, List.of(member))) {
                awaitRevision(one, member, load.prefix(), revision);
                problems.putAll(memberProblems(one, member, load));
                if (revision > 0) {
                    hashes.put(member.getHost(), one.getMaintenanceClient().hashKV(member.toString(), revision)
                            .get(30, TimeUnit.SECONDS).getHash());
                }
            } catch (Exception e) {
                throw new AssertionError("cannot check member " + member + ": " + e, e);
            }
        }
        problems.putAll(linearizableProblems(clientEnv, load));
        return new Report(load, problems, hashes, watchProblems(clientEnv, load));
    }

    /**
     * {@link #check}, printed under {@code label} for the test report, and asserted as every rolling
     * operation must leave the cluster: no acknowledged write lost, all {@code members} members hashing
     * alike, the watch seeing each write once, in order.
     */
    static Report checkNothingLost(Map<String, String> clientEnv, Acks load, String label, int members) {
        Report report = check(clientEnv, load);
        System.out.println("[" + label + "] " + report);
        assertTrue(report.lostNothing(), report.toString());
        assertEquals(members, report.hashByMember().size(), report.toString());
        assertTrue(report.membersAgree(), report.toString());
        assertTrue(report.watchSawEachOnceInOrder(), report.toString());
        assertTrue(report.linearizable(), report.toString());
        return report;
    }

    /** One member's own store (a serializable read): each acknowledged key there, at its acknowledged revision. */
    private static Map<String, String> memberProblems(Client one, URI member, Acks load) throws Exception {
        Map<String, String> problems = new LinkedHashMap<>();
        Map<String, Long> stored = storedRevisions(one, load.prefix(), true);
        for (Ack ack : load.acks()) {
            Long at = stored.get(ack.key());
            if (at == null) {
                problems.put(member.getHost() + " " + ack.key(), "missing, acknowledged at revision " + ack.revision());
            } else if (at != ack.revision()) {
                problems.put(member.getHost() + " " + ack.key(), "at revision " + at + ", acknowledged at " + ack.revision());
            }
        }
        return problems;
    }

    /**
     * After a restore: every acknowledged write is there, on every member and through a
     * linearizable read, at the revision it was acknowledged at, and the members hash alike at
     * the current revision. No watch from the old revisions: a restore marks them compacted on
     * purpose (so watchers resync), so such a watch is refused by design.
     */
    static Report checkRestored(Map<String, String> clientEnv, Acks load) {
        Map<String, String> problems = new LinkedHashMap<>();
        Map<String, Integer> hashes = new LinkedHashMap<>();
        for (URI member : endpoints(clientEnv)) {
            try (Client one = client(clientEnv, List.of(member))) {
                problems.putAll(memberProblems(one, member, load));
                hashes.put(member.getHost(), one.getMaintenanceClient().hashKV(member.toString(), 0)
                        .get(30, TimeUnit.SECONDS).getHash());
            } catch (Exception e) {
                throw new AssertionError("cannot check member " + member + ": " + e, e);
            }
        }
        problems.putAll(linearizableProblems(clientEnv, load));
        Report report = new Report(load, problems, hashes, List.of());
        // The history was recorded before the cut (the load stopped before the backup it is restored
        // from), so it is checked on its own, as it stood; the restored cluster is checked above.
        assertTrue(report.linearizable(), report.toString());
        return report;
    }

    /** Keys per page: a long run's keys and values outgrow one gRPC message (4 MiB) read at once. */
    private static final long PAGE = 5_000;

    /**
     * Every key under {@code prefix} with its mod revision, read in pages of keys only. The writers
     * have stopped when this runs, so pages read at different revisions see the same keys.
     */
    private static Map<String, Long> storedRevisions(Client c, String prefix, boolean serializable) throws Exception {
        Map<String, Long> stored = new HashMap<>();
        // The prefix ends in '/': the first key after everything under it ends in '0' instead.
        ByteSequence end = bytes(prefix.substring(0, prefix.length() - 1) + (char) (prefix.charAt(prefix.length() - 1) + 1));
        String from = prefix;
        while (true) {
            GetResponse page = c.getKVClient().get(bytes(from), GetOption.builder().withRange(end).withKeysOnly(true)
                    .withSerializable(serializable).withLimit(PAGE).build()).get(30, TimeUnit.SECONDS);
            String last = null;
            for (KeyValue kv : page.getKvs()) {
                last = kv.getKey().toString(StandardCharsets.UTF_8);
                stored.put(last, kv.getModRevision());
            }
            if (!page.isMore() || last == null) {
                return stored;
            }
            from = last + "\0";
        }
    }

    /**
     * One linearizable read through the cluster (it goes past the leader's commit index, so it
     * cannot be served from a member that fell behind), checked like each member's own store.
     */
    private static Map<String, String> linearizableProblems(Map<String, String> clientEnv, Acks load) {
        Map<String, String> problems = new LinkedHashMap<>();
        try (Client c = client(clientEnv, endpoints(clientEnv))) {
            Map<String, Long> stored = storedRevisions(c, load.prefix(), false);
            for (Ack ack : load.acks()) {
                Long at = stored.get(ack.key());
                if (at == null || at != ack.revision()) {
                    problems.put("linearizable " + ack.key(), at == null ? "missing, acknowledged at revision " + ack.revision()
                            : "at revision " + at + ", acknowledged at " + ack.revision());
                }
            }
        } catch (Exception e) {
            throw new AssertionError("cannot read the cluster linearizably: " + e, e);
        }
        return problems;
    }

    /**
     * Watches the run's prefix from its first acknowledged revision and checks that every
     * acknowledged write arrives exactly once, as a put at its revision, in revision order.
     */
    private static List<String> watchProblems(Map<String, String> clientEnv, Acks load) throws AssertionError {
        if (load.acks().isEmpty()) {
            return List.of();
        }
        long first = load.acks().stream().mapToLong(Ack::revision).min().orElseThrow();
        long last = load.lastRevision();
        Map<String, Long> acked = new HashMap<>();
        load.acks().forEach(a -> acked.put(a.key(), a.revision()));
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> seen = new java.util.concurrent.ConcurrentHashMap<>();
        long[] previous = {0};
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch allSent = new java.util.concurrent.CountDownLatch(1);
        try (Client c = client(clientEnv, endpoints(clientEnv))) {
            // The cluster's revision now (a linearizable read): the watch must be seen to deliver
            // every event up to it, not only up to the last acknowledged write, or a change made
            // after the load (a delete behind the harness's back) could arrive after the watch was
            // closed and go unseen.
            long end = c.getKVClient().get(bytes(load.prefix()), GetOption.builder().isPrefix(true).withCountOnly(true).build())
                    .get(10, TimeUnit.SECONDS).getHeader().getRevision();
            watchUntil(c, load, first, last, end, acked, problems, seen, previous, done, allSent);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("cannot read the cluster's revision: " + e, e);
        }
        for (Map.Entry<String, Long> a : acked.entrySet()) {
            int times = seen.getOrDefault(a.getKey(), 0);
            if (times != 1) {
                problems.add(a.getKey() + " (revision " + a.getValue() + ") seen " + times + " times");
            }
        }
        return List.copyOf(problems);
    }

    private static void watchUntil(Client c, Acks load, long first, long last, long end, Map<String, Long> acked,
                                   List<String> problems, Map<String, Integer> seen, long[] previous,
                                   java.util.concurrent.CountDownLatch done, java.util.concurrent.CountDownLatch allSent)
            throws InterruptedException {
        try (Watch.Watcher watcher = c.getWatchClient().watch(bytes(load.prefix()),
                     WatchOption.builder().isPrefix(true).withRevision(first).build(), new Watch.Listener() {
                         @Override
                         public void onNext(WatchResponse response) {
                             if (response.isProgressNotify()) {
                                 // etcd sends it once every event up to its header revision was sent.
                                 if (response.getHeader().getRevision() >= end) {
                                     allSent.countDown();
                                 }
                                 return;
                             }
                             for (WatchEvent event : response.getEvents()) {
                                 String key = event.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
                                 long revision = event.getKeyValue().getModRevision();
                                 if (revision < previous[0]) {
                                     problems.add(key + " at revision " + revision + " after " + previous[0]);
                                 }
                                 previous[0] = revision;
                                 if (event.getEventType() != WatchEvent.EventType.PUT) {
                                     problems.add(key + ": a " + event.getEventType() + " at revision " + revision);
                                 }
                                 Long ackedAt = acked.get(key);
                                 if (ackedAt != null && ackedAt != revision) {
                                     problems.add(key + " seen at revision " + revision + ", acknowledged at " + ackedAt);
                                 }
                                 seen.merge(key, 1, Integer::sum);
                                 if (revision >= last) {
                                     done.countDown();
                                 }
                             }
                         }

                         @Override
                         public void onError(Throwable t) {
                             problems.add("the watch failed: " + t);
                             done.countDown();
                             allSent.countDown();
                         }

                         @Override
                         public void onCompleted() {
                             done.countDown();
                             allSent.countDown();
                         }
                     })) {
            // A bound on a stuck watch, not a speed check: a long run (a chain of killed applies writes
            // for ten minutes) has a hundred thousand events to stream through a busy 2-core machine.
            long within = 60 + acked.size() / 1000;
            if (!done.await(within, TimeUnit.SECONDS)) {
                problems.add("the watch did not reach revision " + last + " within " + within + " s (at " + previous[0] + ")");
                return;
            }
            // Then until etcd confirms every event up to the cluster's revision at the start of the
            // check was sent: asked again each second, as a progress request can be answered
            // before the watch has caught up (then its revision is still below the end).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            do {
                watcher.requestProgress();
            } while (!allSent.await(1, TimeUnit.SECONDS) && System.nanoTime() < deadline);
            if (allSent.getCount() > 0) {
                problems.add("the watch did not confirm it had sent every event up to revision " + end + " within 15 s");
            }
        }
    }

    /** Deletes one acknowledged key behind the harness's back: the check must then report it. */
    static void loseOneWrite(Map<String, String> clientEnv, Ack ack) throws Exception {
        try (Client c = client(clientEnv, endpoints(clientEnv))) {
            c.getKVClient().delete(bytes(ack.key())).get(10, TimeUnit.SECONDS);
        }
    }

    private static void awaitRevision(Client member, URI endpoint, String prefix, long revision) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long seen;
        do {
            seen = member.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).withCountOnly(true)
                    .withSerializable(true).build()).get(10, TimeUnit.SECONDS).getHeader().getRevision();
            if (seen >= revision) {
                return;
            }
            sleep(50);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("member " + endpoint + " is at revision " + seen + ", not caught up to " + revision);
    }

    static List<URI> endpoints(Map<String, String> clientEnv) {
        return List.of(clientEnv.get("ETCDCTL_ENDPOINTS").split(",")).stream().map(URI::create).toList();
    }

    static Client client(Map<String, String> env, List<URI> endpoints) {
        try {
            // No retries inside the client: a put it retried after an unknown outcome could land twice,
            // and each attempt here must be one write whose acknowledgement is the writer's to log.
            var builder = Client.builder().endpoints(endpoints.toArray(URI[]::new))
                    .connectTimeout(Duration.ofSeconds(2)).waitForReady(false).retryMaxAttempts(0);
            // A plaintext cluster's client-env has http:// endpoints and no TLS files.
            if (env.containsKey("ETCDCTL_CACERT")) {
                TlsMaterial tls = TlsMaterial.read(Path.of(env.get("ETCDCTL_CACERT")), Path.of(env.get("ETCDCTL_CERT")),
                        Path.of(env.get("ETCDCTL_KEY")));
                builder.sslContext(tls.clientContext());
            }
            return builder.build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** The load's clock: ms since it started, as the acknowledgement log stamps writes. */
    long millisSinceStart() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    private static void sleep(long millis) {
        sleep(millis, 0);
    }

    private static void sleep(long millis, int nanos) {
        try {
            Thread.sleep(millis, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
