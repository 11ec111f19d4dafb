package io.etcdwright.modules.membership;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.etcdwright.modules.membership.MembershipChanges.Backoff;
import io.etcdwright.modules.membership.MembershipChanges.Promotion;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a refused promotion is read, and how long apply waits between tries. No etcd needed. */
class PromotionRetryTest {

    @Test
    void failedPreconditionIsNotInSyncByItsCodeWhateverTheText() {
        // etcd's words for it are checked nowhere: a version that words it otherwise is read the same.
        Throwable refused = Status.FAILED_PRECONDITION.withDescription("etcdserver: some future wording").asRuntimeException();
        Promotion outcome = MembershipChanges.refusedPromotion("b4", refused, 95, 100);
        assertEquals(new Promotion.NotInSync("b4", 95, 100, Optional.of("etcdserver: some future wording")), outcome);
        assertTrue(MembershipChanges.worthAnotherTry(outcome));
    }

    @Test
    void failedPreconditionIsReadThroughJetcdsAndTheJdksWrappers() {
        Throwable wrapped = new ExecutionException(EtcdExceptionFactory.newEtcdException(ErrorCode.FAILED_PRECONDITION,
                "etcdserver: can only promote a learner member which is in sync with leader"));
        Promotion outcome = MembershipChanges.refusedPromotion("b4", wrapped, 0, 12);
        assertTrue(outcome instanceof Promotion.NotInSync lag && lag.learnerIndex() == 0 && lag.leaderIndex() == 12, outcome.toString());
    }

    @Test
    void otherCodesAreRefusalsAndOnlyUnavailableIsTriedAgain() {
        Promotion unavailable = MembershipChanges.refusedPromotion("b4", Status.UNAVAILABLE.asRuntimeException(), 0, 0);
        assertEquals(new Promotion.Refused("b4", Status.Code.UNAVAILABLE, ""), unavailable);
        assertTrue(MembershipChanges.worthAnotherTry(unavailable));
        Promotion denied = MembershipChanges.refusedPromotion("b4",
                Status.PERMISSION_DENIED.withDescription("etcdserver: permission denied").asRuntimeException(), 0, 0);
        assertEquals(new Promotion.Refused("b4", Status.Code.PERMISSION_DENIED, "etcdserver: permission denied"), denied);
        assertFalse(MembershipChanges.worthAnotherTry(denied));
        assertFalse(MembershipChanges.worthAnotherTry(new Promotion.Promoted("b4")));
        assertFalse(MembershipChanges.worthAnotherTry(new Promotion.NotFound("b4")));
    }

    @Test
    void promotionPausesStartAt200MsAndDoubleUpTo3s() {
        List<Long> pauses = new ArrayList<>();
        Duration pause = Backoff.PROMOTION.first();
        for (int i = 0; i < 7; i++) {
            pauses.add(pause.toMillis());
            pause = Backoff.PROMOTION.after(pause);
        }
        assertEquals(List.of(200L, 400L, 800L, 1600L, 3000L, 3000L, 3000L), pauses);
    }

    @Test
    void aBackoffThatCouldNotGrowIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }
}
