package io.etcdwright.modules.restore;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.cluster.CaRotation;
import io.etcdwright.modules.cluster.ClusterConditions;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.HostPreparation;
import io.etcdwright.modules.cluster.LeftBehindMembers;
import io.etcdwright.modules.cluster.PendingStops;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.PkiSteps;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The restore planner: every member of the spec rebuilt from one snapshot, in place or on new
 * hosts (disaster recovery: the inventory names the new hosts; quorum lost: the spec names the
 * members to rebuild). It reads as the order of the work:
 * <ol>
 * <li>refusals, all at once: an unreachable member host, a snapshot of another minor than the
 *     spec's (unless a minor downgrade restores the newer minor's on purpose), a version without a
 *     known restore tool, a snapshot without its hash trailer unless the operator skips the check;</li>
 * <li>what a planner built on it puts first ({@link Prelude}: a minor downgrade's checks);</li>
 * <li>the workstation's PKI and each host prepared by the converge modules (install, certificates,
 *     config with the restore's token, unit), etcd not started;</li>
 * <li>the snapshot taken, when this plan takes it (a minor downgrade's, {@link Prelude#snapshot});</li>
 * <li>the snapshot landed on every host and read there by the version's own tool, before anything
 *     is stopped;</li>
 * <li>every member stopped, a marker written first: the downtime begins;</li>
 * <li>every member's data restored beside it under a fresh token, the old data moved aside;</li>
 * <li>every member started side by side (they need each other for a quorum), etcdwright's write
 *     fence lifted if the snapshot carries it ({@link WriteFence}), all awaited healthy;</li>
 * <li>the proof: one cluster on the spec's version, the snapshot's revision (bumped where the tool
 *     can), its keys.</li>
 * </ol>
 */
public final class RestorePlanner {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /**
     * @param markers       each reachable member host's restore marker, if any ({@link RestoreMarker#probe})
     * @param skipHashCheck the operator's explicit --skip-hash-check, for a database without trailer
     * @param freshToken    the token a new restore uses (random, made by the caller); a resumed restore
     *                      keeps the token its markers record
     * @param now           when planned: names the directories the old data is moved to
     * @param minorDowngrade the snapshot may be of the minor above the spec's: a minor downgrade restores
     *                       it with the older minor's tool on purpose (3.5 save -> 3.4 restore was tested
     *                       upstream, etcd-io/etcd#15878); any other minor is refused all the same
     * @param replaced      the cluster as its members described it before the restore, with where the
     *                      removed-hosts notes go: its members whose hosts the spec no longer lists
     *                      are stopped or named ({@link LeftBehindMembers}); empty when not known
     */
    public record Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                         Map<String, String> unreachable, Map<String, Optional<RestoreMarker>> markers, ClusterPki pki,
                         ReleaseCache releases, RestoreSnapshot snapshot, boolean skipHashCheck, String freshToken,
                         Instant now, ConvergePlanner.Timeouts timeouts, boolean minorDowngrade,
                         Optional<Replaced> replaced) {
        public Inputs {
            facts = Map.copyOf(facts);
            unreachable = Map.copyOf(unreachable);
            markers = Map.copyOf(markers);
            java.util.Objects.requireNonNull(replaced, "replaced");
        }

        public Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                      Map<String, String> unreachable, Map<String, Optional<RestoreMarker>> markers, ClusterPki pki,
                      ReleaseCache releases, RestoreSnapshot snapshot, boolean skipHashCheck, String freshToken,
                      Instant now, ConvergePlanner.Timeouts timeouts, boolean minorDowngrade) {
            this(desired, layout, facts, unreachable, markers, pki, releases, snapshot, skipHashCheck, freshToken, now, timeouts,
                    minorDowngrade, Optional.empty());
        }

        /** The same, knowing the cluster the restore replaces (the members' own view before it). */
        public Inputs replacing(ClusterStatus cluster, PendingStops pendingStops) {
            return new Inputs(desired, layout, facts, unreachable, markers, pki, releases, snapshot, skipHashCheck, freshToken,
                    now, timeouts, minorDowngrade, Optional.of(new Replaced(cluster, pendingStops)));
        }

        /** The restore command's: a snapshot the operator named, of the spec's minor. */
        public Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                      Map<String, String> unreachable, Map<String, Optional<RestoreMarker>> markers, ClusterPki pki,
                      ReleaseCache releases, SnapshotSource source, boolean skipHashCheck, String freshToken,
                      Instant now, ConvergePlanner.Timeouts timeouts) {
            this(desired, layout, facts, unreachable, markers, pki, releases, RestoreSnapshot.of(source), skipHashCheck,
                    freshToken, now, timeouts, false);
        }
    }

    /** The cluster a restore replaces, and where hosts still to be stopped are noted for the next apply. */
    public record Replaced(ClusterStatus cluster, PendingStops pendingStops) {
    }

    /**
     * What a planner built on this one puts before the restore (a minor downgrade: its checks before
     * any host is touched, then the snapshot it restores, taken once every host is ready). The steps
     * it returns are added to the plan by the restore planner, in order.
     */
    interface Prelude {
        Prelude NONE = new Prelude() {
        };

        /** Why it cannot go ahead, besides the restore's own refusals. */
        default List<Refusal> refusals() {
            return List.of();
        }

        /** What the operator should know, shown before the restore's own warnings. */
        default List<String> warnings() {
            return List.of();
        }

        /** Steps every host step waits for: checks that must pass before anything is touched. */
        default List<Step> gate(List<Step> pki) {
            return List.of();
        }

        /** The step taking the snapshot, after {@code hostsReady}; staging waits for it. */
        default Optional<Step> snapshot(List<Step> hostsReady) {
            return Optional.empty();
        }
    }

    private final Inputs in;
    private final List<Member> members;
    private final String name;
    private final List<Step> steps = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    /**
     * A CA rotation under way whose new CA exists: the restored members come back trusting the
     * bundle of the old and the new CA. (One whose new generation is still to be made has not
     * touched a host yet: the restore uses the CA the members trust, the next apply starts it.)
     */
    private final Optional<CaRotation> rotation;
    /** How the workstation asks the restored members: the bundle as CA while a rotation runs. */
    private final Health.Access access;

    private RestorePlanner(Inputs in) {
        this.in = in;
        this.members = in.desired().members();
        this.name = in.desired().spec().name();
        in.desired().warnings().forEach(w -> warnings.add(w.toString()));
        this.rotation = CaRotation.of(in.pki(), in.desired(), in.facts()).filter(r -> r.newCa().isPresent());
        ClusterPki.LocalPair admin = in.pki().clientPair(io.etcdwright.modules.pki.HostCertificates.ADMIN);
        this.access = rotation.isPresent() ? new Health.Access(in.pki().rotation().bundle(), admin.cert(), admin.key())
                : Endpoints.healthAccess(in.pki());
    }

    public static Plan plan(Inputs in) {
        return plan(in, Prelude.NONE);
    }

    static Plan plan(Inputs in, Prelude prelude) {
        return new RestorePlanner(in).plan(prelude);
    }

    private Plan plan(Prelude prelude) {
        Version version = Version.parse(in.desired().spec().etcd().version());
        List<Refusal> refusals = refusals(version);
        refusals.addAll(prelude.refusals());
        Optional<RestoreTool> found = RestoreTool.of(version, VersionCatalogue.builtIn());
        if (!refusals.isEmpty() || found.isEmpty()) {
            return Plan.refused(name, refusals, warnings);
        }
        RestoreTool tool = found.get();
        String token = resumedToken().orElse(in.freshToken());
        sayWhatToExpect(tool, token);
        warnings.addAll(1, prelude.warnings());

        List<Step> pki = rotation.map(this::rotationRecord).orElseGet(() -> PkiSteps.workstation(in.pki()));
        steps.addAll(pki);
        List<Step> gate = prelude.gate(pki);
        steps.addAll(gate);
        List<io.etcdwright.modules.MemberModule> certificates = rotation.<List<io.etcdwright.modules.MemberModule>>map(r ->
                List.of(new RotationCertificatesModule(in.pki(), in.desired(), in.pki().rotation().bundle(), pki))).orElse(List.of());
        List<EtcdConfigFile.Peer> everyone = members.stream().map(m -> new EtcdConfigFile.Peer(m.name(), m.address())).toList();
        // The config carries the restore's token and the whole membership as a new cluster would:
        // etcd reads them only when it starts without data, so they describe the restored cluster
        // truthfully and the next apply keeps the token. The backup schedule is left to that apply:
        // a restore changes what etcd serves, not how the members take backups.
        Map<String, HostPreparation.Prepared> prepared = HostPreparation.plan(in.desired(), in.layout(), in.facts(),
                in.pki(), in.releases(), pki, gate, m -> new MemberContext.Bootstrap(everyone, false, token), certificates, steps,
                rotation.isPresent());
        List<Step> hostsReady = new ArrayList<>(gate);
        prepared.values().forEach(p -> hostsReady.addAll(p.done()));
        Optional<Step> snapshot = prelude.snapshot(concat(hostsReady, pki));
        snapshot.ifPresent(steps::add);

        List<Step> staged = stage(tool, prepared, snapshot);
        // Old members on hosts the spec no longer lists stop with the others (they would go on as the old cluster).
        LeftBehindMembers left = in.replaced().map(r -> LeftBehindMembers.of(r.cluster(), in.desired(), in.layout(),
                concat(staged, pki), r.pendingStops(), in.timeouts().restart())).orElse(LeftBehindMembers.NONE);
        steps.addAll(left.steps());
        warnings.addAll(left.warnings());
        List<Step> stops = stopAll(token, concat(staged, pki));
        List<Step> restores = restoreAll(tool, token, everyone, stops);
        Step healthy = startAll(restores);
        prove(tool, version, staged.get(0), healthy);
        // A restore replaces the cluster's data: only ever a person's, to its last host file.
        return new Plan(name, steps, List.of(), warnings).atLeast(SafetyClass.NEVER);
    }

    /**
     * The workstation's record of the rotation (its old CAs and the bundle), written before any
     * host gets the bundle: the restored members trust it, and the health checks use it. The
     * client certificates are left as they are: the rotation's phase 2 issues them, keeping the old
     * admin aside for its last proof.
     */
    private List<Step> rotationRecord(CaRotation r) {
        var files = in.pki().rotation();
        java.security.cert.X509Certificate fresh = r.newCa().orElseThrow();
        warnings.add("CA rotation under way (phase " + r.phase().description() + "): the restored members trust the old and"
                + " the new CA (" + files.bundle() + ") and keep the certificates the workstation holds for them, so clients"
                + " of either CA keep working; the next apply carries the rotation on from where the members then stand");
        return List.of(Step.cluster("pki", "ca-rotation").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("CA rotation: record the old CA" + (r.oldCas().size() == 1 ? "" : "s") + " and write the bundle "
                        + files.bundle())
                .reason("the restored members trust the old and the new CA while the rotation runs")
                .does(ctx -> files.begin(r.oldCas(), fresh) ? Outcome.CHANGED : Outcome.OK));
    }

    private List<Refusal> refusals(Version version) {
        List<Refusal> refusals = new ArrayList<>();
        for (Member m : members) {
            String host = m.host().name();
            if (in.unreachable().containsKey(host) || !in.facts().containsKey(host)) {
                refusals.add(new Refusal("unreachable-host", host,
                        "unreachable (" + in.unreachable().getOrDefault(host, "no facts gathered") + "); member " + m.name()
                                + " cannot be restored there",
                        "bring the host back, or, if it is gone, give member " + m.name() + " a new host in the"
                                + " inventory (a restore rebuilds every member, on new hosts too) and restore again"));
            }
        }
        Minor minor = version.minorLine();
        in.snapshot().takenBy().filter(v -> !v.minorLine().equals(minor))
                .filter(v -> !(in.minorDowngrade() && v.minorLine().equals(minor.next())))
                .ifPresent(v -> refusals.add(new Refusal("snapshot-version", in.snapshot().origin(),
                        "the snapshot was taken by etcd " + v + "; the spec runs " + version + ", another minor, and etcd"
                                + " restores only snapshots of its own minor",
                        "restore it with etcd " + v + " first (set etcd.version: " + v + "), then "
                                + (v.compareTo(version) < 0 ? "upgrade" : "move") + " to " + version + " with apply")));
        if (RestoreTool.of(version, VersionCatalogue.builtIn()).isEmpty()) {
            refusals.add(new Refusal("no-restore-tool", "etcd " + version,
                    "etcdwright knows no restore tool for etcd " + minor, "restore with a version of a known minor ("
                            + String.join(", ", VersionCatalogue.builtIn().minors().stream().map(Minor::toString).toList()) + ")"));
        }
        Optional<SnapshotSource> known = in.snapshot().known();
        if (known.isPresent() && !known.get().hashTrailer() && !in.skipHashCheck()) {
            refusals.add(new Refusal("snapshot-without-hash", known.get().origin(),
                    "it has no sha256 trailer (" + known.get().bytes() + " bytes of whole pages: a database copied from a"
                            + " member's disk, or a snapshot cut short), so nothing can show it is whole",
                    "use a snapshot taken with 'etcdctl snapshot save' or a backup; if this copied member/snap/db is the"
                            + " best that survived, pass --skip-hash-check to restore it unchecked"));
        }
        return refusals;
    }

    /**
     * The token of a restore an earlier, interrupted run began with this snapshot (its members were
     * stopped or restored under it): the members must share one.
     */
    private Optional<String> resumedToken() {
        Optional<String> sha = in.snapshot().known().map(SnapshotSource::sha256);
        return in.markers().values().stream().flatMap(Optional::stream)
                .filter(mk -> mk.inFlight() && sha.filter(mk.snapshotSha256()::equals).isPresent())
                .map(RestoreMarker::token).findFirst();
    }

    /** Whether this member's data is this snapshot's already, restored by an earlier run under this token. */
    private boolean restoredBefore(Member m, String token) {
        return in.snapshot().known().map(s -> in.markers().getOrDefault(m.host().name(), Optional.empty())
                .map(mk -> mk.resumes(s.sha256(), token)).orElse(false)).orElse(false);
    }

    private void sayWhatToExpect(RestoreTool tool, String token) {
        // Taken when the apply runs: about the size of the members' database now.
        long bytes = in.snapshot().known().map(SnapshotSource::bytes).orElseGet(() -> in.facts().values().stream()
                .mapToLong(f -> f.member().dbSize().orElse(0)).max().orElse(0));
        long seconds = 15 + bytes / (50L << 20);
        warnings.add(0, "DOWNTIME: every member is stopped, from the first stop step until all " + members.size()
                + " members are healthy again: about " + seconds + " s (" + bytes + " bytes restored on"
                + " every member side by side, then a start). Clients see no cluster meanwhile; stop the kube-apiservers"
                + " first if Kubernetes uses it.");
        warnings.add("restores " + in.snapshot().origin() + in.snapshot().known().map(s -> " (sha256 " + s.sha256() + ")").orElse("")
                + " with " + tool.tool() + " " + tool.version() + " under the new cluster token " + token
                + "; every member's old data is moved to " + in.layout().dataDir() + "." + suffix() + ", never deleted");
        if (in.snapshot().takenBy().isEmpty()) {
            warnings.add("the snapshot does not say which etcd took it: it is read as etcd " + tool.version().minorLine()
                    + " (the spec's); a snapshot of another minor must be restored with its own");
        }
        if (!tool.bumpsRevision()) {
            warnings.add(tool.tool() + " " + tool.version() + " cannot raise the revision (--bump-revision needs "
                    + VersionCatalogue.builtIn().bumpRevisionFrom(tool.version().minorLine()).map(v -> v + " or newer")
                    .orElse("another release") + "): watchers that saw later revisions (Kubernetes' informers) will not notice"
                    + " the restore; restart every kube-apiserver after it");
        }
        if (in.skipHashCheck() && in.snapshot().known().isPresent()) {
            SnapshotSource source = in.snapshot().known().get();
            warnings.add("--skip-hash-check: " + source.origin() + (source.hashTrailer()
                    ? " has a sha256 trailer and it matched; the tool is still told to skip it"
                    : " has no sha256 trailer; it is restored UNCHECKED"));
        }
    }

    /** The snapshot on every host, read there by the tool: a host that cannot read it stops the restore before any stop. */
    private List<Step> stage(RestoreTool tool, Map<String, HostPreparation.Prepared> prepared, Optional<Step> taking) {
        List<Step> staged = new ArrayList<>();
        RestoreSnapshot snapshot = in.snapshot();
        Optional<SnapshotSource> known = snapshot.known();
        for (Member m : members) {
            String host = m.host().name();
            Step.Builder step = Step.on(host, "restore", "restore/stage").safety(SafetyClass.NEVER).kind(ChangeKind.CREATE)
                    .summary("copy the snapshot to " + known.map(RestoreSteps::stagedPath).orElse(RestoreSteps.STAGING_DIR)
                            + " and read it with " + tool.tool() + " " + tool.version())
                    .reason(known.map(s -> s.bytes() + " bytes, sha256 " + s.sha256().substring(0, 16))
                            .orElse("the snapshot " + taking.map(Step::id).orElse("") + " takes"))
                    .observed(known.map(SnapshotSource::sha256).orElse("taken when applied"))
                    .after(prepared.get(host).done());
            taking.ifPresent(step::after);
            staged.add(step.does(ctx -> RestoreSteps.stage(ctx, snapshot.get(), tool)));
        }
        steps.addAll(staged);
        return staged;
    }

    private List<Step> stopAll(String token, List<Step> after) {
        List<Step> stops = new ArrayList<>();
        String marker = RestoreMarker.path(in.layout());
        for (Member m : members) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            Step step = Step.on(m.host().name(), "restore", "restore/stop").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                    .summary("stop etcd (DOWNTIME begins)")
                    .reason(restoredBefore(m, token) ? "restored by an earlier run: kept running"
                            : f.service().running() ? "running" : f.service().activeState())
                    .observed(f.service().activeState())
                    .after(after)
                    .does(ctx -> RestoreSteps.stop(ctx, in.snapshot().get(), token, marker, in.timeouts().restart()));
            steps.add(step);
            stops.add(step);
        }
        return stops;
    }

    private List<Step> restoreAll(RestoreTool tool, String token, List<EtcdConfigFile.Peer> everyone, List<Step> stops) {
        String initialCluster = everyone.stream().map(p -> p.name() + "=" + p.peerUrl(in.layout()))
                .collect(Collectors.joining(","));
        String dataDir = in.layout().dataDir();
        String suffix = suffix();
        String marker = RestoreMarker.path(in.layout());
        RestoreSnapshot snapshot = in.snapshot();
        List<Step> restores = new ArrayList<>();
        for (Member m : members) {
            String host = m.host().name();
            String peerUrl = new EtcdConfigFile.Peer(m.name(), m.address()).peerUrl(in.layout());
            EtcdHostFacts f = in.facts().get(host);
            Step step = Step.on(host, "restore", "restore/data").safety(SafetyClass.NEVER).kind(ChangeKind.UPDATE)
                    .summary("restore member " + m.name() + " into " + dataDir)
                    .reason(restoredBefore(m, token) ? "restored by an earlier run: kept"
                            : f.member().hasMemberData() ? "its data moves to " + dataDir + "." + suffix : "it holds no data")
                    .observed(snapshot.known().map(SnapshotSource::sha256).orElse("taken when applied") + "/" + token)
                    .after(stops)
                    .does(ctx -> {
                        SnapshotSource source = snapshot.get();
                        RestoreTool.Restore r = new RestoreTool.Restore(RestoreSteps.stagedPath(source), m.name(), peerUrl,
                                initialCluster, token, dataDir + ".restoring", in.skipHashCheck());
                        return RestoreSteps.restore(ctx, tool, r, dataDir, suffix, source, marker, in.timeouts().snapshot());
                    });
            steps.add(step);
            restores.add(step);
        }
        return restores;
    }

    /**
     * Every member started side by side, etcdwright's write fence lifted once they answer (a minor
     * downgrade's snapshot carries it; any other restore finds none), then all awaited healthy.
     */
    private Step startAll(List<Step> restores) {
        List<Step> starts = new ArrayList<>();
        for (Member m : members) {
            Step step = Step.on(m.host().name(), "restore", "restore/start").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                    .summary("start etcd on the restored data").reason("restored")
                    .after(restores)
                    .does(ctx -> ServiceSteps.start(ctx.session()));
            steps.add(step);
            starts.add(step);
        }
        List<String> clientUrls = Endpoints.clientUrls(members, in.layout());
        Step unfence = Step.cluster("restore", "restore/lift-write-fence").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("lift etcdwright's write fence if the snapshot carries it")
                .reason("a minor downgrade raises it before its snapshot, and etcd keeps alarms in its database")
                .after(starts)
                .does(ctx -> WriteFence.lift(ctx, access, clientUrls, in.timeouts().ready()));
        steps.add(unfence);
        Step healthy = Step.cluster("restore", "restore/healthy").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("wait for all " + members.size() + " restored members healthy (DOWNTIME ends)")
                .reason("started together: they need each other for a quorum")
                .after(unfence)
                .readyWhen(new ClusterConditions.AllHealthy(access, clientUrls, in.timeouts().ready()))
                .does(ctx -> Outcome.OK);
        steps.add(healthy);
        return healthy;
    }

    private void prove(RestoreTool tool, Version version, Step firstStage, Step healthy) {
        List<String> clientUrls = Endpoints.clientUrls(members, in.layout());
        Map<String, String> hosts = new LinkedHashMap<>();
        members.forEach(m -> hosts.put(m.host().name(), m.name()));
        long bump = tool.bumpsRevision() ? RestoreTool.BUMP : 0;
        String marker = RestoreMarker.path(in.layout());
        RestoreSnapshot snapshot = in.snapshot();
        steps.add(Step.cluster("restore", "restore/prove").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("prove the restore: one cluster on etcd " + version + ", revision at least the snapshot's"
                        + (bump > 0 ? " + " + bump : "") + ", " + snapshot.known().flatMap(SnapshotSource::liveKeys)
                        .map(k -> k + " keys").orElse(snapshot.known().isPresent() ? "its keys counted" : "the snapshot's keys"))
                .reason("checked from the workstation, not by the members' own word")
                .after(healthy)
                .does(ctx -> {
                    SnapshotSource source = snapshot.get();
                    long revision = ctx.outputOf(firstStage.id(), "revision").map(Long::parseLong)
                            .or(source::revision)
                            .orElseThrow(() -> new IllegalStateException("the snapshot's revision is unknown: the step"
                                    + " reading it did not run in this apply"));
                    return RestoreSteps.prove(ctx, access, clientUrls,
                            new RestoreSteps.Expectation(version.toString(), revision, bump, source.liveKeys()), hosts,
                            marker, RestoreSteps.stagedPath(source), in.timeouts().ready());
                }));
    }

    private String suffix() {
        return "pre-restore-" + STAMP.format(in.now()).toLowerCase();
    }

    private static List<Step> concat(List<Step> a, List<Step> b) {
        List<Step> all = new ArrayList<>(a);
        b.stream().filter(s -> !all.contains(s)).forEach(all::add);
        return all;
    }
}
