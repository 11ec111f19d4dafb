package io.etcdwright.modules.cluster;

import io.etcdwright.modules.maintenance.MaintenanceChecks;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.backup.BackupsSeen;
import io.etcdwright.modules.backup.SafetySnapshot;
import io.etcdwright.modules.backup.schedule.BackupFreshness;
import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.backup.schedule.ScheduleTarget;
import io.etcdwright.modules.backup.schedule.ScheduleTools;
import io.etcdwright.modules.cluster.HostPreparation.Prepared;
import io.etcdwright.modules.config.ConfigFileModule;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.install.ReleaseCleanupModule;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.PkiSteps;
import io.etcdwright.modules.restore.MinorDowngradePlanner;
import io.etcdwright.modules.restore.WriteFence;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.upgrade.VersionChange;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The converge planner: from desired state and facts to the plan that creates a cluster or brings
 * it back to the spec (repairs, config and certificate changes, patch and one-minor version
 * changes, membership changes). It reads as the order of the work:
 * <ol>
 * <li>refusals first: every reason nothing can be done safely, all at once;</li>
 * <li>for a version change, the preflight checked when the apply runs, before any host is touched
 *     ({@link VersionSteps}); a patch hop first when a minor upgrade should start from a newer patch;</li>
 * <li>the workstation's PKI, then each host prepared by the modules in a chain (host setup,
 *     install, certificates, config, unit), hosts side by side;</li>
 * <li>stopped members started side by side, then every member awaited healthy;</li>
 * <li>a verified snapshot before a risky change (membership, any version change);</li>
 * <li>running members that must pick up a change restarted one at a time ({@link RollingRestart});</li>
 * <li>a CA rotation under way (members trusting another CA than the workstation's), one phase per
 *     apply ({@link CaRotationPlanner}); its workstation steps replace the PKI steps, and every
 *     health check trusts the bundle of the old and the new CA meanwhile;</li>
 * <li>membership changes ({@link MembershipChangePlanner});</li>
 * <li>for a minor upgrade, the cluster version awaited.</li>
 * </ol>
 * A minor downgrade out of 3.6 or newer rolls through etcd's downgrade API, planned by
 * {@link OnlineDowngradePlanner} (which also goes on with one under way, or cancels it when the spec
 * names the newer minor again). One out of 3.5 cannot roll: it is refused unless the operator allows
 * the downtime of a restore, then planned by {@link MinorDowngradePlanner}, which also finishes a
 * restore an interrupted apply left in flight. A write fence such an apply left raised is lifted first ({@link WriteFence}).
 * A running cluster whose members serve plain HTTP where the spec asks for mutual TLS is moved by
 * {@link TransportMigrationPlanner}, alone in its plan; the next apply converges the rest.
 */
public final class ConvergePlanner {
    /**
     * Everything a plan is computed from.
     *
     * @param facts        each reachable member host's facts
     * @param unreachable  member hosts whose facts could not be gathered, with why
     * @param cluster      the cluster's own member list and health, when a member answered
     * @param snapshotDir  where a verified snapshot is taken before a membership change or a minor
     *                     upgrade; empty when the operator said --no-snapshot
     * @param pendingStops removed members' hosts whose etcd is still to be stopped (an interrupted apply)
     * @param now          when it is planned: how old the newest scheduled backup is
     * @param versions     what the operator allows and the artifact source offers for version changes
     * @param backups      what the spec's backup stores hold, asked only when the cluster lost quorum
     *                     (a restore is then a way out, from the newest backup)
     */
    public record Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                         Map<String, String> unreachable, ClusterPki pki, ReleaseCache releases,
                         Optional<ClusterStatus> cluster, Optional<Path> snapshotDir, PendingStops pendingStops,
                         Timeouts timeouts, java.time.Instant now, VersionOptions versions,
                         Optional<String> newClusterToken, ClientHostFacts clientHosts, BackupsSeen.Lookup backups) {
        public Inputs {
            facts = Map.copyOf(facts);
            unreachable = Map.copyOf(unreachable);
            java.util.Objects.requireNonNull(clientHosts, "clientHosts");
            java.util.Objects.requireNonNull(backups, "backups");
        }

        /** The same, with the lookup of the backup stores a quorum-lost plan names its restore from. */
        public Inputs withBackups(BackupsSeen.Lookup lookup) {
            return new Inputs(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts,
                    now, versions, newClusterToken, clientHosts, lookup);
        }

        public Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                      Map<String, String> unreachable, ClusterPki pki, ReleaseCache releases,
                      Optional<ClusterStatus> cluster, Optional<Path> snapshotDir, PendingStops pendingStops,
                      Timeouts timeouts, java.time.Instant now, VersionOptions versions, Optional<String> newClusterToken) {
            this(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts, now,
                    versions, newClusterToken, ClientHostFacts.NONE, BackupsSeen.Lookup.notLooked("no lookup was given"));
        }

        /** The same, with the client files of the hosts that hold clients without running a member. */
        public Inputs withClientHosts(ClientHostFacts clients) {
            return new Inputs(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts,
                    now, versions, newClusterToken, clients, backups);
        }

        public Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                      Map<String, String> unreachable, ClusterPki pki, ReleaseCache releases,
                      Optional<ClusterStatus> cluster, Optional<Path> snapshotDir, PendingStops pendingStops,
                      Timeouts timeouts, java.time.Instant now, VersionOptions versions) {
            this(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts, now,
                    versions, Optional.empty());
        }

        /**
         * The same, bootstrapping a new cluster with {@code token} instead of a new random one: a plan
         * saved with 'plan --out' is applied only if planning again gives the same plan, so it must
         * name the same token it showed.
         */
        public Inputs withNewClusterToken(Optional<String> token) {
            return new Inputs(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts,
                    now, versions, token, clientHosts, backups);
        }

        public Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                      Map<String, String> unreachable, ClusterPki pki, ReleaseCache releases,
                      Optional<ClusterStatus> cluster, Optional<Path> snapshotDir, PendingStops pendingStops,
                      Timeouts timeouts, java.time.Instant now) {
            this(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts, now,
                    VersionOptions.DEFAULT);
        }

        Inputs withDesired(DesiredState other) {
            return new Inputs(other, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts,
                    now, versions, newClusterToken, clientHosts, backups);
        }

        /** Planned now. */
        public Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                      Map<String, String> unreachable, ClusterPki pki, ReleaseCache releases,
                      Optional<ClusterStatus> cluster, Optional<Path> snapshotDir, PendingStops pendingStops,
                      Timeouts timeouts) {
            this(desired, layout, facts, unreachable, pki, releases, cluster, snapshotDir, pendingStops, timeouts,
                    java.time.Instant.now());
        }
    }

    /**
     * How long steps wait, from flags: {@code ready} for health, a learner catching up, a membership
     * change to go through and the cluster version; {@code restart} for systemd to report etcd
     * (re)started or stopped; {@code snapshot} for a safety snapshot to stream to the workstation.
     */
    public record Timeouts(Duration ready, Duration restart, Duration snapshot) {
        public static final Timeouts DEFAULT = new Timeouts(Duration.ofMinutes(2), Duration.ofMinutes(3), Duration.ofMinutes(5));
    }

    /**
     * @param allowDowntime the operator's --allow-downtime: a change that stops every member (a minor
     *                      downgrade through restore) may be planned
     * @param offers        which newer patches the artifact source offers (asked only for a minor upgrade)
     */
    public record VersionOptions(boolean allowDowntime, VersionChange.PatchOffers offers) {
        public static final VersionOptions DEFAULT = new VersionOptions(false, VersionChange.PatchOffers.NONE);
    }

    /** What the steps of one plan share when they run: who the members are and how to reach them. */
    record Context(List<Member> members, EtcdLayout layout, Health.Access access, List<String> clientUrls, Timeouts timeouts) {
    }

    private final Inputs in;
    private final ClusterSpec spec;
    private final Context context;
    private final List<Step> steps = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    /** The version each member with data holds now, by member name: what the version change was decided from. */
    private final Map<String, Version> held;
    private final VersionChange version;
    /** A CA rotation under way (or started by this spec), from the hosts' CA files and certificates. */
    private final Optional<CaRotation> rotation;
    /** The class of the membership change's steps, and of its joiners' host files. */
    private SafetyClass joinerClass = SafetyClass.CHANGE;
    /** The cluster token members bootstrap with, chosen once per plan (existing, given, or new). */
    private String token;

    private ConvergePlanner(Inputs in, Map<String, Version> held, VersionChange version) {
        this.in = in;
        this.held = held;
        this.version = version;
        this.spec = in.desired().spec();
        // A read-only runner judges no rotation (it needs the CA key and the PKI's records); it reports one.
        this.rotation = in.pki().readOnly() ? Optional.empty() : CaRotation.of(in.pki(), in.desired(), in.facts());
        // While a rotation runs, members serve certificates of either CA: every check trusts the bundle.
        this.context = new Context(in.desired().members(), in.layout(),
                rotation.isPresent() ? CaRotationPlanner.access(in.pki()) : Endpoints.healthAccess(in.pki()),
                Endpoints.clientUrls(in.desired().members(), in.layout()), in.timeouts());
        in.desired().warnings().forEach(w -> warnings.add(w.toString()));
    }

    /** The plan, with what it changes of kube-apiserver's etcd flags ({@link KubeApiserverFlags}), whichever planner made it. */
    public static Plan plan(Inputs in) {
        Plan plan = planSteps(in);
        return plan.withClients(KubeApiserverFlags.changes(in, plan));
    }

    private static Plan planSteps(Inputs in) {
        Optional<Refusal> lowered = loweredCaGeneration(in);
        if (lowered.isPresent()) {
            return Plan.refused(in.desired().spec().name(), List.of(lowered.get()),
                    in.desired().warnings().stream().map(Object::toString).toList());
        }
        Map<String, Version> held = VersionSteps.held(in);
        VersionChange version = VersionSteps.change(in, held);
        // A restore an interrupted apply left in flight is finished, and a minor downgrade with the
        // downtime allowed is a restore from a snapshot: both are planned by the restore's planners.
        Optional<Plan> restore = MinorDowngradePlanner.plan(in, version, held, existingToken(in));
        if (restore.isPresent()) {
            return restore.get();
        }
        // A cluster without quorum first, alone: unreachable hosts and every other reason come after
        // it, and advice to change the membership (which cannot commit) must not be given.
        Optional<Refusal> quorumLost = QuorumLoss.refusal(in);
        if (quorumLost.isPresent()) {
            return Plan.refused(in.desired().spec().name(), List.of(quorumLost.get()),
                    in.desired().warnings().stream().map(Object::toString).toList());
        }
        // Members whose transport is behind the spec's (plain HTTP to TLS) move first, in a plan of their own.
        Optional<Plan> transport = TransportMigrationPlanner.plan(in, version);
        if (transport.isPresent()) {
            return transport.get();
        }
        // A minor downgrade through etcd's downgrade API, one under way, or its cancel: a planner of its own.
        Optional<Plan> online = OnlineDowngradePlanner.plan(in, version);
        if (online.isPresent()) {
            return online.get();
        }
        // A hop (the newest patch before a minor step) is installed in place of the spec's version.
        Optional<String> installs = version.installs().map(Version::toString)
                .filter(v -> !v.equals(in.desired().spec().etcd().version()));
        return new ConvergePlanner(installs.map(v -> in.withDesired(in.desired().withEtcdVersion(v))).orElse(in), held, version).plan();
    }

    /**
     * tls.pki.caGeneration below the generation the workstation's CA is at: refused, never ignored
     * (an operator who lowered it expects something to happen, and nothing safe can).
     */
    static Optional<Refusal> loweredCaGeneration(Inputs in) {
        ClusterPki pki = in.pki();
        if (!pki.generationLowered()) {
            return Optional.empty();
        }
        int asked = pki.settings().caGeneration();
        int held = pki.caGeneration();
        Path previous = pki.settings().dir().resolve("previous-ca").resolve("generation-" + asked);
        return Optional.of(new Refusal("ca-generation-lowered", "cluster " + in.desired().spec().name(),
                "tls.pki.caGeneration is " + asked + ", but the workstation's CA (" + pki.caCertFile() + ") is generation "
                        + held + ", which stays in effect: a CA generation cannot go back",
                "set tls.pki.caGeneration: " + held + " again (raise it above " + held + " to rotate to a new CA); to return to"
                        + " an older CA, drop caGeneration and name that CA in tls.pki.ca (cert: " + previous.resolve("ca.crt")
                        + ", key: " + previous.resolve("ca.key") + "): the next applies rotate to it without downtime"));
    }

    private Plan plan() {
        List<Refusal> refusals = new ArrayList<>();
        unreachableHosts(refusals);
        if (!refusals.isEmpty()) {
            return Plan.refused(spec.name(), refusals, warnings); // without their facts, nothing else can be judged
        }
        // Alarms, disk space and latency, clocks: warned about (or, a disk with no room left, refused) first.
        MaintenanceChecks.Findings maintenance = MaintenanceChecks.of(in.facts(), in.cluster(),
                MaintenanceChecks.quotaBytes(spec.etcd()), Endpoints.peerUrls(in.desired().members(), in.layout()));
        warnings.addAll(maintenance.warnings());
        refusals.addAll(maintenance.refusals());
        // Trust-only: whatever would need a certificate issued is refused, the earliest expiry warned about.
        TrustOnlyChecks.Findings trustOnly = TrustOnlyChecks.of(in);
        warnings.addAll(trustOnly.warnings());
        refusals.addAll(trustOnly.refusals());
        ScheduleTarget.Resolved schedule = ScheduleTarget.resolve(in.desired());
        refusals.addAll(schedule.refusals());
        schedule.target().ifPresent(target -> refusals.addAll(ScheduleTools.refusals(target, in.desired().members(), in.facts())));
        refusals.addAll(io.etcdwright.modules.monitoring.CertificateMetricsModule.refusals(in.desired(), in.facts()));
        Optional<MembershipChangePlanner> membership = MembershipChangePlanner.of(in, refusals);
        VersionSteps.refusal(version, in.versions().allowDowntime(), spec.name()).ifPresent(refusals::add);
        refusals.addAll(VersionSteps.settingsRefusals(spec, version));
        refusals.addAll(VersionSteps.learnerRefusals(version, in));
        rotation.ifPresent(r -> refusals.addAll(CaRotationPlanner.refusals(in, r,
                membership.isPresent() || !(version instanceof VersionChange.Unchanged))));
        if (rotation.isPresent() && !spec.tls().transport().equals(io.etcdwright.engine.spec.Tls.Transport.MUTUAL_TLS)) {
            // Each phase is proved by TLS handshakes with the members, which plain HTTP has none of.
            refusals.add(new Refusal("ca-rotation-without-tls", "cluster " + spec.name(),
                    "a CA rotation is asked for, but tls.transport keeps plain HTTP for "
                            + (spec.tls().transport().clients() == spec.tls().transport().peers() ? "clients and peers"
                            : spec.tls().transport().clients() == io.etcdwright.engine.spec.Tls.Mode.PLAINTEXT ? "clients" : "peers")
                            + ": the members do not use their CA there, and the rotation's phases are proved by TLS handshakes",
                    "move the cluster to mutual TLS first (tls.transport: mutual-tls, one apply), then rotate the CA"));
        }
        if (!refusals.isEmpty()) {
            return Plan.refused(spec.name(), refusals, warnings);
        }
        membership.ifPresent(m -> warnings.addAll(m.warnings()));
        warnings.addAll(version.warnings());
        Map<String, List<EtcdConfigFile.Peer>> joiners = membership.map(MembershipChangePlanner::joiners).orElse(Map.of());
        // A joiner's host files are part of its join: a repair when it re-joins after its data was lost.
        joinerClass = membership.map(MembershipChangePlanner::safety).orElse(SafetyClass.CHANGE);

        ClientHostSteps clientHosts = new ClientHostSteps(in.desired(), in.pki(), in.clientHosts(), steps);
        warnings.addAll(clientHosts.warnings());
        Optional<CaRotationPlanner> rotating = rotation.map(r -> new CaRotationPlanner(in, r, context, steps, clientHosts));
        List<Step> pki = rotating.map(CaRotationPlanner::workstationSteps).orElseGet(this::workstationPki);
        if (rotating.isEmpty()) {
            // Hosts that run no member get their client files beside the members' certificates; nothing waits for them.
            clientHosts.deliver(pki);
        }
        clientHosts.remove(pki);
        // A write fence an interrupted downgrade left raised is lifted before anything else: members report it as an alarm.
        List<Step> gate = new ArrayList<>(WriteFence.leftover(in.cluster(), context.access(), context.clientUrls(),
                in.timeouts().ready()).stream().toList());
        VersionSteps.preflight(version, held, context, in, List.copyOf(gate)).ifPresent(gate::add);
        steps.addAll(gate);

        // Unchanged: every member with data holds the spec's version already.
        boolean settled = membership.isEmpty() && version instanceof VersionChange.Unchanged;
        // A minor step (after a hop to the patch it requires, or alone) comes after the rest, member by member
        // (minorStep); with a membership change in the same plan, a hop stops at its patch and a resumed minor
        // step is prepared as any other change (its joiners need the release before they join).
        Optional<VersionChange.MinorUpgrade> minor = VersionSteps.minorStep(version);
        if (minor.isPresent() && membership.isPresent()) {
            if (version instanceof VersionChange.Patch) {
                warnings.add("with a membership change in this plan, it stops at " + minor.get().from() + "; the next apply"
                        + " upgrades the members to " + minor.get().to());
            }
            minor = Optional.empty();
        }
        boolean stagedMinor = minor.isPresent();
        Map<String, Prepared> prepared = prepareHosts(pki, gate, joiners, List.of(new BackupScheduleModule(schedule.target()),
                new io.etcdwright.modules.maintenance.DefragScheduleModule(spec, in.desired().members()),
                new io.etcdwright.modules.monitoring.CertificateMetricsModule(in.desired()),
                new ReleaseCleanupModule(settled)), !(stagedMinor && version instanceof VersionChange.MinorUpgrade));
        List<Step> last = startStopped(prepared, joiners, pki).map(List::of).orElse(List.of());
        boolean risky = membership.isPresent() || !(version instanceof VersionChange.Unchanged);
        if (risky) {
            // After the preflight: a snapshot of a cluster about to be refused would only cost time.
            // Before a re-join alone, the snapshot is part of the repair; before anything the spec asked for, a change.
            SafetyClass snapshotClass = version instanceof VersionChange.Unchanged ? joinerClass : SafetyClass.CHANGE;
            last = snapshot(version, concat(last, gate), pki, snapshotClass).map(List::of).orElse(last);
        }
        last = restartChanged(prepared, joiners, concat(last, pki));
        if (rotating.isPresent()) {
            last = rotating.get().steps(concat(last, pki));
            warnings.addAll(rotating.get().warnings());
        }
        if (minor.isPresent()) {
            last = minorStep(minor.get(), concat(last, pki));
        }
        if (membership.isPresent()) {
            Map<String, List<Step>> lastOf = new LinkedHashMap<>();
            prepared.forEach((host, p) -> lastOf.put(host, p.done()));
            List<Step> changes = membership.get().steps(concat(last, pki), lastOf, context);
            steps.addAll(changes);
            last = List.of(changes.get(changes.size() - 1));
        }
        steps.addAll(unfinishedStops(membership.map(MembershipChangePlanner::hostsStopped).orElse(Set.of())));
        if (version instanceof VersionChange.MinorUpgrade upgrade && minor.isEmpty()) {
            minor = Optional.of(upgrade);
        }
        if (minor.isPresent() && !last.isEmpty()) {
            awaitClusterVersion(minor.get(), last);
        }
        List<io.etcdwright.engine.plan.Drift> drift = new ArrayList<>(
                schedule.target().map(t -> BackupFreshness.drift(t, in.facts(), in.now())).orElse(List.of()));
        drift.addAll(trustOnly.drift());
        if (in.pki().readOnly() && CaRotation.of(in.pki(), in.desired(), in.facts()).isPresent()) {
            drift.add(new io.etcdwright.engine.plan.Drift("ca-rotation", "cluster " + spec.name(),
                    "members trust a CA other than this runner's " + in.pki().caCertFile() + " alone (a CA rotation under way,"
                            + " or a reader issued before the last rotation)",
                    "finish or check the rotation from a workstation that holds the PKI; after a rotation, issue the reader"
                            + " again ('etcdwright certs issue-reader')"));
        }
        drift.addAll(io.etcdwright.modules.maintenance.DefragRuns.drift(spec, in.facts()));
        io.etcdwright.modules.monitoring.CertificateMetricsModule.refreshAfterCertificates(in.desired(), steps);
        return new Plan(spec.name(), steps, List.of(), warnings, drift);
    }

    private void unreachableHosts(List<Refusal> refusals) {
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            if (in.unreachable().containsKey(host) || !in.facts().containsKey(host)) {
                refusals.add(new Refusal("unreachable-host", host,
                        "unreachable (" + in.unreachable().getOrDefault(host, "no facts gathered") + "); a plan made without"
                                + " its facts could be wrong",
                        "bring the host back (power, network, sshd; 'etcdwright facts' shows what is reached), or, if it is"
                                + " gone for good, give member " + m.name() + " a new host in the inventory and plan again"));
            }
        }
    }

    /** The CA and the client certificates, made on the workstation before anything needs them. */
    private List<Step> workstationPki() {
        List<Step> pki = PkiSteps.workstation(in.pki());
        steps.addAll(pki);
        return pki;
    }

    /**
     * Each member's host, brought to the spec by the modules in order ({@link HostPreparation}),
     * then {@code after}: the backup schedule (its script runs the etcdctl the install links and the
     * admin certificate) and the removal of releases a settled version change left behind.
     */
    private Map<String, Prepared> prepareHosts(List<Step> pki, List<Step> gate, Map<String, List<EtcdConfigFile.Peer>> joiners,
                                               List<MemberModule> after, boolean release) {
        return HostPreparation.plan(in.desired(), in.layout(), in.facts(), in.pki(), in.releases(), pki, gate,
                bootstrap(joiners), after, steps, rotation.isPresent(), release,
                m -> joiners.containsKey(m.name()) ? Optional.of(joinerClass) : Optional.empty());
    }

    /** How each member starts: its config's initial cluster, state and token (one token for the whole plan). */
    private java.util.function.Function<Member, MemberContext.Bootstrap> bootstrap(Map<String, List<EtcdConfigFile.Peer>> joiners) {
        if (token == null) {
            token = existingToken(in).or(in::newClusterToken).orElseGet(() -> spec.name() + "-" + randomHex());
        }
        String chosen = token;
        List<EtcdConfigFile.Peer> everyone = in.desired().members().stream()
                .map(m -> new EtcdConfigFile.Peer(m.name(), m.address())).toList();
        return m -> {
            boolean joining = joiners.containsKey(m.name());
            return new MemberContext.Bootstrap(joining ? joiners.get(m.name()) : everyone, joining, chosen);
        };
    }

    /**
     * The minor step, after {@code after} (the hop's last restart, or the snapshot): etcd's checks
     * before it, when the apply runs ({@link VersionSteps#upgradeChecks}); the new release streamed to
     * every host at once, all of it before any member moves; then, one member at a time, followers first and the leader last, the member's
     * config (as the new release spells the spec's settings) and unit written just before its own
     * restart, so that an apply stopped anywhere leaves every other member's files matching the release
     * it runs. Members that already run the new release (a resumed step) are not restarted.
     */
    private List<Step> minorStep(VersionChange.MinorUpgrade upgrade, List<Step> after) {
        // Each member's release when the checks run: the hop's patch after a hop, else what it runs now.
        Map<String, Version> olderMinor = new LinkedHashMap<>();
        in.desired().members().forEach(m -> olderMinor.put(m.name(), version instanceof VersionChange.Patch ? upgrade.from()
                : held.getOrDefault(m.name(), upgrade.to())));
        List<Step> gate = VersionSteps.upgradeChecks(upgrade, olderMinor, context, in, after).map(checks -> {
            steps.add(checks);
            return List.of(checks);
        }).orElse(after);
        DesiredState target = in.desired().withEtcdVersion(upgrade.to().toString());
        java.util.function.Function<Member, MemberContext.Bootstrap> bootstrap = bootstrap(Map.of());
        Map<String, List<Step>> installed = new LinkedHashMap<>();
        Map<String, List<String>> causes = new LinkedHashMap<>();
        List<Member> restarting = new ArrayList<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            installed.put(m.host().name(), HostPreparation.minorStep(target, m, in.layout(), f,
                    List.of(new io.etcdwright.modules.install.InstallModule(in.releases())), gate, bootstrap.apply(m), steps, false)
                    .done());
            // After a hop every member runs the hop's release by then: each restarts. Else what it runs now decides.
            List<String> why = version instanceof VersionChange.Patch ? List.of("etcd " + upgrade.to() + " after " + upgrade.from())
                    : HostPreparation.restartCauses(new MemberContext(m, f, target.spec(), in.layout(), bootstrap.apply(m)),
                    in.releases());
            if (why.isEmpty()) {
                files(target, m, concat(gate, installed.get(m.host().name())), bootstrap);
            } else {
                causes.put(m.host().name(), why);
                restarting.add(m);
            }
        }
        if (restarting.isEmpty()) {
            return gate;
        }
        List<Member> ordered = RollingRestart.order(restarting, m -> in.facts().get(m.host().name()).member().status()
                .map(MemberFacts.LocalStatus::isLeader).orElse(false));
        // No member moves before every host holds the new release: a failed install stops the step with
        // every member still on the older minor, and no restart competes with the others' unpacking.
        List<Step> everyRelease = gate;
        for (List<Step> release : installed.values()) {
            everyRelease = concat(everyRelease, release);
        }
        List<Step> restarts = RollingRestart.steps("restart-" + HostPreparation.MINOR_TAG, "restart etcd on " + upgrade.to(),
                ordered, causes, (m, previous) -> {
            List<Step> release = installed.get(m.host().name());
            // What the newer minor needs of this member's own files first (the catalogue's beforeEachMember):
            // a raft snapshot past etcd 3.5's log entries before 3.7, taken on the release it runs now.
            Version runs = version instanceof VersionChange.Patch ? upgrade.from() : held.getOrDefault(m.name(), upgrade.from());
            Optional<Step> snapshot = SnapshotBeforeMinor.plan(upgrade, m, runs, in.desired(), context, in, bootstrap.apply(m),
                    ordered.subList(0, ordered.indexOf(m)), concat(previous, release));
            snapshot.ifPresent(steps::add);
            List<Step> prepared = concat(release, snapshot.map(List::of).orElse(List.of()));
            return concat(prepared, files(target, m, snapshot.map(List::of).orElse(concat(previous, release)), bootstrap));
        }, everyRelease, context, steps::add, m -> SafetyClass.CHANGE);
        return List.of(restarts.get(restarts.size() - 1));
    }

    /** A member's config and unit for the minor step's release, after {@code after}. */
    private List<Step> files(DesiredState target, Member m, List<Step> after,
                             java.util.function.Function<Member, MemberContext.Bootstrap> bootstrap) {
        return HostPreparation.minorStep(target, m, in.layout(), in.facts().get(m.host().name()),
                List.of(new ConfigFileModule(), new io.etcdwright.modules.service.UnitModule()), after, bootstrap.apply(m),
                steps, true).done();
    }

    /**
     * Members that do not run are started side by side (joiners excepted: their join step starts
     * them), then all are awaited healthy: bootstrapping members report ready only together.
     */
    private Optional<Step> startStopped(Map<String, Prepared> prepared, Map<String, List<EtcdConfigFile.Peer>> joiners,
                                        List<Step> pki) {
        List<Step> starts = new ArrayList<>();
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            EtcdHostFacts f = in.facts().get(host);
            if (joiners.containsKey(m.name()) || f.service().running()) {
                continue;
            }
            // A member with its data, stopped: starting it is routine, and what brings a lost quorum back. A member
            // without data (a new cluster's, or a first member that never started) starts what a person's create began.
            Step.Builder start = Step.on(host, "service", "start").kind(ChangeKind.ACTION)
                    .safety(f.member().hasMemberData() ? SafetyClass.ROUTINE : SafetyClass.CHANGE).summary("start etcd")
                    .reason(f.service().activeState().equals("failed") ? "failed" : "not running")
                    .observed(f.service().activeState());
            start.after(prepared.get(host).done());
            Step step = start.does(ctx -> ServiceSteps.start(ctx.session()));
            steps.add(step);
            starts.add(step);
        }
        if (starts.isEmpty()) {
            return Optional.empty();
        }
        int n = in.desired().members().size();
        boolean bootstrap = in.desired().members().stream().noneMatch(m -> in.facts().get(m.host().name()).service().running());
        Step healthy = Step.cluster("membership", "healthy").kind(ChangeKind.ACTION)
                .safety(SafetyClass.strictest(starts.stream().map(Step::safety).toList(), SafetyClass.ROUTINE))
                .summary(bootstrap ? "bootstrap cluster " + spec.name() + ": wait for all " + n + " members healthy"
                        : "wait for all " + n + " members healthy")
                .reason(starts.size() + " member" + (starts.size() == 1 ? "" : "s") + " started")
                .after(concat(starts, pki))
                .readyWhen(new ClusterConditions.AllHealthy(context.access(), context.clientUrls(), in.timeouts().ready()))
                .does(ctx -> Outcome.OK);
        steps.add(healthy);
        return Optional.of(healthy);
    }

    /** A verified snapshot before a change that cannot simply be undone; a warning when the operator declined it. */
    private Optional<Step> snapshot(VersionChange version, List<Step> after, List<Step> pki, SafetyClass safety) {
        if (in.snapshotDir().isEmpty()) {
            warnings.add("no snapshot before this change (--no-snapshot): if it goes wrong, only an older backup can bring the"
                    + " cluster back");
            return Optional.empty();
        }
        Path dir = in.snapshotDir().get();
        String label = VersionSteps.snapshotLabel(version).orElse("before-membership-change");
        Health.Access access = context.access();
        List<String> clientUrls = context.clientUrls();
        Step snapshot = Step.cluster("backup", "snapshot").kind(ChangeKind.ACTION).safety(safety)
                .summary("snapshot the cluster to " + dir).reason(label.replace('-', ' ') + "; verified against its sha256")
                .after(concat(after, pki))
                .does(ctx -> {
                    SafetySnapshot.Saved saved;
                    try (Progress received = ctx.transfer("snapshot of the cluster", -1)) {
                        saved = SafetySnapshot.take(access, clientUrls, dir, label, in.timeouts().snapshot(), received::advanced);
                    }
                    ctx.note(saved.file() + ": " + saved.bytes() + " bytes, sha256 " + saved.sha256());
                    return Outcome.CHANGED;
                });
        steps.add(snapshot);
        return Optional.of(snapshot);
    }

    /** Running members whose binary, certificates, config or unit changed, restarted one at a time. */
    private List<Step> restartChanged(Map<String, Prepared> prepared, Map<String, List<EtcdConfigFile.Peer>> joiners,
                                      List<Step> after) {
        List<Member> changed = in.desired().members().stream()
                .filter(m -> !joiners.containsKey(m.name()))
                .filter(m -> in.facts().get(m.host().name()).service().running())
                .filter(m -> !prepared.get(m.host().name()).restartCauses().isEmpty())
                .toList();
        if (changed.isEmpty()) {
            return after;
        }
        Map<String, List<String>> causes = new LinkedHashMap<>();
        Map<String, List<Step>> lastOf = new LinkedHashMap<>();
        prepared.forEach((host, p) -> {
            causes.put(host, p.restartCauses());
            lastOf.put(host, p.done());
        });
        List<Member> ordered = RollingRestart.order(changed, m -> in.facts().get(m.host().name()).member().status()
                .map(MemberFacts.LocalStatus::isLeader).orElse(false));
        List<Step> restarts = RollingRestart.steps(ordered, causes, lastOf, after, context,
                m -> prepared.get(m.host().name()).restartSafety());
        steps.addAll(restarts);
        return List.of(restarts.get(restarts.size() - 1));
    }

    /**
     * Stops an interrupted apply left undone on removed members' hosts (see {@link PendingStops}):
     * only with the cluster's member list at hand, which proves the members gone; not on hosts
     * this plan's membership changes stop anyway ({@code stopping}).
     */
    private List<Step> unfinishedStops(Set<String> stopping) {
        if (in.cluster().isEmpty()) {
            return List.of();
        }
        return RemovedHost.unfinished(in.pendingStops().pending(), in.desired().inventory().hosts().values(),
                        in.desired().members(), in.cluster().get().members(), stopping, in.layout().dataDir()).stream()
                // Finishing the removal a person's apply made: a change.
                .map(u -> MembershipSteps.stopRemoved(u.member(), u.host(), List.of(), in.pendingStops(), in.timeouts().restart(),
                        SafetyClass.CHANGE))
                .toList();
    }

    /**
     * The cluster speaks the new minor only when the leader raises the cluster version, once every
     * member runs it: until then the upgrade is not done (and can still be rolled back).
     */
    private void awaitClusterVersion(VersionChange.MinorUpgrade upgrade, List<Step> after) {
        String minor = upgrade.to().minorLine().toString();
        steps.add(Step.cluster("membership", "cluster-version").kind(ChangeKind.ACTION).safety(SafetyClass.CHANGE)
                .summary("wait for cluster version " + minor).reason("minor upgrade from " + upgrade.from())
                .after(after)
                .readyWhen(new ClusterConditions.ClusterVersionIs(context.access(), context.clientUrls(), minor,
                        in.timeouts().ready()))
                .does(ctx -> Outcome.OK));
    }

    /** Reuse the token the cluster was bootstrapped with; a new token only for a new cluster. */
    private static Optional<String> existingToken(Inputs in) {
        for (Member m : in.desired().members()) {
            if (!in.facts().containsKey(m.host().name())) {
                continue; // unreachable: refused further on, with the reason
            }
            Optional<String> token = in.facts().get(m.host().name()).file(EtcdLayout.CONFIG_FILE).content()
                    .flatMap(EtcdConfigFile::tokenIn);
            if (token.isPresent()) {
                return token;
            }
        }
        return Optional.empty();
    }

    private static String randomHex() {
        byte[] bytes = new byte[6];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static List<Step> concat(List<Step> a, List<Step> b) {
        List<Step> all = new ArrayList<>(a);
        b.stream().filter(s -> !all.contains(s)).forEach(all::add);
        return all;
    }
}
