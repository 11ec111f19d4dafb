package io.etcdwright.modules.membership;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.cluster.MemberListResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.grpc.Status;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * The membership changes a resize or a replacement is made of, each safe to repeat: an apply that
 * was interrupted runs them again, so adding a learner that is already there, promoting a member
 * that is already a voter, or removing one that is already gone is the outcome asked for, not an
 * error. Outcomes are values; nothing here is decided by reading an error's text.
 *
 * <p>The learner-first order is etcd's own advice (see docs and etcd-operations.md): a learner is
 * outside quorum until promoted, so adding one never changes how many members must agree; it is
 * promoted only once it has caught up with the leader.
 */
public final class MembershipChanges implements AutoCloseable {
    private static final Duration LIST_RETRY_PAUSE = Duration.ofMillis(100);

    /** A member as the cluster lists it. An added member that never started has no name yet. */
    public record ClusterMember(String id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {
        public boolean started() {
            return !name.isEmpty();
        }
    }

    /** What a promotion did. */
    public sealed interface Promotion {
        /** The learner is now a voter. */
        record Promoted(String id) implements Promotion {
        }

        /** It already was a voter (an interrupted apply that promoted it before). */
        record AlreadyVoter(String id) implements Promotion {
        }

        /** No member has this id. */
        record NotFound(String id) implements Promotion {
        }

        /**
         * The learner has not caught up yet: its applied index against the leader's, and etcd's own
         * words when it was etcd that said so (its check of the leader's raft progress can disagree
         * with our estimate from applied indexes). Try again later.
         */
        record NotInSync(String id, long learnerIndex, long leaderIndex, Optional<String> etcdSays) implements Promotion {
            public NotInSync(String id, long learnerIndex, long leaderIndex) {
                this(id, learnerIndex, leaderIndex, Optional.empty());
            }
        }

        /** etcd refused for a reason of its own, in its words (e.g. not enough started voters). */
        record Refused(String id, Status.Code code, String serverSays) implements Promotion {
        }
    }

    /** What a removal did. */
    public sealed interface Removal {
        record Removed(String id) implements Removal {
        }

        /** It was not a member (any more): an interrupted apply removed it before. */
        record AlreadyGone(String id) implements Removal {
        }
    }

    /**
     * Pauses between tries that grow: a learner a few entries short is promoted within a fraction
     * of a second, one loading a large snapshot is not asked every half second for minutes.
     */
    public record Backoff(Duration first, Duration cap) {
        /** From 200 ms, doubling, at most 3 s apart. */
        public static final Backoff PROMOTION = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(3));

        public Backoff {
            if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
                throw new IllegalArgumentException("a backoff needs 0 < first <= cap, got " + first + " and " + cap);
            }
        }

