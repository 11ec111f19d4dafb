package io.etcdwright.modules.backup;

import io.etcd.jetcd.api.AlarmMember;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmType;
import io.etcd.jetcd.api.AuthGrpc;
import io.etcd.jetcd.api.AuthenticateRequest;
import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.DefragmentRequest;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseRevokeRequest;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.Member;
import io.etcd.jetcd.api.MemberListRequest;
import io.etcd.jetcd.api.SnapshotRequest;
import io.etcd.jetcd.api.SnapshotResponse;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.api.StatusResponse;
import io.etcdwright.modules.membership.GrpcLogging;
import io.etcdwright.modules.membership.TlsMaterial;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.netty.NettyChannelBuilder;

import javax.net.ssl.SSLException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One member's gRPC endpoint, spoken to directly with grpc-java: its status, the member list,
 * and its snapshot stream. Backups use this rather than jetcd: a snapshot is hundreds of
 * megabytes of 32 KiB messages, and a plain blocking stream with a large HTTP/2 window moves
 * them several times faster than jetcd's Vert.x stream, with flow control for free (the
 * stream waits while the file is written).
 */
public final class MemberRpc implements AutoCloseable {
    /** Enough HTTP/2 window for a fast link to stay busy while one message is written to disk. */
    private static final int FLOW_CONTROL_WINDOW = 8 << 20;

    private final String clientUrl;
    private final ManagedChannel channel;
    private final Duration timeout;

    private MemberRpc(String clientUrl, ManagedChannel channel, Duration timeout) {
        this.clientUrl = clientUrl;
        this.channel = channel;
        this.timeout = timeout;
    }

    public static MemberRpc connect(String clientUrl, TlsMaterial tls, Duration timeout) {
        GrpcLogging.quiet();
        URI uri = URI.create(clientUrl);
        try {
            NettyChannelBuilder builder = NettyChannelBuilder.forAddress(uri.getHost(), uri.getPort())
                    .flowControlWindow(FLOW_CONTROL_WINDOW)
                    .maxInboundMessageSize(64 << 20);
            if ("https".equals(uri.getScheme())) {
                builder.sslContext(tls.clientContext());
            } else {
                builder.usePlaintext();
            }
            return new MemberRpc(clientUrl, builder.build(), timeout);
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS for " + clientUrl + ": " + e.getMessage(), e);
        }
    }

    public String clientUrl() {
        return clientUrl;
    }

    public StatusResponse status() {
        return MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .status(StatusRequest.getDefaultInstance());
    }

    public List<Member> members() {
        return ClusterGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .memberList(MemberListRequest.getDefaultInstance()).getMembersList();
    }

    /** The cluster's raised alarms (NOSPACE, CORRUPT), as this member knows them. */
    public List<AlarmMember> alarms() {
        return MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .alarm(AlarmRequest.newBuilder().setAction(AlarmRequest.AlarmAction.GET).build()).getAlarmsList();
    }

    /**
     * Raises ({@code ACTIVATE}) or lifts ({@code DEACTIVATE}) an alarm: a raft proposal, applied by
     * this member before it answers. etcd records the alarm under the member id given, whoever that is.
     */
    public List<AlarmMember> alarm(AlarmRequest.AlarmAction action, long memberId, AlarmType type) {
        return MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .alarm(AlarmRequest.newBuilder().setAction(action).setMemberID(memberId).setAlarm(type).build())
                .getAlarmsList();
    }

    /**
     * Defragments this member's database: etcd rewrites it without its free pages, and the member
     * serves nothing (reads, writes, raft) until done. Bounded by this connection's timeout.
     */
    public void defragment() {
        MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .defragment(DefragmentRequest.getDefaultInstance());
    }

    /**
     * Whether the cluster has authentication enabled. Neither 3.4 nor jetcd has a status call for it,
     * so an authentication with a name no one has is tried: etcd answers "authentication is not
     * enabled" only when it is not; anything else (a failed authentication) means it is.
     */
    public boolean authEnabled() {
        try {
            AuthGrpc.newBlockingStub(channel).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .authenticate(AuthenticateRequest.newBuilder().setName("etcdwright-auth-probe")
                            .setPassword(Long.toHexString(System.nanoTime())).build());
            return true;
        } catch (StatusRuntimeException e) {
            String description = String.valueOf(e.getStatus().getDescription());
            if (description.contains("authentication is not enabled")) {
                return false;
            }
            if (description.contains("authentication failed") || description.contains("invalid user")) {
                return true;
            }
            throw e;
        }
    }

    /**
     * Proves the write path without touching the keyspace: a lease grant is a raft proposal that
     * the leader must commit with a quorum and this member apply; it is revoked right away.
     */
    public void leaseRoundTrip() {
        LeaseGrpc.LeaseBlockingStub lease = LeaseGrpc.newBlockingStub(channel);
        long id = lease.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .leaseGrant(LeaseGrantRequest.newBuilder().setTTL(30).build()).getID();
        lease.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .leaseRevoke(LeaseRevokeRequest.newBuilder().setID(id).build());
    }

    /** What etcd's Downgrade RPC is asked to do (etcd's {@code DowngradeRequest.DowngradeAction}). */
    public enum DowngradeAction {
        /** Whether the cluster can go to the target minor now: no change, an error saying why not. */
        VALIDATE,
        /** Starts it: validated again, then the leader lowers the cluster version and each member its storage. */
        ENABLE,
        /** Ends a downgrade under way: the cluster version goes back up once every member runs the newer minor. */
        CANCEL
    }

