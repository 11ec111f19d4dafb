package io.etcdwright.modules.lock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LockTest {
    private static final Instant SINCE = Instant.parse("2026-11-25T01:00:00Z");
    private static final LockHolder ALICE = new LockHolder("alice", "ws1", 4242, "apply", SINCE, "0123abcd");

    @Test
    void aHolderReadsBackAsWrittenAndIsDescribedWithoutItsToken() {
        assertEquals(ALICE, LockHolder.parse(ALICE.toJson()).orElseThrow());
        String described = ALICE.describe(SINCE.plusSeconds(190));
        assertEquals("alice@ws1 (etcdwright apply, pid 4242) since 2026-11-25T01:00:00Z (3 min ago)", described);
        assertFalse(described.contains("0123abcd"));
        assertTrue(LockHolder.parse("not json").isEmpty());
        assertTrue(LockHolder.parse("{\"since\":\"yesterday\"}").isEmpty());
    }

    /** What a learner answers is made again (it did nothing); a member that is down, or a timeout, is not. */
    @Test
    void onlyALearnersRefusalIsAskedAgainOfAnotherMember() {
        Throwable learner = new java.util.concurrent.ExecutionException(io.grpc.Status.UNAVAILABLE
                .withDescription("etcdserver: rpc not supported for learner").asRuntimeException());
        assertTrue(io.etcdwright.modules.membership.Failures.refusedByLearner(learner));
        // etcd 3.6 and later answer the same refusal FAILED_PRECONDITION (a code clients do not retry).
        assertTrue(io.etcdwright.modules.membership.Failures.refusedByLearner(io.grpc.Status.FAILED_PRECONDITION
                .withDescription("etcdserver: rpc not supported for learner").asRuntimeException()));
        assertFalse(io.etcdwright.modules.membership.Failures.refusedByLearner(io.grpc.Status.FAILED_PRECONDITION
                .withDescription("etcdserver: mvcc: required revision is a future revision").asRuntimeException()));
        assertFalse(io.etcdwright.modules.membership.Failures.refusedByLearner(io.grpc.Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()));
        assertFalse(io.etcdwright.modules.membership.Failures.refusedByLearner(io.grpc.Status.DEADLINE_EXCEEDED.asRuntimeException()));
        assertFalse(io.etcdwright.modules.membership.Failures.refusedByLearner(null));
    }

    @Test
    void twoHoldingsOfOneProcessHaveTheirOwnTokens() {
        LockHolder one = LockHolder.thisProcess("apply", SINCE);
        LockHolder two = LockHolder.thisProcess("apply", SINCE);
        assertEquals(ProcessHandle.current().pid(), one.pid());
        assertFalse(one.token().equals(two.token()));
    }

    @Test
    void onlyAHolderOfThisProcessSpaceWhoseProcessIsGoneIsProvablyGone() throws Exception {
        String here = LockHolder.thisProcessSpace();
        assertFalse(here.isEmpty(), "Linux says which boot and pid namespace this is");
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        long deadPid = ended.pid();
        LockHolder dead = new LockHolder("bob", "ws", deadPid, "apply", SINCE, "t", here);
        assertTrue(dead.provablyGone(here));
        assertEquals(dead, LockHolder.parse(dead.toJson()).orElseThrow());
        // Alive, elsewhere (another machine, another container's pid namespace), or unknown: never.
        assertFalse(new LockHolder("bob", "ws", ProcessHandle.current().pid(), "apply", SINCE, "t", here).provablyGone(here));
        assertFalse(new LockHolder("bob", "ws", deadPid, "apply", SINCE, "t", "other-boot/pid:[1]").provablyGone(here));
        assertFalse(new LockHolder("bob", "ws", deadPid, "apply", SINCE, "t", "").provablyGone(here));
        assertFalse(dead.provablyGone(""));
    }

    @Test
    void theRefusalNamesTheHolderTheKeyAndTheWaysOut() {
        String message = ClusterLock.lockedMessage("prod", ALICE.toJson());
        assertTrue(message.startsWith("cluster prod is locked by alice@ws1 (etcdwright apply, pid 4242) since 2026-11-25T01:00:00Z"), message);
        assertTrue(message.contains("/etcdwright/lock/prod"), message);
        assertTrue(message.contains("--lock-timeout"), message);
        assertTrue(message.contains("etcdwright unlock"), message);
        assertTrue(ClusterLock.lockedMessage("prod", "garbage").contains("a holder etcdwright cannot read"));
    }

    @Test
    void aSecondTakerOnTheWorkstationIsRefusedAtOnceNamingTheHolder(@TempDir Path home) throws Exception {
        Path file = home.resolve("clusters/prod/lock");
        try (WorkstationLock first = WorkstationLock.take(file, ALICE, Duration.ZERO)) {
            assertTrue(WorkstationLock.isHeld(file));
            long started = System.nanoTime();
            ClusterLockedException refused = assertThrows(ClusterLockedException.class,
                    () -> WorkstationLock.take(file, LockHolder.thisProcess("apply", Instant.now()), Duration.ZERO));
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "refused at once");
            assertTrue(refused.getMessage().contains("alice@ws1 (etcdwright apply, pid 4242)"), refused.getMessage());
        }
        assertFalse(WorkstationLock.isHeld(file));
        try (WorkstationLock again = WorkstationLock.take(file, ALICE, Duration.ZERO)) {
            assertEquals(ALICE, WorkstationLock.heldBy(file).orElseThrow());
        }
        assertTrue(Files.readString(file).isEmpty(), "a released lock names no holder");
    }

    @Test
    void aWaitingTakerGetsTheLockOnceItIsReleased(@TempDir Path home) throws Exception {
        Path file = home.resolve("lock");
        WorkstationLock first = WorkstationLock.take(file, ALICE, Duration.ZERO);
        CompletableFuture<WorkstationLock> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return WorkstationLock.take(file, LockHolder.thisProcess("destroy", Instant.now()), Duration.ofMinutes(2));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertFalse(waiting.isDone());
        first.close();
        try (WorkstationLock second = waiting.get(2, TimeUnit.MINUTES)) {
            assertEquals("destroy", WorkstationLock.heldBy(file).orElseThrow().command());
        }
    }
}
