package io.etcdwright.modules.membership;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.util.concurrent.ExecutionException;

import javax.net.ssl.SSLHandshakeException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A learner's refusal is known by types: the code, who answered, and that etcd answered at all. */
class FailuresTest {
    /** What etcd sends a learner's caller; the words are etcd's, and nothing reads them. */
    static Throwable sentByEtcd(String words) {
        return Status.UNAVAILABLE.withDescription(words).asRuntimeException();
    }

    @Test
    void unavailableSentByALearnerIsItsRefusalWhateverItsWording() {
        assertTrue(Failures.isLearnerRefusal(sentByEtcd("etcdserver: rpc not supported for learner"), true));
        assertTrue(Failures.isLearnerRefusal(sentByEtcd("etcdserver: worded some other way"), true));
        Throwable throughJetcd = new ExecutionException(EtcdExceptionFactory.newEtcdException(ErrorCode.UNAVAILABLE,
                "etcdserver: rpc not supported for learner", sentByEtcd("etcdserver: rpc not supported for learner")));
        assertTrue(Failures.isLearnerRefusal(throughJetcd, true));
    }

    @Test
    void theSameRefusalFromAVoterIsNotALearnersRefusal() {
        assertFalse(Failures.isLearnerRefusal(sentByEtcd("etcdserver: rpc not supported for learner"), false));
    }

    @Test
    void aConnectionThatFailedIsNoRefusalEvenToALearner() {
        // A learner that is down: gRPC says UNAVAILABLE too, but etcd said nothing.
        Throwable refused = Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new ConnectException("Connection refused")).asRuntimeException();
        assertFalse(Failures.refusedAsUnavailable(refused));
        assertFalse(Failures.isLearnerRefusal(refused, true));
        Throwable tls = Status.UNAVAILABLE.withCause(new SSLHandshakeException("bad_certificate")).asRuntimeException();
        assertFalse(Failures.isLearnerRefusal(tls, true));
    }

    /** etcd 3.6 and later answer a learner's caller FAILED_PRECONDITION (seen on 3.7.3: a promotion's member list). */
    @Test
    void failedPreconditionIsALearnersRefusalFromThreeSixOn() {
        assertTrue(Failures.isLearnerRefusal(Status.FAILED_PRECONDITION.withDescription("etcdserver: rpc not supported for learner")
                .asRuntimeException(), true));
        assertFalse(Failures.isLearnerRefusal(Status.FAILED_PRECONDITION.asRuntimeException(), false));
    }

    @Test
    void otherCodesAreNoLearnerRefusal() {
        assertFalse(Failures.isLearnerRefusal(Status.DEADLINE_EXCEEDED.asRuntimeException(), true));
        assertFalse(Failures.isLearnerRefusal(Status.PERMISSION_DENIED.asRuntimeException(), true));
    }
}
