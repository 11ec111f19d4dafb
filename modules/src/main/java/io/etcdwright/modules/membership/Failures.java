package io.etcdwright.modules.membership;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;

/** Turns what gRPC, Netty and the JDK throw into one short line for an operator. */
public final class Failures {
    private static final int MAX_LENGTH = 200;

    private Failures() {
    }

    /** gRPC's code for a failure, looking through jetcd's and the JDK's wrappers. */
    static Status.Code code(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof TimeoutException) {
            return Status.Code.DEADLINE_EXCEEDED;
        }
        if (e instanceof EtcdException etcd) {
            try {
                return Status.Code.valueOf(etcd.getErrorCode().name());
            } catch (IllegalArgumentException unknown) {
                return Status.Code.UNKNOWN;
            }
        }
        return Status.fromThrowable(e).getCode();
    }

    /** The server's own words (etcd's "etcdserver: ..." messages), if it answered with an error. */
    static String description(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof EtcdException) {
            return e.getMessage() == null ? "" : e.getMessage();
        }
        String d = Status.fromThrowable(e).getDescription();
        return d == null ? "" : d;
    }

    /**
     * Whether the call reached etcd and etcd answered UNAVAILABLE, as opposed to a connection that
     * could not be made or was lost (gRPC reports those as UNAVAILABLE too, with the I/O failure
     * as the cause).
     */
    static boolean refusedAsUnavailable(Throwable t) {
        if (code(t) != Status.Code.UNAVAILABLE) {
            return false;
        }
        for (Throwable c = unwrap(t); c != null; c = c.getCause()) {
            if (c instanceof IOException) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether etcd answered with the code it gives a call a learner does not serve: UNAVAILABLE up
     * to 3.5, FAILED_PRECONDITION from 3.6 (etcd-io/etcd 16d51d8c2 made it one clients do not
     * retry), having done nothing either way.
     */
    private static boolean learnersCode(Throwable t) {
        return refusedAsUnavailable(t) || code(t) == Status.Code.FAILED_PRECONDITION;
    }

    /**
     * Whether a learner refused the call: etcd refuses every call a learner does not serve
     * ({@link #learnersCode}). Decided by facts with types, never by etcd's wording: the code, and
     * whether the member that answered is a learner (as the member list or its own Status answer says).
     */
    static boolean isLearnerRefusal(Throwable t, boolean answeredByLearner) {
        return answeredByLearner && learnersCode(t);
    }

    /**
     * Whether a learner refused the call, where nothing typed can tell: the cluster's lock and a
     * write probe go out before any member list or Status answer. etcd answers such a call with
     * "rpc not supported for learner" (ErrGRPCNotSupportedForLearner; UNAVAILABLE to 3.5,
     * FAILED_PRECONDITION from 3.6), having done nothing; the one place etcd's wording decides.
     */
    public static boolean refusedByLearner(Throwable t) {
        return t != null && learnersCode(t) && description(t).contains("rpc not supported for learner");
    }

    /** One line: "connection refused", "no answer within 2 s", "TLS handshake refused: ...". */
    static String describe(Throwable t, Duration timeout) {
        Throwable e = unwrap(t);
        String tls = tls(e);
        if (tls != null) {
            return shorten(tls);
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof io.netty.channel.ConnectTimeoutException) {
                return "no answer within " + seconds(timeout) + " (TCP connect timed out)";
            }
            if (c instanceof ConnectException) {
                return "connection refused";
            }
            if (c instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (c instanceof UnknownHostException) {
                return "unknown host " + c.getMessage();
            }
        }
        Status.Code code = code(e);
        String description = description(e);
        switch (code) {
            case DEADLINE_EXCEEDED:
                return "no answer within " + seconds(timeout);
            case CANCELLED:
                return e instanceof CancellationException ? "cancelled" : shorten("cancelled: " + description);
            case UNAVAILABLE:
                return shorten("unavailable" + (description.isEmpty() ? "" : ": " + description));
            default:
                return shorten(code.name().toLowerCase(Locale.ROOT).replace('_', ' ')
                        + (description.isEmpty() ? "" : ": " + description));
        }
    }

    /** "2 s", "1.5 s", "500 ms": the timeout as a person would write it. */
    static String seconds(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + " s";
        }
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    /** A TLS failure (the handshake, a certificate) in one line, as {@link #describe} words it. */
    static String describeTls(Throwable e) {
        String tls = tls(e);
        return shorten(tls == null ? "TLS handshake failed: " + e.getMessage() : tls);
    }

    private static String tls(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof CertificateException) {
                return "TLS handshake failed: the server's certificate was rejected: " + firstLine(c.getMessage());
            }
            if (c instanceof SSLException) {
                String message = firstLine(c.getMessage());
                // Find the deepest TLS cause: it says what was wrong with which certificate.
                for (Throwable d = c.getCause(); d != null; d = d.getCause()) {
                    if (d instanceof CertificateException) {
                        return "TLS handshake failed: the server's certificate was rejected: "
                                + firstLine(d.getMessage());
                    }
                }
                if (message.startsWith("Received fatal alert: ")) {
                    String alert = message.substring("Received fatal alert: ".length());
                    return "TLS handshake refused: the server sent " + alert + hint(alert);
                }
                return "TLS handshake failed: " + message;
            }
        }
        return null;
    }

    private static String hint(String alert) {
        switch (alert) {
            case "bad_certificate":
            case "unknown_ca":
            case "certificate_unknown":
            case "certificate_required":
                return " (is the client certificate issued by the cluster's CA and meant for client auth?)";
            case "certificate_expired":
                return " (has the client certificate expired?)";
            default:
                return "";
        }
    }

    private static Throwable unwrap(Throwable t) {
        Throwable e = t;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String shorten(String s) {
        String line = firstLine(s);
        return line.length() <= MAX_LENGTH ? line : line.substring(0, MAX_LENGTH - 3) + "...";
    }
}