    /**
     * etcd's Maintenance/Downgrade (3.5 and newer servers; etcdctl has the command from 3.6). jetcd
     * does not carry it, so the request and answer are written by hand: {@code action = 1} (enum),
     * {@code version = 2} (string); the answer's {@code version = 2} is the cluster version.
     *
     * @param target the target minor, "3.5" (ignored by CANCEL)
     * @return the cluster version the member answered with
     * @throws StatusRuntimeException with etcd's reason when it refuses ("etcdserver: invalid downgrade
     *                                target version", "etcdserver: cluster has a downgrade job in progress")
     */
    public String downgrade(DowngradeAction action, String target) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        try {
            CodedOutputStream out = CodedOutputStream.newInstance(request);
            out.writeEnum(1, action.ordinal());
            if (action != DowngradeAction.CANCEL) {
                out.writeString(2, target);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] answer = ClientCalls.blockingUnaryCall(channel, DOWNGRADE,
                io.grpc.CallOptions.DEFAULT.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS), request.toByteArray());
        return field(answer, 2).map(ByteString::toStringUtf8).orElse("");
    }

    private static final MethodDescriptor<byte[], byte[]> DOWNGRADE = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("etcdserverpb.Maintenance", "Downgrade"))
            .setRequestMarshaller(Bytes.INSTANCE).setResponseMarshaller(Bytes.INSTANCE).build();

    /** A message passed as its bytes: the Downgrade call's, which no generated class here describes. */
    private enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
        INSTANCE;

        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The storage version a member's Status names ("3.6.0"), a field of etcd 3.6 that jetcd's older
     * message keeps among its unknown fields ({@code storageVersion = 11}); empty from 3.5 and older.
     */
    public static Optional<String> storageVersion(StatusResponse status) {
        return lengthDelimited(status.getUnknownFields(), 11).map(ByteString::toStringUtf8).filter(v -> !v.isEmpty());
    }

    /**
     * The target of the downgrade a member's Status says is under way ("3.5.0"), from etcd 3.6's
     * {@code downgradeInfo = 13} ({@code enabled = 1}, {@code targetVersion = 2}); empty when none is.
     * {@link #reportsDowngrade} tells whether the member says anything of downgrades at all.
     */
    public static Optional<String> downgradeTarget(StatusResponse status) {
        Optional<ByteString> info = lengthDelimited(status.getUnknownFields(), 13);
        if (info.isEmpty()) {
            return Optional.empty();
        }
        try {
            UnknownFieldSet fields = UnknownFieldSet.parseFrom(info.get());
            boolean enabled = fields.hasField(1) && fields.getField(1).getVarintList().stream().anyMatch(v -> v != 0);
            return enabled ? lengthDelimited(fields, 2).map(ByteString::toStringUtf8).filter(v -> !v.isEmpty()) : Optional.empty();
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the member's Status carries downgrade information (etcd 3.6 and newer always send it). */
    public static boolean reportsDowngrade(StatusResponse status) {
        return status.getUnknownFields().hasField(13);
    }

    private static Optional<ByteString> lengthDelimited(UnknownFieldSet fields, int number) {
        if (!fields.hasField(number)) {
            return Optional.empty();
        }
        List<ByteString> values = fields.getField(number).getLengthDelimitedList();
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(values.size() - 1));
    }

    private static Optional<ByteString> field(byte[] message, int number) {
        try {
            return lengthDelimited(UnknownFieldSet.parseFrom(message), number);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("etcd's Downgrade answer is not a protobuf message: " + e.getMessage(), e);
        }
    }

    /**
     * Writes the snapshot stream to {@code out}, every message as it comes, the sha256 trailer
     * included. The stream is cancelled when the member sends nothing for the timeout: a big
     * database takes as long as it takes, a stalled one does not hang the backup.
     */
    public void snapshot(OutputStream out) throws IOException {
        AtomicLong lastMessage = new AtomicLong(System.nanoTime());
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "snapshot-watchdog");
            t.setDaemon(true);
            return t;
        });
        Context.CancellableContext context = Context.current().withCancellation();
        ScheduledFuture<?> check = watchdog.scheduleAtFixedRate(() -> {
            if (System.nanoTime() - lastMessage.get() > timeout.toNanos()) {
                context.cancel(new IOException("no data from " + clientUrl + " for " + timeout.toSeconds() + " s"));
            }
        }, 1, 1, TimeUnit.SECONDS);
        Context previous = context.attach();
        try {
            Iterator<SnapshotResponse> stream = MaintenanceGrpc.newBlockingStub(channel).snapshot(SnapshotRequest.getDefaultInstance());
            while (stream.hasNext()) {
                stream.next().getBlob().writeTo(out);
                lastMessage.set(System.nanoTime());
            }
        } catch (StatusRuntimeException e) {
            Throwable cause = context.cancellationCause();
            throw new IOException(cause != null ? cause.getMessage() : e.getStatus().getCode() + ": " + e.getStatus().getDescription(), e);
        } finally {
            context.detach(previous);
            context.cancel(null);
            check.cancel(false);
            watchdog.shutdownNow();
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
