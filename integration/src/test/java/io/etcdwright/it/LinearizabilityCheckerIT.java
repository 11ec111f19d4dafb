package io.etcdwright.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The linearizability checker (integration/linearizability) proved able to fail, without test hosts:
 * fed a history a linearizable store produced (simulated here: several clients, overlapping
 * operations, indeterminate writes applied or not, serializable reads served from behind), it says
 * linearizable; the same history with a stale read injected, or with an acknowledged write lost, it
 * says not linearizable, and writes the visualization. Named *IT so that the integration build
 * (mvn -Dit.skip=false verify) runs it with the tests whose histories the checker judges.
 */
class LinearizabilityCheckerIT {
    private static Path dir;

    @BeforeAll
    static void scratch() throws IOException {
        dir = Files.createDirectories(Testbed.ROOT.resolve("integration/target/linearizability-checker-it"));
    }

    /** One recorded operation, as History writes it; mutable so that a test can inject a fault. */
    static final class Op {
        int client;
        String op;
        String key;
        String value;
        boolean serializable;
        String member;
        long call;
        long ret;
        boolean ok = true;
        long revision;
        String memberId;
        boolean found;
        String got;
        long modRevision;
        String compare;
        long expectMod;
        String expectValue;
        boolean succeeded;
        /** Where a simulated store applied it (not written out). */
        long at;

        String json() {
            StringBuilder b = new StringBuilder("{\"client\":").append(client).append(",\"op\":\"").append(op).append("\",\"key\":")
                    .append(Linearizability.json(key)).append(",\"member\":").append(Linearizability.json(member)).append(",\"call\":").append(call);
            if (ok) {
                b.append(",\"return\":").append(ret).append(",\"ok\":true,\"revision\":").append(revision)
                        .append(",\"memberId\":\"").append(memberId).append('"');
            } else {
                b.append(",\"ok\":false,\"error\":\"io.grpc.StatusRuntimeException: UNAVAILABLE\"");
            }
            if (value != null) {
                b.append(",\"value\":").append(Linearizability.json(value));
            }
            if (op.equals("cas")) {
                b.append(",\"compare\":\"").append(compare).append('"');
                b.append(compare.equals("mod") ? ",\"expectMod\":" + expectMod : ",\"expectValue\":" + Linearizability.json(expectValue));
                if (ok) {
                    b.append(",\"succeeded\":").append(succeeded);
                }
            }
            if (op.equals("get")) {
                if (serializable) {
                    b.append(",\"serializable\":true");
                }
                if (ok) {
                    b.append(",\"found\":").append(found);
                    if (found) {
                        b.append(",\"got\":").append(Linearizability.json(got)).append(",\"modRevision\":").append(modRevision);
                    }
                }
            }
            return b.append('}').toString();
        }
    }

