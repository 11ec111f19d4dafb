package io.etcdwright.modules.restore;

import io.etcd.jetcd.api.AlarmMember;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmType;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.modules.backup.MemberRpc;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.TlsMaterial;
import io.grpc.StatusRuntimeException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * etcdwright's write fence: etcd's own NOSPACE alarm, raised through the Alarm RPC on the member
 * the snapshot is then streamed from, so that no write can be acknowledged after the snapshot a
 * restore rebuilds the cluster from (a minor downgrade's). With the alarm raised etcd refuses every
 * put, every transaction that writes and every lease grant, cluster-wide, replicated by raft, and
 * still serves reads, deletes and snapshots (etcd's "limited maintenance mode"). Deletes are not
 * fenced: the writers must still be stopped, as the plan says.
 *
 * <p>Why an alarm and not only "stop the writers": a writer nobody remembered (a second API server,
 * a controller outside the cluster) would have its writes acknowledged and then lost by the restore;
 * the alarm turns them into errors the writer sees. And an apply killed after the stops resumes from
 * the snapshot staged on the members, which is only right while nothing was written since.
 *
 * <p>It is raised under {@link #MEMBER_ID}, a member id no member has, so every later plan tells it
 * from a real NOSPACE: a fence an interrupted apply left behind is lifted by the next apply, whatever
 * it plans; the restored database carries it too (etcd keeps alarms in its {@code alarm} bucket), so
 * a restore lifts it once the members answer. A real NOSPACE is never touched.
 */
public final class WriteFence {
    /** "etcdwrgt" in ASCII; etcdctl alarm list prints it as memberID:7310302550343464820. */
    public static final long MEMBER_ID = 0x6574636477726774L;
    private static final Duration PAUSE = Duration.ofMillis(500);

    private WriteFence() {
    }

    /** Raised through this member: applied by it (and so by the cluster's log) when this returns. */
    public static void raise(MemberRpc member) {
        member.alarm(AlarmRequest.AlarmAction.ACTIVATE, MEMBER_ID, AlarmType.NOSPACE);
    }

    /** Whether the facts show the fence raised. */
    public static boolean raisedIn(Optional<ClusterStatus> cluster) {
        String id = Long.toHexString(MEMBER_ID);
        return cluster.map(c -> c.alarms().stream().anyMatch(a -> a.memberId().equals(id) && a.type().equals("NOSPACE")))
                .orElse(false);
    }

    /**
     * The step lifting a fence an interrupted apply left raised (the facts show it), before anything
     * else of the plan: with it raised, members report the alarm and are not healthy.
     */
    public static Optional<Step> leftover(Optional<ClusterStatus> cluster, Health.Access access, List<String> clientUrls,
                                          Duration within) {
        if (!raisedIn(cluster)) {
            return Optional.empty();
        }
        return Optional.of(Step.cluster("restore", "lift-write-fence").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("lift etcdwright's write fence (etcd's NOSPACE alarm under member id " + Long.toHexString(MEMBER_ID) + ")")
                .reason("an apply interrupted before its restore left it raised: the cluster refuses writes until it is lifted")
                .observed("fence raised")
                .does(ctx -> lift(ctx, access, clientUrls, within)));
    }

    /**
     * Lifts the fence once a member answers (restored members need each other for a quorum, and an
     * alarm change is a raft proposal): CHANGED when it was raised, OK when it was not.
     */
    static Outcome lift(StepContext ctx, Health.Access access, List<String> clientUrls, Duration within)
            throws InterruptedException {
        TlsMaterial tls = access.tls();
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (true) {
            for (String url : clientUrls) {
                try (MemberRpc rpc = MemberRpc.connect(url, tls, Health.ATTEMPT_TIMEOUT)) {
                    int lifted = 0;
                    for (AlarmMember alarm : rpc.alarms()) {
                        if (alarm.getMemberID() == MEMBER_ID) {
                            rpc.alarm(AlarmRequest.AlarmAction.DEACTIVATE, MEMBER_ID, alarm.getAlarm());
                            lifted++;
                        }
                    }
                    ctx.note(lifted > 0 ? "write fence lifted through " + url : "no write fence raised (asked " + url + ")");
                    return lifted > 0 ? Outcome.CHANGED : Outcome.OK;
                } catch (StatusRuntimeException e) {
                    last = url + ": " + e.getStatus().getCode()
                            + (e.getStatus().getDescription() == null ? "" : " (" + e.getStatus().getDescription() + ")");
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cannot lift etcdwright's write fence (etcd's NOSPACE alarm under member id "
                        + Long.toHexString(MEMBER_ID) + "): no member answered within " + within.toSeconds() + " s; last: "
                        + last + ". Until it is lifted the cluster refuses writes. What to do: once the members are up"
                        + " ('etcdwright status'), apply again, or run 'etcdctl alarm disarm' with the admin client"
                        + " ('etcdwright client-env').");
            }
            Thread.sleep(PAUSE.toMillis());
        }
    }
}
