package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.config.ConfigFileModule;
import io.etcdwright.modules.config.HostSetupModule;
import io.etcdwright.modules.install.InstallModule;
import io.etcdwright.modules.pki.CertificatesModule;
import io.etcdwright.modules.service.UnitModule;
import io.etcdwright.modules.backup.MemberRpc;
import io.etcdwright.modules.backup.SafetySnapshot;
import io.etcdwright.modules.cluster.HostPreparation.Prepared;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.maintenance.MaintenanceChecks;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.PkiSteps;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.upgrade.VersionChange;
import io.etcdwright.modules.upgrade.VersionPreflight;
import io.grpc.StatusRuntimeException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An online minor downgrade through etcd's downgrade API (3.7 -> 3.6, 3.6 -> 3.5), and its cancel.
 * etcd's own procedure (etcd-36-37.md §4): the leader lowers the cluster version once the downgrade
 * is enabled, each member rewrites its storage for the older minor, and only then may each member
 * be stopped and started on the older binary, one at a time, while the others serve. The plan
 * reads as the order of the work:
 * <ol>
 * <li>refusals: a host unreachable, no quorum, a member not running, members other than the
 *     spec's (a downgrade keeps the members), a CA rotation under way;</li>
 * <li>the members checked when the apply runs ({@link VersionPreflight}), then a verified snapshot;</li>
 * <li>the downgrade enabled (etcd's validate, then enable), ready when every member's storage is at
 *     the older minor ({@link DowngradeConditions.StorageVersionIs});</li>
 * <li>the older release installed and each host's config (as the older minor spells it) and unit
 *     written: only now, so that a member that crashes meanwhile comes back on a binary that can
 *     read its storage;</li>
 * <li>each member swapped, followers first, the leader last (leadership handed to a member already
 *     swapped, decided when it runs): required: every other member healthy, the downgrade still
 *     under way and this member's storage there; ready when all are healthy, a write commits through
 *     it and it answers on the older version;</li>
 * <li>etcd's leader ends the downgrade once every member runs the older minor: awaited, with the
 *     cluster version.</li>
 * </ol>
 * What the members say (each one's storage version and any downgrade under way, from the facts)
 * decides where an interrupted apply resumes: the enable is not asked again, members already
 * swapped are left. Setting {@code etcd.version} back to the newer minor while the downgrade is
 * under way cancels it ({@link #cancel}): etcd's downgrade cancel (which answers success even when
 * nothing was under way or it failed, so the plan waits until no member reports a downgrade), then
 * the members already on the older binary go back to the newer one and the cluster version is
 * awaited. Once etcd has ended the downgrade, the way back is an ordinary minor upgrade.
 */
public final class OnlineDowngradePlanner {
    static final String SNAPSHOT_LABEL = "before-minor-downgrade";

    private final ConvergePlanner.Inputs in;
    private final ClusterSpec spec;
    /** The version the spec asks for: the older minor's release for a downgrade, the newer one's for a cancel. */
    private final Version target;
    private final ConvergePlanner.Context context;
    /** The downgrade the members say is under way ("3.5.0"), when one is. */
    private final Optional<Version> underWay;
    private final List<Step> steps = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    /** The workstation's CA and client certificates, planned first: every check of a member uses them. */
    private final List<Step> pki;

    private OnlineDowngradePlanner(ConvergePlanner.Inputs in, Version target, Optional<Version> underWay) {
        this.in = in;
        this.spec = in.desired().spec();
        this.target = target;
        this.underWay = underWay;
        this.context = new ConvergePlanner.Context(in.desired().members(), in.layout(), Endpoints.healthAccess(in.pki()),
                Endpoints.clientUrls(in.desired().members(), in.layout()), in.timeouts());
        in.desired().warnings().forEach(w -> warnings.add(w.toString()));
        this.pki = PkiSteps.workstation(in.pki());
    }

    /**
     * The plan when this is an online downgrade, one under way, or the cancel of one; empty when
     * converge plans.
     */
    public static Optional<Plan> plan(ConvergePlanner.Inputs in, VersionChange change) {
        Version wanted = Version.parse(in.desired().spec().etcd().version());
        Optional<Version> underWay = underWay(in.facts());
        if (underWay.isPresent()) {
            Version to = underWay.get();
            OnlineDowngradePlanner planner = new OnlineDowngradePlanner(in, wanted, underWay);
            if (sameMinor(wanted, to)) {
                return Optional.of(planner.downgrade());
            }
            if (wanted.minorLine().equals(to.minorLine().next())) {
                return Optional.of(planner.cancel(to));
            }
            return Optional.of(Plan.refused(in.desired().spec().name(), List.of(new Refusal("downgrade-under-way",
                    "cluster " + in.desired().spec().name(), "a downgrade to " + DowngradeConditions.minor(to) + " is under"
                    + " way (the members say so), and etcd.version " + wanted + " is neither that minor nor the one it"
                    + " comes from",
                    "set etcd.version to a " + to.minorLine() + ".x release to finish it, or to a " + to.minorLine().next()
                            + ".x release to cancel it")), List.of()));
        }
        if (change instanceof VersionChange.OnlineMinorDowngrade down) {
            OnlineDowngradePlanner planner = new OnlineDowngradePlanner(in, down.to(), Optional.empty());
            planner.warnings.addAll(down.warnings());
            return Optional.of(planner.downgrade());
        }
        return Optional.empty();
    }

    /**
     * The downgrade the members report under way, as "X.Y.0": any member of 3.6 or newer says it
     * (a member already on 3.5 says nothing, and neither does one that did not answer).
     */
    static Optional<Version> underWay(Map<String, EtcdHostFacts> facts) {
        return facts.values().stream().map(f -> f.member().storage()).flatMap(Optional::stream)
                .map(MemberFacts.StorageStatus::downgradeTarget).flatMap(Optional::stream)
                .map(Version::tryParse).flatMap(Optional::stream).findFirst();
    }

    private Plan downgrade() {
        List<Refusal> refusals = refusals(underWay.isEmpty());
        if (!refusals.isEmpty()) {
            return Plan.refused(spec.name(), refusals, warnings);
        }
        steps.addAll(pki);
        Version older = target.minorLine().first();
        List<Member> swaps = notOnTarget();
        if (underWay.isEmpty()) {
            warnings.add("online minor downgrade from " + newest() + " to " + target + " through etcd's downgrade API: the"
                    + " members' storage is moved to " + minor() + " first, then each member is swapped to " + target
                    + ", the leader last; the others serve throughout");
        } else {
            warnings.add("a downgrade to " + minor() + " is under way (an earlier apply enabled it): this apply goes on"
                    + (swaps.isEmpty() ? " and waits for etcd to end it" : " with " + names(swaps)));
        }
        List<Step> checked = preflight("minor downgrade to " + target).map(List::of).orElse(pki);
        // The older release unpacked on every host beside the running one meanwhile: it changes nothing etcd runs.
        Map<String, List<Step>> installs = install(checked);
        List<Step> gate = checked;
        if (underWay.isEmpty()) {
            gate = snapshot(gate).map(List::of).orElse(gate);
            gate = List.of(add(enable(older, gate)));
        } else if (runningVersions().values().stream().anyMatch(v -> !sameMinor(v, target))) {
            gate = List.of(add(storageMoved(older, gate)));
        }
        List<Step> last = restartMembers(installs, gate, Optional.of(older));
        steps.add(Step.cluster("version", "downgrade-ended").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("wait for etcd to end the downgrade to " + minor())
                .reason("its leader ends it once every member runs " + minor())
                .after(last)
                .readyWhen(new DowngradeConditions.NoDowngradeUnderWay(context.access(), context.clientUrls(),
                        target.minorLine().previous().map(Object::toString), in.timeouts().ready()))
                .readyWhen(new ClusterConditions.ClusterVersionIs(context.access(), context.clientUrls(), minor(),
                        in.timeouts().ready()))
                .does(ctx -> Outcome.OK));
        // A minor downgrade (going on, or cancelled): never unattended, its host files included.
        return new Plan(spec.name(), steps, List.of(), warnings, List.of()).atLeast(SafetyClass.NEVER);
    }

    /** etcd.version set back to the newer minor while a downgrade to {@code to} is under way. */
    private Plan cancel(Version to) {
        List<Refusal> refusals = refusals(false);
        if (!refusals.isEmpty()) {
            return Plan.refused(spec.name(), refusals, warnings);
        }
        steps.addAll(pki);
        List<Member> back = notOnTarget();
        warnings.add("etcd.version " + target + " while a downgrade to " + DowngradeConditions.minor(to) + " is under way:"
                + " this apply cancels it (etcd's downgrade cancel)"
                + (back.isEmpty() ? "" : ", then " + names(back) + " go" + (back.size() == 1 ? "es" : "") + " back to "
                + target) + "; etcd raises the cluster version to " + minor() + " once every member runs it");
        List<Step> checked = preflight("cancel of the downgrade to " + DowngradeConditions.minor(to)).map(List::of).orElse(pki);
        Map<String, List<Step>> installs = install(checked);
        Health.Access access = context.access();
        List<String> clientUrls = context.clientUrls();
        Step cancel = add(Step.cluster("version", "downgrade-cancel").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("cancel the downgrade to " + DowngradeConditions.minor(to) + " (etcd's downgrade cancel)")
                .reason("etcd.version is " + target + " again")
                .after(checked)
                // etcd answers a cancel with success even when it did nothing: what counts is that no member reports one.
                .readyWhen(new DowngradeConditions.NoDowngradeUnderWay(access, clientUrls, Optional.empty(),
                        in.timeouts().ready()))
                .does(ctx -> cancelDowngrade(ctx, access, clientUrls)));
        List<Step> last = restartMembers(installs, List.of(cancel), Optional.empty());
        steps.add(Step.cluster("version", "cluster-version").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("wait for cluster version " + minor()).reason("the downgrade to " + DowngradeConditions.minor(to)
                        + " cancelled")
                .after(last)
                .readyWhen(new ClusterConditions.ClusterVersionIs(access, clientUrls, minor(), in.timeouts().ready()))
                .does(ctx -> Outcome.OK));
        // A minor downgrade (going on, or cancelled): never unattended, its host files included.
        return new Plan(spec.name(), steps, List.of(), warnings, List.of()).atLeast(SafetyClass.NEVER);
    }

    /**
     * Every reason nothing can be done safely, at once. {@code everyMemberRunning}: before the
     * downgrade is enabled every member must run (each moves its own storage; one down would come
     * back into a cluster that no longer speaks its minor, and its swap could not be checked).
     */
    private List<Refusal> refusals(boolean everyMemberRunning) {
        List<Refusal> refusals = new ArrayList<>();
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            if (in.unreachable().containsKey(host) || !in.facts().containsKey(host)) {
                refusals.add(new Refusal("unreachable-host", host, "unreachable (" + in.unreachable().getOrDefault(host,
                        "no facts gathered") + "); a downgrade needs every member",
                        "bring the host back (power, network, sshd; 'etcdwright facts' shows what is reached), then plan"
                                + " again"));
            }
        }
        if (!refusals.isEmpty()) {
            return refusals;
        }
        MaintenanceChecks.Findings maintenance = MaintenanceChecks.of(in.facts(), in.cluster(),
                MaintenanceChecks.quotaBytes(spec.etcd()), Endpoints.peerUrls(in.desired().members(), in.layout()));
        warnings.addAll(maintenance.warnings());
        refusals.addAll(maintenance.refusals());
        String name = "cluster " + spec.name();
        if (!in.cluster().map(ClusterStatus::quorum).orElse(false)) {
            refusals.add(new Refusal("no-quorum", name, "the cluster has no quorum (no linearizable read went through), and"
                    + " a downgrade is enabled and checked through the running cluster",
                    "bring the members back on the version they run first ('etcdwright status')"));
        }
        if (everyMemberRunning) {
            for (Member m : in.desired().members()) {
                if (!in.facts().get(m.host().name()).service().running()) {
                    refusals.add(new Refusal("member-not-running", m.name(), "etcd does not run on " + m.host().name()
                            + ", and a downgrade needs every member running: each moves its own storage to the older minor",
                            "start it first: apply with etcd.version back at the version the members run, then downgrade"));
                }
            }
        }
        membershipDiffers().ifPresent(refusals::add);
        if (CaRotation.of(in.pki(), in.desired(), in.facts()).isPresent()) {
            refusals.add(new Refusal("ca-rotation-under-way", name, "a CA rotation is under way, and a downgrade restarts"
                    + " every member while the members trust different CAs",
                    "finish the rotation first (apply with etcd.version at the version the members run), then downgrade"));
        }
        return refusals;
    }

    /** Members the cluster lists and the spec does not, the other way round, or learners: changed first, on the version they run. */
    private Optional<Refusal> membershipDiffers() {
        if (in.cluster().isEmpty()) {
            return Optional.empty();
        }
        Set<String> wanted = new LinkedHashSet<>();
        in.desired().members().forEach(m -> wanted.add(Endpoints.peerUrl(m, in.layout())));
        Set<String> listed = new LinkedHashSet<>();
        in.cluster().get().members().forEach(m -> listed.addAll(m.peerUrls()));
        List<String> learners = in.cluster().get().members().stream().filter(MemberStatus::learner).map(MemberStatus::name).toList();
        if (wanted.equals(listed) && learners.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Refusal("membership-differs", "cluster " + spec.name(),
                "the cluster's members (peer URLs " + String.join(", ", listed) + (learners.isEmpty() ? ""
                        : "; learners " + String.join(", ", learners)) + ") are not the spec's voters ("
                        + String.join(", ", wanted) + "), and a downgrade keeps the members it has",
                "change the members first, on the version they run (an apply with etcd.version at that version), then"
                        + " downgrade"));
    }

    /** Every running member answers, on a version planned from (or the target), with no alarm: asked when the apply runs. */
    private Optional<Step> preflight(String what) {
        Map<String, String> running = new LinkedHashMap<>();
        Map<String, Version> versions = runningVersions();
        in.desired().members().stream().filter(m -> versions.containsKey(m.name()))
                .forEach(m -> running.put(m.name(), Endpoints.clientUrl(m, in.layout())));
        if (running.isEmpty()) {
            return Optional.empty();
        }
        Set<String> allowed = new LinkedHashSet<>();
        versions.values().forEach(v -> allowed.add(v.toString()));
        allowed.add(target.toString());
        return Optional.of(add(Step.cluster("version", "version-preflight").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("check the members before the " + what)
                .reason("members on " + String.join(" and ", new LinkedHashSet<>(versions.values().stream()
                        .map(Version::toString).toList())) + " when planned; checked again when applied")
                .requires(new VersionPreflight(context.access(), running, allowed, false, what))
                .after(pki)
                .does(ctx -> Outcome.OK)));
    }

    /** A verified snapshot before the downgrade is enabled; a warning when the operator declined it. */
    private Optional<Step> snapshot(List<Step> after) {
        if (in.snapshotDir().isEmpty()) {
            warnings.add("no snapshot before this downgrade (--no-snapshot): if it goes wrong, only an older backup can"
                    + " bring the cluster back");
            return Optional.empty();
        }
        Path dir = in.snapshotDir().get();
        Health.Access access = context.access();
        List<String> clientUrls = context.clientUrls();
        return Optional.of(add(Step.cluster("backup", "snapshot").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("snapshot the cluster to " + dir).reason("before minor downgrade; verified against its sha256")
                .after(after)
                .does(ctx -> {
                    SafetySnapshot.Saved saved;
                    try (Progress received = ctx.transfer("snapshot of the cluster", -1)) {
                        saved = SafetySnapshot.take(access, clientUrls, dir, SNAPSHOT_LABEL, in.timeouts().snapshot(),
                                received::advanced);
                    }
                    ctx.note(saved.file() + ": " + saved.bytes() + " bytes, sha256 " + saved.sha256());
                    return Outcome.CHANGED;
                })));
    }

    /** etcd's downgrade validate, then enable; ready once every member's storage is at the older minor. */
    private Step enable(Version older, List<Step> after) {
        Health.Access access = context.access();
        List<String> clientUrls = context.clientUrls();
        return Step.cluster("version", "downgrade-enable").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("enable the downgrade to " + minor() + " (etcd's downgrade validate, then enable)")
                .reason("the members run " + newest() + "; etcd lowers the cluster version, then each member its storage")
                .after(after)
                .readyWhen(new DowngradeConditions.StorageVersionIs(access, memberUrls(), older, in.timeouts().ready()))
                .does(ctx -> enableDowngrade(ctx, access, clientUrls, older));
    }

    /** The downgrade was enabled by an earlier apply: its storage move awaited again before any swap. */
    private Step storageMoved(Version older, List<Step> after) {
        return Step.cluster("version", "downgrade-storage").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("wait for every member's storage at " + minor())
                .reason("the downgrade to " + minor() + " is under way")
                .after(after)
                .readyWhen(new DowngradeConditions.StorageVersionIs(context.access(), memberUrls(), older,
                        in.timeouts().ready()))
                .does(ctx -> Outcome.OK);
    }

    /**
     * Validate then enable, asked of a member that reports downgrades (3.6 and newer): a 3.5 member
     * applies etcd's DowngradeInfoSet without ever answering the request (its applier returns no
     * result for it, etcd@v3.5.33 server/etcdserver/apply.go), so the call would time out after it
     * took effect. OK when this very downgrade is already under way (an earlier, interrupted run).
     */
    private static Outcome enableDowngrade(StepContext ctx, Health.Access access, List<String> clientUrls, Version older) {
        String minor = DowngradeConditions.minor(older);
        List<String> tried = new ArrayList<>();
        for (String url : clientUrls) {
            try (MemberRpc rpc = MemberRpc.connect(url, access.tls(), Health.ATTEMPT_TIMEOUT)) {
                io.etcd.jetcd.api.StatusResponse status = rpc.status();
                if (!MemberRpc.reportsDowngrade(status)) {
                    tried.add(url + " runs " + status.getVersion() + ", which has no downgrade to offer");
                    continue;
                }
                Optional<String> under = MemberRpc.downgradeTarget(status);
                if (under.isPresent() && under.get().equals(older.toString())) {
                    ctx.note("the downgrade to " + minor + " is already under way");
                    return Outcome.OK;
                }
                String cluster = rpc.downgrade(MemberRpc.DowngradeAction.VALIDATE, minor);
                rpc.downgrade(MemberRpc.DowngradeAction.ENABLE, minor);
                ctx.note("downgrade to " + minor + " enabled through " + url + " (cluster version " + cluster + " when asked)");
                return Outcome.CHANGED;
            } catch (StatusRuntimeException e) {
                io.grpc.Status.Code code = e.getStatus().getCode();
                if (code == io.grpc.Status.Code.UNAVAILABLE || code == io.grpc.Status.Code.DEADLINE_EXCEEDED) {
                    tried.add(url + " did not answer (" + describe(e) + ")");
                    continue; // another member can take it: the request goes through raft either way
                }
                throw new IllegalStateException("etcd refused the downgrade to " + minor + " (" + describe(e) + "). Nothing"
                        + " was changed. What to do: 'etcdwright status' shows the cluster version and each member's; a"
                        + " downgrade goes one minor below the cluster version, once no other is under way.", e);
            }
        }
        throw new IllegalStateException("no member took the downgrade to " + minor + ": " + String.join("; ", tried)
                + ". What to do: 'etcdwright status', then apply again.");
    }

    /**
     * etcd's downgrade cancel, asked of a member that reports downgrades (see {@link #enableDowngrade}
     * for why never of a 3.5 one). etcd answers success even when the cancel did nothing, and a call
     * that timed out may have taken effect: whether it took is the readiness check's to say.
     */
    private static Outcome cancelDowngrade(StepContext ctx, Health.Access access, List<String> clientUrls) {
        List<String> tried = new ArrayList<>();
        for (String url : clientUrls) {
            try (MemberRpc rpc = MemberRpc.connect(url, access.tls(), Health.ATTEMPT_TIMEOUT)) {
                io.etcd.jetcd.api.StatusResponse status = rpc.status();
                if (!MemberRpc.reportsDowngrade(status)) {
                    tried.add(url + " runs " + status.getVersion());
                    continue;
                }
                if (MemberRpc.downgradeTarget(status).isEmpty()) {
                    ctx.note("no downgrade is under way any more");
                    return Outcome.OK;
                }
                String cluster = rpc.downgrade(MemberRpc.DowngradeAction.CANCEL, "");
                ctx.note("downgrade cancelled through " + url + " (cluster version " + cluster + ")");
                return Outcome.CHANGED;
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == io.grpc.Status.Code.DEADLINE_EXCEEDED) {
                    ctx.note("the cancel asked of " + url + " got no answer in time; whether it took is checked next");
                    return Outcome.CHANGED;
                }
                tried.add(url + ": " + describe(e));
            }
        }
        throw new IllegalStateException("no member took the downgrade cancel: " + String.join("; ", tried) + ". What to do:"
                + " 'etcdwright status', then apply again.");
    }

    private static String describe(StatusRuntimeException e) {
        return e.getStatus().getCode() + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription());
    }

    /**
     * The spec's release unpacked on every host (host setup, then the install, which also points the
     * etcdctl and etcdutl links at it), hosts side by side after {@code gate}; by host, what a
     * member's own files wait for.
     */
    private Map<String, List<Step>> install(List<Step> gate) {
        Map<String, List<Step>> done = new LinkedHashMap<>();
        for (Member m : in.desired().members()) {
            done.put(m.host().name(), HostPreparation.host(context(m), List.of(new HostSetupModule(),
                    new InstallModule(in.releases())), gate, steps, false).done());
        }
        return done;
    }

    /**
     * Each member's certificates, config (as the spec's minor spells it) and unit: written only just
     * before its own restart, so a member not yet swapped keeps the files of the version it runs (a
     * crash brings it back on that binary, a cancel has nothing to undo there).
     */
    private List<MemberModule> files() {
        return List.of(new CertificatesModule(in.pki(), pki, in.desired()), new ConfigFileModule(),
                new UnitModule());
    }

    /**
     * Members that do not run started, then the running members that must restart, one at a time:
     * those on another version than the spec's, and those whose files changed since they started;
     * followers first, the member leading when planned last. Each one's files are written right
     * before its restart; those of a member not restarted, after {@code gate}. During a downgrade a
     * stopped member whose files are not yet the older minor's (stopped before its storage moved,
     * perhaps) is started on what it has, its storage awaited, and then swapped like the others.
     */
    private List<Step> restartMembers(Map<String, List<Step>> installs, List<Step> gate, Optional<Version> older) {
        Map<String, Version> versions = runningVersions();
        List<Member> restart = new ArrayList<>();
        List<Member> startAsIs = new ArrayList<>();
        for (Member m : in.desired().members()) {
            boolean running = in.facts().get(m.host().name()).service().running();
            // Planned once aside to see what its files would change; the real steps come below.
            Prepared dry = HostPreparation.host(context(m), files(), List.of(), new ArrayList<>(), false);
            if (running && (!target.equals(versions.get(m.name())) || !dry.restartCauses().isEmpty())) {
                restart.add(m);
            } else if (!running && older.isPresent() && !dry.done().isEmpty()) {
                startAsIs.add(m);
                restart.add(m);
            }
        }
        restart = RollingRestart.order(restart, m -> in.facts().get(m.host().name()).member().status()
                .map(MemberFacts.LocalStatus::isLeader).orElse(false));
        List<Step> settled = new ArrayList<>(gate);
        List<Step> starts = new ArrayList<>();
        for (Member m : in.desired().members()) {
            String host = m.host().name();
            EtcdHostFacts f = in.facts().get(host);
            List<Step> before = concat(gate, installs.get(host));
            if (restart.contains(m) && !startAsIs.contains(m)) {
                continue;
            }
            if (!startAsIs.contains(m)) {
                Prepared files = HostPreparation.host(context(m), files(), before, steps, false);
                settled.addAll(files.done());
                before = concat(before, files.done());
            }
            if (!f.service().running()) {
                starts.add(add(Step.on(host, "service", "start").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION).summary("start etcd")
                        .reason((f.service().activeState().equals("failed") ? "failed" : "not running")
                                + (startAsIs.contains(m) ? "; on the files it has, swapped once its storage moved" : ""))
                        .observed(f.service().activeState())
                        .after(before)
                        .does(ctx -> ServiceSteps.start(ctx.session()))));
            }
        }
        List<Step> previous = gate;
        if (!starts.isEmpty()) {
            Step.Builder healthy = Step.cluster("membership", "healthy").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                    .summary("wait for all " + in.desired().members().size() + " members healthy")
                    .reason(starts.size() + " member" + (starts.size() == 1 ? "" : "s") + " started")
                    .after(starts)
                    .readyWhen(new ClusterConditions.AllHealthy(context.access(), context.clientUrls(), in.timeouts().ready()));
            older.filter(v -> !startAsIs.isEmpty()).ifPresent(v -> healthy.readyWhen(new DowngradeConditions.StorageVersionIs(
                    context.access(), memberUrls(in.desired().members()), v, in.timeouts().ready())));
            previous = List.of(add(healthy.does(ctx -> Outcome.OK)));
        }
        List<String> restartedBefore = new ArrayList<>();
        for (Member m : restart) {
            String host = m.host().name();
            Prepared files = HostPreparation.host(context(m), files(), concat(previous, installs.get(host)), steps, false);
            previous = List.of(restartStep(m, Optional.ofNullable(versions.get(m.name())), files, previous,
                    List.copyOf(restartedBefore), older));
            restartedBefore.add(m.name());
        }
        return previous == gate ? concat(settled, pki) : concat(previous, settled);
    }

    /**
     * One member restarted onto the spec's version. {@code older}: a swap to the older minor, which
     * requires the downgrade still under way and the member's storage there (a member already on
     * the older minor is restarted for its files alone, and requires neither).
     */
    private Step restartStep(Member m, Optional<Version> runs, Prepared files, List<Step> after, List<String> restartedBefore,
                             Optional<Version> older) {
        String host = m.host().name();
        String url = Endpoints.clientUrl(m, in.layout());
        List<String> others = in.desired().members().stream().filter(o -> o != m)
                .map(o -> Endpoints.clientUrl(o, in.layout())).toList();
        boolean swap = !runs.equals(Optional.of(target));
        Step.Builder step = Step.on(host, "service", older.isPresent() && swap ? "downgrade" : "restart").safety(SafetyClass.NEVER)
                .kind(ChangeKind.ACTION)
                .summary(swap ? (older.isPresent() ? "swap etcd to " : "restart etcd on ") + target : "restart etcd")
                .reason(swap ? runs.map(v -> "runs " + v).orElse("was stopped") : String.join(", ", files.restartCauses()))
                .after(after).after(files.done())
                .requires(new ClusterConditions.OthersHealthy(context.access(), m.name(), others, context.members().size()));
        older.filter(v -> runs.filter(r -> sameMinor(r, v)).isEmpty())
                .ifPresent(v -> step.requires(new DowngradeConditions.ReadyToSwap(context.access(), m.name(), url, v)));
        return add(step
                .readyWhen(new ClusterConditions.AllHealthy(context.access(), context.clientUrls(), in.timeouts().ready()))
                .readyWhen(new ClusterConditions.WritesCommitThrough(context.access(), m.name(), url, in.timeouts().ready()))
                .readyWhen(new DowngradeConditions.MemberRuns(context.access(), m.name(), url, target))
                .does(ctx -> {
                    if (context.members().size() > 1) {
                        RollingRestart.handOffIfLeading(ctx, context, m.name(), restartedBefore);
                    }
                    return ServiceSteps.restart(ctx, in.layout().dataDir(), in.timeouts().restart());
                }));
    }

    /** A member's context for the modules: the cluster it belongs to, under the token its config names. */
    private MemberContext context(Member m) {
        String token = in.desired().members().stream()
                .map(o -> in.facts().get(o.host().name()).file(EtcdLayout.CONFIG_FILE).content().flatMap(EtcdConfigFile::tokenIn))
                .flatMap(Optional::stream).findFirst().orElse(spec.name());
        List<EtcdConfigFile.Peer> everyone = in.desired().members().stream()
                .map(o -> new EtcdConfigFile.Peer(o.name(), o.address())).toList();
        return new MemberContext(m, in.facts().get(m.host().name()), spec, in.layout(),
                new MemberContext.Bootstrap(everyone, false, token));
    }

    private static List<Step> concat(List<Step> a, List<Step> b) {
        List<Step> all = new ArrayList<>(a);
        b.stream().filter(s -> !all.contains(s)).forEach(all::add);
        return all;
    }

    /** Running members on another version than the spec's: the ones swapped (or, cancelling, sent back). */
    private List<Member> notOnTarget() {
        Map<String, Version> versions = runningVersions();
        return in.desired().members().stream()
                .filter(m -> versions.containsKey(m.name()) && !versions.get(m.name()).equals(target)).toList();
    }

    /** The version each running member answered with, by member name. */
    private Map<String, Version> runningVersions() {
        Map<String, Version> versions = new LinkedHashMap<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (f != null && f.service().running()) {
                f.member().status().map(MemberFacts.LocalStatus::version).flatMap(Version::tryParse)
                        .ifPresent(v -> versions.put(m.name(), v));
            }
        }
        return versions;
    }

    private Version newest() {
        return runningVersions().values().stream().max(Version::compareTo).orElse(target);
    }

    /** The members running when planned, by name: the ones whose storage is awaited first (one stopped is started later). */
    private Map<String, String> memberUrls() {
        return memberUrls(in.desired().members().stream().filter(m -> in.facts().get(m.host().name()).service().running())
                .toList());
    }

    private Map<String, String> memberUrls(List<Member> members) {
        Map<String, String> urls = new LinkedHashMap<>();
        members.forEach(m -> urls.put(m.name(), Endpoints.clientUrl(m, in.layout())));
        return urls;
    }

    private String minor() {
        return DowngradeConditions.minor(target);
    }

    private Step add(Step step) {
        steps.add(step);
        return step;
    }

    private static boolean sameMinor(Version a, Version b) {
        return a.minorLine().equals(b.minorLine());
    }

    private static String names(List<Member> members) {
        return String.join(", ", members.stream().map(Member::name).toList());
    }
}
