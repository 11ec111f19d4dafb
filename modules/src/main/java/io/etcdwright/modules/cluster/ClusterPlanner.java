package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.config.HostSetup;
import io.etcdwright.modules.backup.SafetySnapshot;
import io.etcdwright.modules.install.InstallSteps;
import io.etcdwright.modules.install.ReleaseArtifact;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.ClusterVersion;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipPlan;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.PkiSteps;
import io.etcdwright.modules.service.EtcdUnitFile;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.upgrade.VersionCatalogue;
import io.etcdwright.modules.upgrade.VersionChange;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * From desired state and facts to the plan that creates or converges a cluster (patch and
 * one-minor version changes included). Each module
 * contributes the steps for its concern; this class only orders them:
 * <ol>
 * <li>per host, in a chain: system user and directories, install, certificates, config, unit;</li>
 * <li>members that are not running are started side by side, then the cluster is awaited healthy;</li>
 * <li>running members whose binary, certificates, config or unit changed are restarted one at
 *     a time, each only while the others are healthy, health-checked after, the leader last.</li>
 * </ol>
 */
public final class ClusterPlanner {
    /** Everything a plan is computed from. */
    /**
     * @param cluster     the cluster's own member list and health, when a member answered
     * @param snapshotDir where a verified snapshot is taken before a membership change or a minor
     *                    upgrade; empty when the operator said --no-snapshot
     * @param pendingStops removed members' hosts whose etcd is still to be stopped (an interrupted apply)
     */
    public record Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts, ClusterPki pki,
                         ReleaseCache releases, Optional<ClusterStatus> cluster, Optional<Path> snapshotDir,
                         PendingStops pendingStops) {
    }

    /** Raised when the only plans possible would be unsafe; the message says what to do instead. */
    public static final class UnsafePlanException extends RuntimeException {
        public UnsafePlanException(String message) {
            super(message);
        }
    }

    private static final Duration HEALTH_TIMEOUT = Duration.ofMinutes(2);

    private ClusterPlanner() {
    }

    public static Plan plan(Inputs in) {
        ClusterSpec spec = in.desired().spec();
        List<Member> members = in.desired().members();
        EtcdLayout layout = in.layout();
        List<Step> steps = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        in.desired().warnings().forEach(w -> warnings.add(w.toString()));

        Optional<MembershipPlan> membership = membershipPlan(in);
        if (membership.isEmpty()) {
            checkNoJoins(in);
        }
        Set<String> joiners = new LinkedHashSet<>();
        Map<String, List<EtcdConfigFile.Peer>> joinWith = new LinkedHashMap<>();
        membership.ifPresent(plan -> {
            warnings.addAll(plan.warnings());
            joinWith.putAll(initialClusterOfEachJoiner(plan, in.cluster().orElseThrow(), layout));
            joiners.addAll(joinWith.keySet());
        });
        VersionChange versionChange = versionChange(in);
        warnings.addAll(versionChange.warnings());
        String token = existingToken(in).orElseGet(() -> spec.name() + "-" + randomHex());
        List<EtcdConfigFile.Peer> peers = members.stream().map(m -> new EtcdConfigFile.Peer(m.name(), m.address())).toList();

        List<String> pkiPrereqs = new ArrayList<>();
        PkiSteps.caStep(in.pki()).ifPresent(s -> {
            steps.add(s);
            pkiPrereqs.add(s.id());
        });
        PkiSteps.clientStep(in.pki(), List.copyOf(pkiPrereqs)).ifPresent(s -> {
            steps.add(s);
            pkiPrereqs.add(s.id());
        });

        Map<String, String> lastPrepStep = new LinkedHashMap<>();
        Map<String, List<String>> restartCauses = new LinkedHashMap<>();
        List<Member> changedRunning = new ArrayList<>();
        List<Member> notRunning = new ArrayList<>();
        for (Member m : members) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            String host = m.host().name();
            Chain chain = new Chain(steps, host);

            List<String> setupDiff = HostSetup.differences(f.setup(), layout);
            if (!setupDiff.isEmpty()) {
                chain.add(Step.on(host, "config", "host-setup").kind(f.setup().userExists() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                        .summary("etcd user and directories").reason(String.join("; ", setupDiff)).observed(f.setup().toString()),
                        ctx -> {
                            ctx.session().run(HostSetup.command(layout)).orThrow(host);
                            return Outcome.CHANGED;
                        });
            }
            List<String> causes = new ArrayList<>();
            restartCauses.put(host, causes);
            String version = spec.etcd().version();
            ReleaseArtifact artifact = ReleaseArtifact.of(version, f.system().architecture(), spec.artifacts().urlTemplate(),
                    spec.artifacts().checksumsUrlTemplate(), Optional.ofNullable(spec.artifacts().sha256().get(version)));
            InstallSteps.Source source = spec.artifacts().source().name().equals("FETCH") ? InstallSteps.Source.FETCH : InstallSteps.Source.PUSH;
            boolean unpacked = f.install().hasInstalled(version);
            Optional<Step.Builder> install = InstallSteps.plan(host, f.install(), version);
            if (install.isPresent()) {
                causes.add("binary changed");
                chain.add(install.get(), ctx -> InstallSteps.apply(ctx.session(), artifact, source, in.releases(), unpacked));
            }

            ClusterPki.MemberIdentity identity = new ClusterPki.MemberIdentity(m.name(), host, m.address());
            Optional<Step.Builder> certs = PkiSteps.memberStep(host, in.pki(), identity, f.files());
            if (certs.isPresent()) {
                causes.add("certificates changed");
                chain.addAfter(certs.get(), pkiPrereqs, ctx -> PkiSteps.apply(ctx.session(), in.pki(), identity, f.files()));
            }

            boolean joining = joiners.contains(m.name());
            String config = EtcdConfigFile.render(new EtcdConfigFile.Peer(m.name(), m.address()),
                    joining ? joinWith.get(m.name()) : peers, joining ? "existing" : "new", token,
                    layout, spec.etcd().ports().metrics().orElse(0), spec.etcd().settings());
            FileState haveConfig = f.file(EtcdLayout.CONFIG_FILE);
            // A member with data ignores the initial-cluster settings (its WAL holds the membership):
            // a file that differs only there is left as it is, and nothing restarts for it.
            boolean onlyBootstrapDiffers = !joining && f.member().hasMemberData() && haveConfig.content()
                    .map(have -> EtcdConfigFile.sameIgnoringBootstrap(have, config)).orElse(false);
            if (!onlyBootstrapDiffers && (!haveConfig.hasContent(config) || !haveConfig.hasAttributes("644", "root", "root"))) {
                causes.add("config changed");
                chain.add(Step.on(host, "config", "config-file").kind(haveConfig.exists() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                                .summary("write " + EtcdLayout.CONFIG_FILE)
                                .reason(!haveConfig.exists() ? "missing" : haveConfig.hasContent(config) ? "mode/owner differ" : "content differs")
                                .observed(haveConfig.sha256())
                                .diff(new FileDiff(EtcdLayout.CONFIG_FILE, haveConfig.content().orElse(""), config)),
                        ctx -> {
                            ctx.session().upload(config.getBytes(StandardCharsets.UTF_8), RemoteFile.rootOwned(EtcdLayout.CONFIG_FILE, "0644"));
                            return Outcome.CHANGED;
                        });
            }

            String unit = EtcdUnitFile.render(spec.name(), version);
            FileState haveUnit = f.file(EtcdLayout.UNIT_FILE);
            boolean unitDiffers = !haveUnit.hasContent(unit) || !haveUnit.hasAttributes("644", "root", "root");
            boolean unitNotLoaded = f.service().needsDaemonReload();
            if (unitDiffers || unitNotLoaded || !f.service().enabled()) {
                if (unitDiffers || unitNotLoaded) {
                    causes.add("unit changed");
                }
                chain.add(Step.on(host, "service", "unit").kind(haveUnit.exists() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                                .summary("systemd unit " + EtcdLayout.UNIT)
                                .reason(!haveUnit.exists() ? "missing" : unitDiffers ? "content differs"
                                        : unitNotLoaded ? "changed on disk but not loaded by systemd" : "not enabled")
                                .observed(haveUnit.sha256() + f.service().enabled())
                                .diff(unitDiffers ? new FileDiff(EtcdLayout.UNIT_FILE, haveUnit.content().orElse(""), unit) : null),
                        ctx -> ServiceSteps.writeUnit(ctx.session(), unit, unitDiffers));
            }
            chain.last().ifPresent(id -> lastPrepStep.put(host, id));
            if (causes.isEmpty() && f.service().running()) {
                causes.addAll(RestartPending.causes(f));
            }
            if (joining) {
                continue; // started by its join step, after it was added as a learner
            }
            if (!f.service().running()) {
                notRunning.add(m);
            } else if (!causes.isEmpty()) {
                changedRunning.add(m);
            }
        }

        List<String> clientUrls = clientUrls(members, layout);
        // Health is asked from here, over mTLS with the admin certificate: wait for it to be issued.
        Health.Access access = healthAccess(in.pki());
        Optional<String> healthyAfterStart = Optional.empty();
        if (!notRunning.isEmpty()) {
            List<String> starts = new ArrayList<>();
            for (Member m : notRunning) {
                String host = m.host().name();
                EtcdHostFacts f = in.facts().get(host);
                Step start = Step.on(host, "service", "start").kind(ChangeKind.ACTION).summary("start etcd")
                        .reason(f.service().activeState().equals("failed") ? "failed" : "not running")
                        .observed(f.service().activeState())
                        .after(lastPrepStep.containsKey(host) ? List.of(lastPrepStep.get(host)) : List.of())
                        .does(ctx -> ServiceSteps.start(ctx.session()));
                steps.add(start);
                starts.add(start.id());
            }
            boolean bootstrap = members.stream().noneMatch(m -> in.facts().get(m.host().name()).service().running());
            Step healthy = Step.cluster("membership", "healthy").kind(ChangeKind.ACTION)
                    .summary(bootstrap ? "bootstrap cluster " + spec.name() + ": wait for all " + members.size() + " members healthy"
                            : "wait for all " + members.size() + " members healthy")
                    .reason(notRunning.size() + " member" + (notRunning.size() == 1 ? "" : "s") + " started")
                    .after(concat(starts, pkiPrereqs))
                    .does(ctx -> {
                        Health.await(ctx, access, clientUrls, HEALTH_TIMEOUT);
                        return Outcome.CHANGED;
                    });
            steps.add(healthy);
            healthyAfterStart = Optional.of(healthy.id());
        }

        boolean risky = membership.map(p -> !p.changes().isEmpty()).orElse(false)
                || versionChange instanceof VersionChange.MinorUpgrade;
        Optional<String> beforeRisky = healthyAfterStart;
        if (risky && in.snapshotDir().isPresent()) {
            Path dir = in.snapshotDir().get();
            String label = versionChange instanceof VersionChange.MinorUpgrade ? "before-minor-upgrade" : "before-membership-change";
            Step snapshot = Step.cluster("backup", "snapshot").kind(ChangeKind.ACTION)
                    .summary("snapshot the cluster to " + dir).reason(label.replace('-', ' ') + "; verified against its sha256")
                    .after(concat(healthyAfterStart.map(List::of).orElse(List.of()), pkiPrereqs))
                    .does(ctx -> {
                        SafetySnapshot.Saved saved = SafetySnapshot.take(access, clientUrls, dir, label, Duration.ofSeconds(30));
                        ctx.note(saved.file() + ": " + saved.bytes() + " bytes, sha256 " + saved.sha256());
                        return Outcome.CHANGED;
                    });
            steps.add(snapshot);
            beforeRisky = Optional.of(snapshot.id());
        } else if (risky) {
            warnings.add("no snapshot before this change (--no-snapshot): if it goes wrong, only an older backup can bring the"
                    + " cluster back");
        }

        // Rolling restart: followers first, leader last, so leadership moves once at most.
        changedRunning.sort(Comparator.comparing((Member m) -> in.facts().get(m.host().name()).member().status()
                .map(s -> s.isLeader()).orElse(false)));
        Optional<String> previous = beforeRisky;
        for (Member m : changedRunning) {
            String host = m.host().name();
            List<String> after = new ArrayList<>();
            Optional.ofNullable(lastPrepStep.get(host)).ifPresent(after::add);
            previous.ifPresent(after::add);
            after.addAll(pkiPrereqs);
            List<String> others = members.stream().filter(o -> o != m).map(o -> clientUrl(o, layout)).toList();
            Step restart = Step.on(host, "service", "restart").kind(ChangeKind.ACTION).summary("restart etcd")
                    .reason(String.join(", ", restartCauses.get(host)) + "; only while the others are healthy")
                    .after(after)
                    .does(ctx -> ServiceSteps.restart(ctx, ctx.session(), access, host, others, members.size()));
            steps.add(restart);
            Step check = Step.on(host, "membership", "healthy-after-restart").kind(ChangeKind.ACTION)
                    .summary("wait for all members healthy").reason("after restarting " + host)
                    .after(List.of(restart.id()))
                    .does(ctx -> {
                        Health.await(ctx, access, clientUrls, HEALTH_TIMEOUT);
                        return Outcome.OK;
                    });
            steps.add(check);
            previous = Optional.of(check.id());
        }
        if (membership.isPresent() && !membership.get().changes().isEmpty()) {
            Map<String, String> clientUrlOf = new LinkedHashMap<>();
            in.cluster().orElseThrow().members().forEach(cm -> cm.clientUrls().stream().findFirst()
                    .ifPresent(url -> clientUrlOf.put(cm.name().isEmpty() ? cm.id() : cm.name(), url)));
            members.forEach(m -> clientUrlOf.put(m.name(), clientUrl(m, layout)));
            List<String> before = new ArrayList<>(pkiPrereqs);
            previous.ifPresent(before::add);
            Map<String, MembershipSteps.Joiner> joining = new LinkedHashMap<>();
            for (String j : joiners) {
                Member m = members.stream().filter(x -> x.name().equals(j)).findFirst().orElseThrow();
                String host = m.host().name();
                joining.put(j, new MembershipSteps.Joiner(host, Optional.ofNullable(lastPrepStep.get(host)),
                        oldData(in, m, in.facts().get(host))));
            }
            Map<String, RemovedHost> removed = new LinkedHashMap<>();
            membership.get().changes().forEach(c -> {
                if (c instanceof MembershipPlan.Change.Remove r) {
                    String name = r.member().name().isEmpty() ? r.member().id() : r.member().name();
                    removed.put(name, RemovedHost.of(r.member(), in.desired().inventory().hosts().values(), members,
                            layout.dataDir()));
                }
            });
            List<Step> changes = MembershipSteps.steps(membership.get(), before, joining, removed, in.pendingStops(), access,
                    clientUrlOf, HEALTH_TIMEOUT);
            steps.addAll(changes);
            Step settled = Step.cluster("membership", "healthy-after-membership").kind(ChangeKind.ACTION)
                    .summary("wait for all " + members.size() + " members healthy").reason("after the membership changes")
                    .after(List.of(changes.get(changes.size() - 1).id()))
                    .does(ctx -> {
                        Health.await(ctx, access, clientUrls, HEALTH_TIMEOUT);
                        return Outcome.OK;
                    });
            steps.add(settled);
            previous = Optional.of(settled.id());
        }
        steps.addAll(unfinishedStops(in, steps));
        if (versionChange instanceof VersionChange.MinorUpgrade upgrade && previous.isPresent()) {
            // The cluster speaks the new minor only when the leader raises the cluster version, once
            // every member runs it: until then the upgrade is not done (and can still be rolled back).
            String minor = upgrade.to().major() + "." + upgrade.to().minor();
            steps.add(Step.cluster("membership", "cluster-version").kind(ChangeKind.ACTION)
                    .summary("wait for cluster version " + minor).reason("minor upgrade from " + upgrade.from())
                    .after(List.of(previous.get()))
                    .does(ctx -> {
                        ClusterVersion.await(ctx, access, clientUrls, minor, HEALTH_TIMEOUT);
                        return Outcome.CHANGED;
                    }));
        }
        return new Plan(spec.name(), steps, List.of(), warnings);
    }

    /**
     * Stops an interrupted apply left undone on removed members' hosts (see {@link PendingStops}):
     * only with the cluster's member list at hand, which proves the members gone.
     */
    private static List<Step> unfinishedStops(Inputs in, List<Step> planned) {
        if (in.cluster().isEmpty()) {
            return List.of();
        }
        Set<String> stopping = new LinkedHashSet<>();
        planned.stream().filter(s -> s.id().endsWith("/stop-removed")).forEach(s -> s.host().ifPresent(stopping::add));
        return RemovedHost.unfinished(in.pendingStops().pending(), in.desired().inventory().hosts().values(),
                        in.desired().members(), in.cluster().get().members(), stopping, in.layout().dataDir()).stream()
                .map(u -> MembershipSteps.stopRemoved(u.member(), u.host(), List.of(), in.pendingStops()))
                .toList();
    }

    /** The workstation's admin certificate and the cluster's CA: how apply asks etcd about health. */
    public static Health.Access healthAccess(ClusterPki pki) {
        ClusterPki.LocalPair admin = pki.clientPair(HostCertificates.ADMIN);
        return new Health.Access(pki.caCertFile(), admin.cert(), admin.key());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** The client URLs of the members, in their order: what etcdctl and kube-apiserver are given. */
    public static List<String> clientUrls(List<Member> members, EtcdLayout layout) {
        return members.stream().map(m -> clientUrl(m, layout)).toList();
    }

    public static String clientUrl(Member m, EtcdLayout layout) {
        String host = m.address().contains(":") ? "[" + m.address() + "]" : m.address();
        return "https://" + host + ":" + layout.clientPort();
    }

    /**
     * The membership changes from the cluster's own member list to the spec's members, when the
     * cluster could be asked; refused (every reason at once) when they cannot be made safely.
     */
    private static Optional<MembershipPlan> membershipPlan(Inputs in) {
        if (in.cluster().isEmpty() || in.cluster().get().members().isEmpty()) {
            return Optional.empty();
        }
        EtcdLayout layout = in.layout();
        List<MembershipPlan.Current> current = in.cluster().get().members().stream()
                .map(m -> new MembershipPlan.Current(m.id(), m.name(), m.peerUrls().stream().findFirst().orElse(""),
                        m.learner(), m.healthy(), m.leader(), dataLost(in, m.name())))
                .toList();
        List<MembershipPlan.Desired> desired = in.desired().members().stream()
                .map(m -> new MembershipPlan.Desired(m.name(), new EtcdConfigFile.Peer(m.name(), m.address()).url(layout.peerPort())))
                .toList();
        List<MembershipPlan.Current> voters = current.stream().filter(c -> !c.learner()).toList();
        boolean quorum = voters.stream().filter(MembershipPlan.Current::healthy).count() >= voters.size() / 2 + 1;
        boolean sameMembers = voters.stream().map(MembershipPlan.Current::peerUrl).sorted().toList()
                .equals(desired.stream().map(MembershipPlan.Desired::peerUrl).sorted().toList());
        if (!quorum && sameMembers) {
            // Members are down but the membership is the spec's (a power cut, an interrupted bootstrap):
            // starting the stopped members is the repair, not a membership change.
            return Optional.empty();
        }
        MembershipPlan plan = MembershipPlan.plan(current, desired, in.desired().spec().etcd().version());
        if (!plan.refusals().isEmpty()) {
            StringBuilder why = new StringBuilder("cluster " + in.desired().spec().name() + " cannot be changed to the"
                    + " members the spec lists; nothing was planned:");
            plan.refusals().forEach(r -> why.append("\n  - ").append(r.what()).append(". What to do: ").append(r.whatToDo()));
            throw new UnsafePlanException(why.toString());
        }
        return Optional.of(plan);
    }

    /**
     * A member of the cluster whose host, in the spec, holds no data and does not run etcd: its data
     * directory was deleted or its disk replaced. It cannot start as the member it was.
     */
    private static boolean dataLost(Inputs in, String memberName) {
        return in.desired().members().stream().filter(m -> m.name().equals(memberName)).findFirst()
                .map(m -> in.facts().get(m.host().name()))
                .map(f -> !f.member().hasMemberData() && !f.service().running())
                .orElse(false);
    }

    /**
     * The data a joiner's host holds that etcd must not start with (a removed member's, another
     * cluster's), judged by {@link JoinerData}: the data of the learner the cluster lists at the
     * joiner's peer URL, running there as itself, is kept.
     */
    private static Optional<MembershipSteps.OldData> oldData(Inputs in, Member m, EtcdHostFacts f) {
        String peerUrl = new EtcdConfigFile.Peer(m.name(), m.address()).url(in.layout().peerPort());
        ClusterStatus cluster = in.cluster().orElseThrow();
        Optional<String> learnerId = cluster.members().stream()
                .filter(c -> c.learner() && c.peerUrls().contains(peerUrl)).map(MemberStatus::id).findFirst();
        return JoinerData.moveAsideReason(f.member(), learnerId, cluster.clusterId())
                .map(why -> new MembershipSteps.OldData(in.layout().dataDir(), why, f.member().dataBytes()));
    }

    /**
     * Each joiner starts with the membership as it will be at its turn: the members then in the
     * cluster (learners included) and itself. etcd checks that list against the cluster's own.
     */
    private static Map<String, List<EtcdConfigFile.Peer>> initialClusterOfEachJoiner(MembershipPlan plan, ClusterStatus cluster,
                                                                                   EtcdLayout layout) {
        Map<String, String> now = new LinkedHashMap<>();
        cluster.members().stream().filter(m -> !m.name().isEmpty())
                .forEach(m -> m.peerUrls().stream().findFirst().ifPresent(url -> now.put(m.name(), url)));
        Map<String, List<EtcdConfigFile.Peer>> result = new LinkedHashMap<>();
        for (MembershipPlan.Change c : plan.changes()) {
            if (c instanceof MembershipPlan.Change.Remove r) {
                now.remove(r.member().name());
            } else if (c instanceof MembershipPlan.Change.AddLearner a) {
                now.put(a.member().name(), a.member().peerUrl());
            } else if (c instanceof MembershipPlan.Change.StartJoiner j) {
                now.put(j.member().name(), j.member().peerUrl());
                result.put(j.member().name(), now.entrySet().stream()
                        .map(e -> new EtcdConfigFile.Peer(e.getKey(), hostOf(e.getValue()))).toList());
            }
        }
        return result;
    }

    private static String hostOf(String url) {
        String host = java.net.URI.create(url).getHost();
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * Without the cluster's own member list (no member answered), a host of the spec that is not
     * a member cannot be added safely: starting it with a "new" config would form a second cluster.
     */
    private static void checkNoJoins(Inputs in) {
        List<Member> members = in.desired().members();
        boolean anyRunning = members.stream().anyMatch(m -> in.facts().get(m.host().name()).member().status().isPresent());
        if (!anyRunning) {
            return;
        }
        List<String> fresh = members.stream()
                .filter(m -> !in.facts().get(m.host().name()).member().hasMemberData())
                .filter(m -> !in.facts().get(m.host().name()).service().running())
                .map(Member::name).toList();
        if (!fresh.isEmpty()) {
            throw new UnsafePlanException("cluster " + in.desired().spec().name() + " is running and "
                    + String.join(", ", fresh) + " would join it as new member(s). Starting them with this plan could form"
                    + " a second cluster, so nothing was planned. No member answered the request for the cluster's member"
                    + " list, which adding members needs: make the running members healthy (etcdwright status), then plan again.");
        }
    }

    /**
     * What moving the members to the spec's version means ({@link VersionChange}): patch changes
     * and one-minor upgrades roll member by member (the restart steps below, leader last), a
     * mixed-minor state after an interrupted upgrade resumes or rolls back; everything else
     * (skipped minors, minor downgrades, known-bad targets) is refused with the path that works.
     */
    private static VersionChange versionChange(Inputs in) {
        Version want = Version.parse(in.desired().spec().etcd().version());
        List<Version> held = new ArrayList<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (!f.member().hasMemberData()) {
                continue;
            }
            f.member().status().map(MemberFacts.LocalStatus::version).filter(v -> !v.isEmpty())
                    .or(() -> f.install().etcdVersion())
                    .flatMap(Version::tryParse).ifPresent(held::add);
        }
        VersionChange change = VersionChange.of(held, want, VersionCatalogue.builtIn());
        if (change instanceof VersionChange.Refused refused) {
            throw new UnsafePlanException("cannot move cluster " + in.desired().spec().name() + " to etcd " + want + ": "
                    + refused.why() + ". Nothing was planned; " + refused.whatToDo() + ".");
        }
        return change;
    }

    /** Reuse the token the cluster was bootstrapped with; a new token only for a new cluster. */
    private static Optional<String> existingToken(Inputs in) {
        for (Member m : in.desired().members()) {
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

    /** One host's preparation steps, each waiting for the one before it. */
    private static final class Chain {
        private final List<Step> steps;
        private final String host;
        private Optional<String> last = Optional.empty();

        Chain(List<Step> steps, String host) {
            this.steps = steps;
            this.host = host;
        }

        void add(Step.Builder builder, io.etcdwright.engine.plan.Operation op) {
            addAfter(builder, List.of(), op);
        }

        void addAfter(Step.Builder builder, List<String> extra, io.etcdwright.engine.plan.Operation op) {
            List<String> after = new ArrayList<>(extra);
            last.ifPresent(after::add);
            Step step = builder.after(after).does(op);
            steps.add(step);
            last = Optional.of(step.id());
        }

        Optional<String> last() {
            return last;
        }
    }
}
