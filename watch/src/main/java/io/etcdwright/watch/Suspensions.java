package io.etcdwright.watch;

import io.etcd.jetcd.ByteSequence;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.membership.EtcdAdminClient;
import io.etcdwright.modules.membership.EtcdHttp;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.run.ClusterLocks;
import io.etcdwright.run.Layouts;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where a cluster's {@link Suspension} is kept: the key {@code /etcdwright/suspend/NAME} in the
 * cluster's own etcd, beside its lock, so every watcher on every workstation and every person's
 * {@code status} sees the same record. Suspending writes it (a write etcd commits, so it needs the
 * cluster's quorum); reading it is a serializable read, answered by any one running member, so a
 * watcher of a cluster that lost quorum still sees a suspension made before (the case where it
 * matters most: a person at work on a broken cluster).
 */
public final class Suspensions {
    public static final String PREFIX = "/etcdwright/suspend/";
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private Suspensions() {
    }

    public static String key(String cluster) {
        return PREFIX + cluster;
    }

    /** What a read found. */
    public sealed interface Read {
        /** The cluster is suspended. */
        record Suspended(Suspension suspension) implements Read {
        }

        /** No suspension is recorded. */
        record NotSuspended() implements Read {
        }

        /** No member answered: the watcher cannot know, and keeps what it knew last (see {@link Watcher}). */
        record Unknown(String why) implements Read {
        }
    }

    public static void suspend(DesiredState desired, Suspension suspension) {
        try (EtcdAdminClient client = connect(desired)) {
            call(client.jetcd().getKVClient().put(bytes(key(desired.spec().name())), bytes(suspension.toJson())),
                    "record the suspension");
        }
    }

    /** @return whether a suspension was recorded (and is now gone) */
    public static boolean resume(DesiredState desired) {
        try (EtcdAdminClient client = connect(desired)) {
            return call(client.jetcd().getKVClient().delete(bytes(key(desired.spec().name()))), "remove the suspension")
                    .getDeleted() > 0;
        }
    }

    public static Read read(DesiredState desired) {
        Optional<Health.Access> access = ClusterLocks.access(desired);
        if (access.isEmpty()) {
            return new Read.Unknown("the cluster has no client certificate on this workstation yet");
        }
        // etcd's HTTP gateway: a watcher asks every cycle, and a read needs no gRPC machinery.
        try (EtcdHttp http = EtcdHttp.connect(access.get(), Endpoints.clientUrls(desired.members(), Layouts.of(desired)),
                CALL_TIMEOUT)) {
            Optional<String> value = http.serializableGet(key(desired.spec().name()));
            if (value.isEmpty()) {
                return new Read.NotSuspended();
            }
            // A value that is not a suspension etcdwright wrote still says someone meant to stop the
            // watchers: held, under the name of whoever wrote it (unknown).
            return new Read.Suspended(Suspension.parse(value.get()).orElse(new Suspension("unknown (the key holds: "
                    + (value.get().length() > 80 ? value.get().substring(0, 80) + "..." : value.get()) + ")",
                    java.time.Instant.ofEpochSecond(0), "")));
        } catch (RuntimeException e) {
            return new Read.Unknown(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }

    private static EtcdAdminClient connect(DesiredState desired) {
        Health.Access access = ClusterLocks.access(desired).orElseThrow(() -> new IllegalStateException(
                "the cluster " + desired.spec().name() + " has no client certificate on this workstation yet (create it with apply)"));
        return EtcdAdminClient.connect(Endpoints.clientUrls(desired.members(), Layouts.of(desired)), access.caCert(),
                access.clientCert(), access.clientKey(), CALL_TIMEOUT);
    }

    private static <T> T call(java.util.concurrent.CompletableFuture<T> future, String what) {
        try {
            return future.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what, e);
        } catch (ExecutionException | TimeoutException e) {
            future.cancel(true);
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot " + what + " in the cluster's etcd: "
                    + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()), cause);
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