        /** The pause after {@code previous}: twice as long, never more than the cap. */
        public Duration after(Duration previous) {
            Duration doubled = previous.multipliedBy(2);
            return doubled.compareTo(cap) > 0 ? cap : doubled;
        }
    }

    /** What connections are made with, kept to reach a single member (the leader) too. */
    private record Connection(List<URI> endpoints, TlsMaterial tls, Duration timeout) {
    }

    private final Client client;
    private final Connection settings;
    /**
     * Members this client removed: the leader committed each removal before answering, but a member
     * list is served from the answering member's own applied state, and round-robin may ask one
     * that has not applied it yet. Left out of {@link #members()} so a read after a removal is
     * never older than the removal itself.
     */
    private final java.util.Set<String> removedHere = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private MembershipChanges(Client client, Connection settings) {
        this.client = client;
        this.settings = settings;
    }

    /**
     * Connects to the cluster through {@code endpoints} (https client URLs) with the admin client's
     * files; every call is bounded by {@code timeout}.
     */
    public static MembershipChanges connect(List<String> endpoints, Path caCert, Path clientCert, Path clientKey,
                                            Duration timeout) {
        GrpcLogging.quiet();
        List<URI> uris = EtcdAdminClient.parseEndpoints(endpoints);
        Connection settings = new Connection(uris, TlsMaterial.read(caCert, clientCert, clientKey),
                timeout);
        return new MembershipChanges(client(uris, settings), settings);
    }

    private static Client client(List<URI> endpoints, Connection settings) {
        try {
            var builder = Client.builder().endpoints(endpoints.toArray(URI[]::new));
            if (!EtcdAdminClient.plaintext(endpoints)) {
                builder.sslContext(settings.tls().clientContext());
            }
            return builder.waitForReady(false).connectTimeout(settings.timeout()).retryMaxAttempts(0).build();
        } catch (SSLException e) {
            throw new EtcdAdminException("cannot set up TLS for the admin client: " + e.getMessage(), e);
        }
    }

    /** The cluster's members, learners and added-but-unstarted ones included. */
    public List<ClusterMember> members() {
        List<ClusterMember> members = new ArrayList<>();
        for (Member m : listMembers().getMembers()) {
            ClusterMember member = member(m);
            if (!removedHere.contains(member.id())) {
                members.add(member);
            }
        }
        return members;
    }

    /**
     * The member list from whichever endpoint answers. A read, so safe to ask again: an endpoint
     * that is going away (a member just removed stops itself) answers UNAVAILABLE, a learner (which
     * serves no member list) UNAVAILABLE up to etcd 3.5 and FAILED_PRECONDITION from 3.6 (seen on
     * 3.7.3 when a promotion asked right after its learner started), and a call in flight on the connection of a member that stops at
     * that moment fails as UNKNOWN ("channel closed": seen in LearnerInEndpointsTest under load,
     * asking right after the removed learner exited). Asked again after a short pause until the call timeout has passed,
     * not a fixed number of times: right after connecting only the learner's connection may be
     * ready, and immediate retries would all land on it; by the next try the others are ready and
     * round-robin moves on to them.
     */
    private MemberListResponse listMembers() {
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        while (true) {
            try {
                return get(client.getClusterClient().listMember());
            } catch (ExecutionException e) {
                Status.Code code = Failures.code(e.getCause());
                boolean askAgain = code == Status.Code.UNAVAILABLE || code == Status.Code.UNKNOWN
                        || Failures.refusedByLearner(e.getCause());
                if (!askAgain || System.nanoTime() > deadline) {
                    throw new EtcdAdminException("cannot list the members: " + Failures.describe(e.getCause(), settings.timeout()),
                            e.getCause());
                }
                sleep(LIST_RETRY_PAUSE);
            } catch (TimeoutException e) {
                throw new EtcdAdminException("cannot list the members: no answer within " + settings.timeout().toSeconds() + " s", e);
            }
        }
    }

    /**
     * Adds a learner with {@code peerUrl}, or returns the member that already has that peer URL
     * (added by an earlier, interrupted run: adding it again would fail with "Peer URLs already exists").
     * Matched by peer URL because a member that has not started yet has no name.
     *
     * <p>etcd refuses any add with UNAVAILABLE until the member serving it has been connected to
     * its peers for five seconds (its strict reconfiguration check; until 3.5.30 to every voter),
     * which is the case right after a start or a restart. Such refusals are asked again, each time
     * looking for the peer URL first so that an add whose answer was lost is not made twice,
     * until {@code within} has passed.
     *
     * @throws EtcdAdminException if the URL belongs to a voter (a different member than meant) or
     *                            etcd refuses the add for another reason (say, another learner is
     *                            still waiting: etcd 3.4 and 3.5 allow one)
     */
    public ClusterMember addLearner(String peerUrl, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            Optional<ClusterMember> existing = withPeerUrl(peerUrl);
            if (existing.isPresent()) {
                if (!existing.get().learner()) {
                    throw new EtcdAdminException("the peer URL " + peerUrl + " already belongs to voting member "
                            + describe(existing.get()) + "; it cannot be added again as a learner");
                }
                return existing.get();
            }
            try {
                return member(onVoters(voters -> voters.getClusterClient().addMember(List.of(URI.create(peerUrl)), true))
                        .getMember());
            } catch (ExecutionException e) {
                Status.Code code = Failures.code(e.getCause());
                boolean askAgain = code == Status.Code.UNAVAILABLE || code == Status.Code.UNKNOWN;
                if (!askAgain || System.nanoTime() > deadline) {
                    throw new EtcdAdminException("cannot add a learner with peer URL " + peerUrl + ": "
                            + Failures.describe(e.getCause(), settings.timeout()), e.getCause());
                }
                sleep(Duration.ofMillis(500));
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new EtcdAdminException("cannot add a learner with peer URL " + peerUrl + ": no answer within "
                            + settings.timeout().toSeconds() + " s", e);
                }
            }
        }
    }

    /**
     * Promotes the learner {@code id} (hex) if it has caught up; otherwise says how far it is.
     * Asking the numbers first is what lets an apply wait with a reason instead of guessing from
     * an error message.
     */
    public Promotion promote(String id) {
        Optional<ClusterMember> member = members().stream().filter(m -> m.id().equals(id)).findFirst();
        if (member.isEmpty()) {
            return new Promotion.NotFound(id);
        }
        if (!member.get().learner()) {
            return new Promotion.AlreadyVoter(id);
        }
        Optional<LearnerProgress> progress = progress(member.get());
        if (progress.isPresent() && !progress.get().caughtUp()) {
            return new Promotion.NotInSync(id, progress.get().appliedIndex(), progress.get().leaderRaftIndex());
        }
        try {
            onVoters(voters -> voters.getClusterClient().promoteMember(parseId(id)));
            return new Promotion.Promoted(id);
        } catch (ExecutionException e) {
            return refusedPromotion(id, e.getCause(), progress.map(LearnerProgress::appliedIndex).orElse(0L),
                    progress.map(LearnerProgress::leaderRaftIndex).or(this::leaderIndex).orElse(0L));
        } catch (TimeoutException e) {
            throw new EtcdAdminException("promoting member " + id + " got no answer within " + settings.timeout().toSeconds()
                    + " s; it may or may not have happened: the next apply asks again", e);
        }
    }

    /**
     * What a refused MemberPromote means, by gRPC code alone (etcd's texts differ between versions):
     * FAILED_PRECONDITION is etcd's answer while the learner is not ready, whatever our estimate
     * said: its leader judges by raft progress (Match of at least 90% of its own), which lags the
     * applied index we read. The same code covers a learner promoted in between (the next try
     * finds a voter) and too few started members (which a member still starting resolves), so
     * every FAILED_PRECONDITION is worth another try; {@code etcdSays} keeps the words for the
     * operator should the tries run out.
     */
    static Promotion refusedPromotion(String id, Throwable failure, long learnerIndex, long leaderIndex) {
        Status.Code code = Failures.code(failure);
        if (code == Status.Code.FAILED_PRECONDITION) {
            String says = Failures.description(failure);
            return new Promotion.NotInSync(id, learnerIndex, leaderIndex, says.isEmpty() ? Optional.empty() : Optional.of(says));
        }
        return new Promotion.Refused(id, code, Failures.description(failure));
    }

    /**
     * Waits until {@link #promote} succeeds or says the member is a voter, with pauses growing as
     * {@link Backoff#PROMOTION} says; gives up after {@code within} with the last progress seen.
     */
    public Promotion promoteWhenInSync(String id, Duration within) {
        return promoteWhenInSync(id, within, Backoff.PROMOTION, outcome -> { });
    }

    /** As {@link #promoteWhenInSync(String, Duration)}, telling {@code each} every answer that means "not yet". */
    public Promotion promoteWhenInSync(String id, Duration within, java.util.function.Consumer<Promotion> each) {
        return promoteWhenInSync(id, within, Backoff.PROMOTION, each);
    }

    /** {@link #promoteWhenInSync(String, Duration)} with pauses of one's own. */
    public Promotion promoteWhenInSync(String id, Duration within, Backoff backoff) {
        return promoteWhenInSync(id, within, backoff, outcome -> { });
    }

    private Promotion promoteWhenInSync(String id, Duration within, Backoff backoff, java.util.function.Consumer<Promotion> each) {
        long deadline = System.nanoTime() + within.toNanos();
        Duration pause = backoff.first();
        while (true) {
            Promotion outcome = promote(id);
            if (worthAnotherTry(outcome)) {
                each.accept(outcome);
            }
            long left = deadline - System.nanoTime();
            if (!worthAnotherTry(outcome) || left <= 0) {
                return outcome;
            }
            // The last pause ends at the deadline, so one more try is made then.
            sleep(pause.toNanos() < left ? pause : Duration.ofNanos(left));
            pause = backoff.after(pause);
        }
    }

    /** Not in sync yet, or the member asked is going away or starting (UNAVAILABLE). */
    static boolean worthAnotherTry(Promotion outcome) {
        return outcome instanceof Promotion.NotInSync
                || outcome instanceof Promotion.Refused refused && refused.code() == Status.Code.UNAVAILABLE;
    }

    /**
     * Removes member {@code id} (hex), or says it is already gone. Refusals with UNAVAILABLE (the
     * strict reconfiguration check right after a restart, see {@link #addLearner}) are asked again,
     * membership looked up first each time, until {@code within} has passed.
     */
    public Removal remove(String id, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        boolean asked = false;
        while (true) {
            if (members().stream().noneMatch(m -> m.id().equals(id))) {
                // Gone after a try whose answer was lost (the member removed may be the one that
                // was asked, and it stops before answering): that try removed it.
                return asked ? new Removal.Removed(id) : new Removal.AlreadyGone(id);
            }
            boolean askedBefore = asked;
            try {
                asked = true;
                onVoters(voters -> voters.getClusterClient().removeMember(parseId(id)));
                removedHere.add(id);
                return new Removal.Removed(id);
            } catch (ExecutionException e) {
                if (String.valueOf(e.getCause().getMessage()).contains("member not found")) {
                    // The list came from a member behind the leader: the removal is already committed.
                    removedHere.add(id);
                    return askedBefore ? new Removal.Removed(id) : new Removal.AlreadyGone(id);
                }
                Status.Code code = Failures.code(e.getCause());
                boolean askAgain = code == Status.Code.UNAVAILABLE || code == Status.Code.UNKNOWN;
                if (!askAgain || System.nanoTime() > deadline) {
                    throw new EtcdAdminException("cannot remove member " + id + ": "
                            + Failures.describe(e.getCause(), settings.timeout()), e.getCause());
                }
                sleep(Duration.ofMillis(500));
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new EtcdAdminException("cannot remove member " + id + ": no answer within "
                            + settings.timeout().toSeconds() + " s; it may or may not have happened: the next apply asks again", e);
                }
            }
        }
    }

    /**
     * Hands leadership to voter {@code transfereeId}: asked of the current leader, the only member
     * that can do it. Used before the leader itself is removed or stopped, so the cluster never
     * waits out an election timeout.
     */
    public void moveLeader(String transfereeId) {
        ClusterMember leader = leader().orElseThrow(() -> new EtcdAdminException("no member reports a leader: nothing to move"));
        if (leader.id().equals(transfereeId)) {
            return;
        }
        List<URI> leaderUrls = spoken(leader.clientUrls());
        try (Client toLeader = client(leaderUrls, settings)) {
            call(toLeader.getMaintenanceClient().moveLeader(parseId(transfereeId)),
                    "move leadership from " + describe(leader) + " to member " + transfereeId);
        }
    }

    /** The member that leads, as its peers report it. */
    public Optional<ClusterMember> leader() {
        for (ClusterMember m : members()) {
            Optional<StatusResponse> status = status(m);
            if (status.isPresent() && status.get().getLeader() != 0) {
                String leaderId = hex(status.get().getLeader());
                return members().stream().filter(x -> x.id().equals(leaderId)).findFirst();
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        client.close();
    }

    /** The learner's applied index against the leader's raft index, when both answer their Status call. */
    private Optional<LearnerProgress> progress(ClusterMember learner) {
        Optional<StatusResponse> own = status(learner);
        Optional<Long> leaderIndex = leaderIndex();
        if (own.isEmpty() || leaderIndex.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new LearnerProgress(own.get().getRaftAppliedIndex(), leaderIndex.get()));
    }

    private Optional<Long> leaderIndex() {
        return leader().flatMap(this::status).map(StatusResponse::getRaftIndex);
    }

    /** A member's own Status (any of its client URLs), or empty when it does not answer. */
    private Optional<StatusResponse> status(ClusterMember m) {
        for (URI url : spoken(m.clientUrls())) {
            try {
                return Optional.of(get(client.getMaintenanceClient().statusMember(url.toString())));
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                // not answering on this URL: try the next, else empty
            }
        }
        return Optional.empty();
    }

    /**
     * Runs a call that changes membership on the started voting members only. A learner refuses
     * such calls ("rpc not supported for learner"), and the round-robin client spread over every
     * endpoint can land each of them on it: a read the learner refuses is asked again and so moves
     * the round-robin on, which puts the call after every successful read on the learner. With one
     * voter and one learner ready that is every call, seen as a promotion refused for 3 minutes.
     */
    private <T> T onVoters(Function<Client, CompletableFuture<T>> call) throws ExecutionException, TimeoutException {
        List<URI> voterUrls = spoken(members().stream().filter(m -> m.started() && !m.learner())
                .flatMap(m -> m.clientUrls().stream()).toList());
        if (voterUrls.isEmpty()) {
            throw new EtcdAdminException("the member list names no started voting member with a client URL;"
                    + " membership cannot be changed through learners");
        }
        try (Client voters = client(voterUrls, settings)) {
            return get(call.apply(voters));
        }
    }

    /**
     * Of these advertised client URLs, those in the scheme this client speaks: a member moving to TLS
     * advertises http:// and https:// at once, and one jetcd client speaks TLS to all or to none.
     */
    private List<URI> spoken(List<String> urls) {
        String scheme = settings.endpoints().get(0).getScheme();
        return urls.stream().map(URI::create).filter(u -> scheme.equalsIgnoreCase(u.getScheme())).toList();
    }

    /**
     * Sets member {@code id}'s (hex) peer URLs, as {@code etcdctl member update} does; nothing when
     * they are these already. Never for a learner: etcd before 3.5.31 promoted a learner it updated.
     *
     * @return whether it changed them
     */
    public boolean updatePeerUrls(String id, List<String> peerUrls) {
        ClusterMember member = members().stream().filter(m -> m.id().equals(id)).findFirst()
                .orElseThrow(() -> new EtcdAdminException("member " + id + " is not in the member list"));
        if (member.peerUrls().equals(peerUrls)) {
            return false;
        }
        if (member.learner()) {
            throw new EtcdAdminException("member " + describe(member) + " is a learner: updating it would promote it on"
                    + " etcd before 3.5.31; promote it first");
        }
        List<URI> uris = peerUrls.stream().map(URI::create).toList();
        call(client.getClusterClient().updateMember(parseId(id), uris), "update the peer URLs of " + describe(member)
                + " to " + peerUrls);
        return true;
    }

    private Optional<ClusterMember> withPeerUrl(String peerUrl) {
        URI wanted = URI.create(peerUrl);
        return members().stream().filter(m -> m.peerUrls().stream().map(URI::create).anyMatch(wanted::equals)).findFirst();
    }

    private <T> T call(CompletableFuture<T> future, String what) {
        try {
            return get(future);
        } catch (ExecutionException e) {
            throw new EtcdAdminException("cannot " + what + ": " + Failures.describe(e.getCause(), settings.timeout()), e.getCause());
        } catch (TimeoutException e) {
            throw new EtcdAdminException("cannot " + what + ": no answer within " + settings.timeout().toSeconds() + " s", e);
        }
    }

    private <T> T get(CompletableFuture<T> future) throws ExecutionException, TimeoutException {
        try {
            return future.get(settings.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EtcdAdminException("interrupted", e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw e;
        }
    }

    private static ClusterMember member(Member m) {
        return new ClusterMember(hex(m.getId()), m.getName() == null ? "" : m.getName(),
                m.getPeerURIs().stream().map(URI::toString).toList(),
                m.getClientURIs().stream().map(URI::toString).toList(), m.isLearner());
    }

    private static String describe(ClusterMember m) {
        return (m.started() ? m.name() : "(not started)") + " (" + m.id() + ")";
    }

    /** Member ids as etcdctl and status print them (hex, unsigned). */
    static String hex(long id) {
        return Long.toHexString(id);
    }

    private static long parseId(String hex) {
        return Long.parseUnsignedLong(hex, 16);
    }

    private static void sleep(Duration d) {
        try {
            TimeUnit.NANOSECONDS.sleep(d.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EtcdAdminException("interrupted", e);
        }
    }
}