    /**
     * A history of a linearizable store: each client's operations one after another, each taking
     * effect at a random instant inside its own interval, one global revision. Serializable reads
     * return the store as it was when they were invoked (behind, as a follower may be, but never
     * behind what the client saw before). Some writes fail: half of them took effect anyway.
     */
    static List<Op> linearizableHistory(long seed, int clients, int operations) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Op> ops = new ArrayList<>();
        long[] cursor = new long[clients];
        for (int i = 0; i < operations; i++) {
            Op o = new Op();
            o.client = random.nextInt(clients);
            o.key = "/p/history/0/k" + random.nextInt(3);
            o.member = "https://10.78.0." + (11 + random.nextInt(3)) + ":2379";
            o.memberId = "m" + o.member.charAt(17);
            o.call = cursor[o.client] + random.nextLong(1, 2_000_000);
            o.ret = o.call + random.nextLong(100_000, 20_000_000);
            o.at = random.nextLong(o.call, o.ret + 1);
            cursor[o.client] = o.ret;
            int dice = random.nextInt(100);
            o.op = dice < 30 ? "put" : dice < 50 ? "cas" : "get";
            o.serializable = o.op.equals("get") && dice >= 80;
            if (!o.op.equals("get")) {
                o.value = "c" + o.client + "-" + i;
                o.ok = random.nextInt(100) >= 3;
            }
            ops.add(o);
        }
        // Apply in the order they took effect; serializable reads at their invocation.
        record Event(long at, Op op) {
        }
        List<Event> events = new ArrayList<>();
        for (Op o : ops) {
            events.add(new Event(o.serializable ? o.call : o.at, o));
        }
        events.sort(Comparator.comparingLong(Event::at));
        Map<String, String> value = new HashMap<>();
        Map<String, Long> mod = new HashMap<>();
        Map<Integer, String> lastSeen = new HashMap<>();   // client -> the value it last saw written
        long revision = 100;
        for (Event e : events) {
            Op o = e.op();
            if (o.op.equals("cas")) {
                String current = value.get(o.key);
                boolean byValue = current != null && random.nextBoolean();
                o.compare = byValue ? "value" : "mod";
                // Sometimes right, sometimes stale: both outcomes of a transaction occur.
                if (byValue) {
                    o.expectValue = random.nextBoolean() ? current : lastSeen.getOrDefault(o.client, "none");
                } else {
                    o.expectMod = random.nextBoolean() ? mod.getOrDefault(o.key, 0L) : Math.max(0, revision - 1);
                }
            }
            boolean applies = o.ok || random.nextBoolean();
            switch (o.op) {
                case "put" -> {
                    if (applies) {
                        value.put(o.key, o.value);
                        mod.put(o.key, ++revision);
                        o.revision = revision;
                    }
                }
                case "cas" -> {
                    boolean holds = o.compare.equals("value") ? o.expectValue.equals(value.get(o.key))
                            : o.expectMod == mod.getOrDefault(o.key, 0L);
                    o.succeeded = holds;
                    if (holds && applies) {
                        value.put(o.key, o.value);
                        mod.put(o.key, ++revision);
                    }
                    o.revision = revision;
                }
                default -> {
                    o.revision = revision;
                    o.found = value.containsKey(o.key);
                    if (o.found) {
                        o.got = value.get(o.key);
                        o.modRevision = mod.get(o.key);
                        lastSeen.put(o.client, o.got);
                    }
                }
            }
        }
        return ops;
    }

    private static Linearizability.Verdict check(String name, List<Op> ops) throws IOException {
        Path file = dir.resolve(name + ".history.jsonl");
        Files.write(file, ops.stream().map(Op::json).toList());
        Linearizability.Verdict verdict = Linearizability.check(file);
        System.out.println("[checker " + name + "] " + verdict);
        return verdict;
    }

    /** Several seeds: a checker that flags what a linearizable store may do would fail the tests at random. */
    @Test
    void aHistoryOfALinearizableStoreIsLinearizable() throws Exception {
        for (long seed = 38; seed < 46; seed++) {
            List<Op> ops = linearizableHistory(seed, 2 + (int) (seed % 3), 3_000);
            assertTrue(ops.stream().anyMatch(o -> !o.ok), "the history has indeterminate writes");
            assertTrue(ops.stream().anyMatch(o -> o.op.equals("cas") && o.ok && o.succeeded)
                    && ops.stream().anyMatch(o -> o.op.equals("cas") && o.ok && !o.succeeded), "transactions of both outcomes");
            Linearizability.Verdict verdict = check("valid-" + seed, ops);
            assertEquals(0, verdict.exitCode(), verdict.toString());
            assertTrue(verdict.output().contains("3000 operations"), verdict.output());
            assertTrue(Files.notExists(dir.resolve("valid-" + seed + ".history.jsonl.violation.html")), "no visualization without a violation");
        }
    }

    @Test
    void aStaleReadIsNotLinearizable() throws Exception {
        List<Op> ops = linearizableHistory(38, 3, 3_000);
        // A linearizable get invoked after a newer write of its key returned, made to return the
        // value that write replaced: as a member that fell behind would answer a read it served alone.
        Op stale = null;
        for (Op g : ops) {
            if (!g.op.equals("get") || g.serializable || !g.found) {
                continue;
            }
            Op previous = null;
            Op writer = null;
            for (Op w : ops) {
                if (w.key.equals(g.key) && w.ok && w.value != null && (w.op.equals("put") || w.succeeded)) {
                    if (w.value.equals(g.got)) {
                        writer = w;
                    } else if (w.revision < g.modRevision && (previous == null || w.revision > previous.revision)) {
                        previous = w;
                    }
                }
            }
            if (writer != null && previous != null && writer.ret < g.call) {
                g.got = previous.value;
                g.modRevision = previous.revision;
                stale = g;
                break;
            }
        }
        assertTrue(stale != null, "the history has a read to make stale");
        Linearizability.Verdict verdict = check("stale-read", ops);
        assertEquals(1, verdict.exitCode(), verdict.toString());
        assertTrue(verdict.output().contains(stale.key + ": its"), "porcupine names the key: " + verdict.output());
        assertTrue(Files.size(dir.resolve("stale-read.history.jsonl.violation.html")) > 0, "the visualization is written");
    }

    @Test
    void aLostWriteIsNotLinearizable() throws Exception {
        List<Op> ops = linearizableHistory(38, 3, 3_000);
        long t = ops.stream().mapToLong(o -> Math.max(o.call, o.ret)).max().orElseThrow() + 1_000;
        long rev = ops.stream().mapToLong(o -> o.revision).max().orElseThrow();
        // On a key of its own, after everything else: "a" written, then "b" acknowledged, yet a
        // transaction that expects the key as "a" left it succeeds, and a read sees its value on top
        // of "a": the write of "b" was acknowledged and lost, each answer consistent with its revision.
        String key = "/p/history/0/lost";
        ops.add(op(0, "put", key, "a", t, t + 10, rev + 1));
        ops.add(op(1, "put", key, "b", t + 20, t + 30, rev + 2));
        Op cas = op(0, "cas", key, "c", t + 40, t + 50, rev + 3);
        cas.compare = "mod";
        cas.expectMod = rev + 1;
        cas.succeeded = true;
        ops.add(cas);
        Op read = op(2, "get", key, null, t + 60, t + 70, rev + 3);
        read.found = true;
        read.got = "c";
        read.modRevision = rev + 3;
        ops.add(read);
        Linearizability.Verdict verdict = check("lost-write", ops);
        assertEquals(1, verdict.exitCode(), verdict.toString());
        assertTrue(verdict.output().contains(key + ": its 4 operations are not linearizable"), verdict.output());
        assertTrue(Files.size(dir.resolve("lost-write.history.jsonl.violation.html")) > 0, "the visualization is written");
    }

    @Test
    void aSerializableReadGoingBackOnItsMemberIsCaught() throws Exception {
        List<Op> ops = linearizableHistory(38, 3, 3_000);
        long t = ops.stream().mapToLong(o -> Math.max(o.call, o.ret)).max().orElseThrow() + 1_000;
        long rev = ops.stream().mapToLong(o -> o.revision).max().orElseThrow();
        String key = "/p/history/0/back";
        ops.add(op(0, "put", key, "a", t, t + 10, rev + 1));
        ops.add(op(0, "put", key, "b", t + 20, t + 30, rev + 2));
        Op first = op(1, "get", key, null, t + 40, t + 50, rev + 2);
        first.serializable = true;
        first.found = true;
        first.got = "b";
        first.modRevision = rev + 2;
        ops.add(first);
        // The same client, the same member, later: the member answers from an older revision.
        Op back = op(1, "get", key, null, t + 60, t + 70, rev + 1);
        back.serializable = true;
        back.found = true;
        back.got = "a";
        back.modRevision = rev + 1;
        ops.add(back);
        Linearizability.Verdict verdict = check("serializable-back", ops);
        assertEquals(1, verdict.exitCode(), verdict.toString());
        assertTrue(verdict.output().contains("went back from revision " + (rev + 2)), verdict.output());
    }

    @Test
    void aHistoryTheCheckerCannotReadIsBadInput() throws Exception {
        Path file = dir.resolve("bad.history.jsonl");
        Files.writeString(file, "{\"client\":0,\"op\":\"put\",\"key\":\"k\"\n");
        Linearizability.Verdict verdict = Linearizability.check(file);
        assertEquals(3, verdict.exitCode(), verdict.toString());
    }

    private static Op op(int client, String kind, String key, String value, long call, long ret, long revision) {
        Op o = new Op();
        o.client = client;
        o.op = kind;
        o.key = key;
        o.value = value;
        o.member = "https://10.78.0.11:2379";
        o.memberId = "m1";
        o.call = call;
        o.ret = ret;
        o.revision = revision;
        return o;
    }
}
