package io.etcdwright.modules.restore;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.cluster.ClusterConditions;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.HostPreparation;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.PkiSteps;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.upgrade.VersionCatalogue;

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
 *     spec's, a version without a known restore tool, a snapshot without its hash trailer unless
 *     the operator skips the check;</li>
 * <li>the workstation's PKI and each host prepared by the converge modules (install, certificates,
 *     config with the restore's token, unit), etcd not started;</li>
 * <li>the snapshot landed on every host and read there by the version's own tool, before anything
 *     is stopped;</li>
 * <li>every member stopped: the downtime begins;</li>
 * <li>every member's data restored beside it under a fresh token, the old data moved aside;</li>
 * <li>every member started side by side (they need each other for a quorum), awaited healthy;</li>
 * <li>the proof: one cluster, the snapshot's revision (bumped where the tool can), its keys.</li>
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
     */
    public record Inputs(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                         Map<String, String> unreachable, Map<String, Optional<RestoreMarker>> markers, ClusterPki pki,
                         ReleaseCache releases, SnapshotSource source, boolean skipHashCheck, String freshToken,
                         Instant now, ConvergePlanner.Timeouts timeouts) {
        public Inputs {
            facts = Map.copyOf(facts);
            unreachable = Map.copyOf(unreachable);
            markers = Map.copyOf(markers);
        }
    }

    private final Inputs in;
    private final List<Member> members;
    private final String name;
    private final List<Step> steps = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    private RestorePlanner(Inputs in) {
        this.in = in;
        this.members = in.desired().members();
        this.name = in.desired().spec().name();
        in.desired().warnings().forEach(w -> warnings.add(w.toString()));
    }

    public static Plan plan(Inputs in) {
        return new RestorePlanner(in).plan();
    }

    private Plan plan() {
        Version version = Version.parse(in.desired().spec().etcd().version());
        List<Refusal> refusals = refusals(version);
        Optional<RestoreTool> found = RestoreTool.of(version, VersionCatalogue.builtIn());
        if (!refusals.isEmpty() || found.isEmpty()) {
            return Plan.refused(name, refusals, warnings);
        }
        RestoreTool tool = found.get();
        String token = resumedToken().orElse(in.freshToken());
        sayWhatToExpect(tool, token);

        List<Step> pki = new ArrayList<>();
        PkiSteps.caStep(in.pki()).ifPresent(pki::add);
        PkiSteps.clientStep(in.pki(), List.copyOf(pki)).ifPresent(pki::add);
        steps.addAll(pki);
        List<EtcdConfigFile.Peer> everyone = members.stream().map(m -> new EtcdConfigFile.Peer(m.name(), m.address())).toList();
        // The config carries the restore's token and the whole membership as a new cluster would:
        // etcd reads them only when it starts without data, so they describe the restored cluster
        // truthfully and the next apply keeps the token. The backup schedule is left to that apply:
        // a restore changes what etcd serves, not how the members take backups.
        Map<String, HostPreparation.Prepared> prepared = HostPreparation.plan(in.desired(), in.layout(), in.facts(),
                in.pki(), in.releases(), pki, m -> new MemberContext.Bootstrap(everyone, false, token), List.of(), steps);

        List<Step> staged = stage(tool, prepared);
        List<Step> stops = stopAll(concat(staged, pki));
        List<Step> restores = restoreAll(tool, token, everyone, stops);
        Step healthy = startAll(restores);
        prove(tool, staged.get(0), healthy);
        return new Plan(name, steps, List.of(), warnings);
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
        String minor = version.major() + "." + version.minor();
        in.source().takenBy().filter(v -> !(v.major() + "." + v.minor()).equals(minor)).ifPresent(v -> refusals.add(
                new Refusal("snapshot-version", in.source().origin(),
                        "the snapshot was taken by etcd " + v + "; the spec runs " + version + ", another minor, and etcd"
                                + " restores only snapshots of its own minor",
                        "restore it with etcd " + v + " first (set etcd.version: " + v + "), then "
                                + (v.compareTo(version) < 0 ? "upgrade" : "move") + " to " + version + " with apply")));
        if (RestoreTool.of(version, VersionCatalogue.builtIn()).isEmpty()) {
            refusals.add(new Refusal("no-restore-tool", "etcd " + version,
                    "etcdwright knows no restore tool for etcd " + minor, "restore with a version of a known minor (3.4, 3.5)"));
        }
        if (!in.source().hashTrailer() && !in.skipHashCheck()) {
            refusals.add(new Refusal("snapshot-without-hash", in.source().origin(),
                    "it has no sha256 trailer (" + in.source().bytes() + " bytes of whole pages: a database copied from a"
                            + " member's disk, or a snapshot cut short), so nothing can show it is whole",
                    "use a snapshot taken with 'etcdctl snapshot save' or a backup; if this copied member/snap/db is the"
                            + " best that survived, pass --skip-hash-check to restore it unchecked"));
        }
        return refusals;
    }

    /** The token of a restore an earlier, interrupted run began with this snapshot: the members must share one. */
    private Optional<String> resumedToken() {
        return in.markers().values().stream().flatMap(Optional::stream)
                .filter(mk -> mk.state() == RestoreMarker.State.RESTORED && mk.snapshotSha256().equals(in.source().sha256()))
                .map(RestoreMarker::token).findFirst();
    }

    private void sayWhatToExpect(RestoreTool tool, String token) {
        long seconds = 15 + in.source().bytes() / (50L << 20);
        warnings.add(0, "DOWNTIME: every member is stopped, from the first stop step until all " + members.size()
                + " members are healthy again: about " + seconds + " s (" + in.source().bytes() + " bytes restored on"
                + " every member side by side, then a start). Clients see no cluster meanwhile; stop the kube-apiservers"
                + " first if Kubernetes uses it.");
        warnings.add("restores " + in.source().origin() + " (sha256 " + in.source().sha256() + ") with " + tool.tool() + " "
                + tool.version() + " under the new cluster token " + token + "; every member's old data is moved to "
                + in.layout().dataDir() + "." + suffix() + ", never deleted");
        if (in.source().takenBy().isEmpty()) {
            warnings.add("the snapshot does not say which etcd took it: it is read as etcd " + tool.version().major() + "."
                    + tool.version().minor() + " (the spec's); a snapshot of another minor must be restored with its own");
        }
        if (!tool.bumpsRevision()) {
            warnings.add(tool.tool() + " " + tool.version() + " cannot raise the revision (--bump-revision needs 3.5.10+ or"
                    + " 3.4.27+): watchers that saw later revisions (Kubernetes' informers) will not notice the restore;"
                    + " restart every kube-apiserver after it");
        }
        if (in.skipHashCheck()) {
            warnings.add("--skip-hash-check: " + in.source().origin() + (in.source().hashTrailer()
                    ? " has a sha256 trailer and it matched; the tool is still told to skip it"
                    : " has no sha256 trailer; it is restored UNCHECKED"));
        }
    }

    /** The snapshot on every host, read there by the tool: a host that cannot read it stops the restore before any stop. */
    private List<Step> stage(RestoreTool tool, Map<String, HostPreparation.Prepared> prepared) {
        List<Step> staged = new ArrayList<>();
        SnapshotSource source = in.source();
        for (Member m : members) {
            String host = m.host().name();
            Step step = Step.on(host, "restore", "restore/stage").kind(ChangeKind.CREATE)
                    .summary("copy the snapshot to " + RestoreSteps.stagedPath(source) + " and read it with " + tool.tool())
                    .reason(source.bytes() + " bytes, sha256 " + source.sha256().substring(0, 16))
                    .observed(source.sha256())
                    .after(prepared.get(host).done())
                    .does(ctx -> RestoreSteps.stage(ctx, source, tool));
            steps.add(step);
            staged.add(step);
        }
        return staged;
    }

    private List<Step> stopAll(List<Step> after) {
        List<Step> stops = new ArrayList<>();
        for (Member m : members) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            Step step = Step.on(m.host().name(), "restore", "restore/stop").kind(ChangeKind.ACTION)
                    .summary("stop etcd (DOWNTIME begins)")
                    .reason(f.service().running() ? "running" : f.service().activeState())
                    .observed(f.service().activeState())
                    .after(after)
                    .does(ctx -> ServiceSteps.stop(ctx.session(), in.timeouts().restart()));
            steps.add(step);
            stops.add(step);
        }
        return stops;
    }

    private List<Step> restoreAll(RestoreTool tool, String token, List<EtcdConfigFile.Peer> everyone, List<Step> stops) {
        String initialCluster = everyone.stream().map(p -> p.name() + "=" + p.url(in.layout().peerPort()))
                .collect(Collectors.joining(","));
        String dataDir = in.layout().dataDir();
        String suffix = suffix();
        String marker = RestoreMarker.path(in.layout());
        String sha = in.source().sha256();
        List<Step> restores = new ArrayList<>();
        for (Member m : members) {
            String host = m.host().name();
            RestoreTool.Restore r = new RestoreTool.Restore(RestoreSteps.stagedPath(in.source()), m.name(),
                    new EtcdConfigFile.Peer(m.name(), m.address()).url(in.layout().peerPort()), initialCluster, token,
                    dataDir + ".restoring", in.skipHashCheck());
            EtcdHostFacts f = in.facts().get(host);
            boolean resumes = in.markers().getOrDefault(host, Optional.empty()).map(mk -> mk.resumes(sha, token)).orElse(false);
            Step step = Step.on(host, "restore", "restore/data").kind(ChangeKind.UPDATE)
                    .summary("restore member " + m.name() + " into " + dataDir)
                    .reason(resumes ? "restored by an earlier run: kept"
                            : f.member().hasMemberData() ? "its data moves to " + dataDir + "." + suffix : "it holds no data")
                    .observed(sha + "/" + token)
                    .after(stops)
                    .does(ctx -> RestoreSteps.restore(ctx, tool, r, dataDir, suffix, sha, marker, in.timeouts().snapshot()));
            steps.add(step);
            restores.add(step);
        }
        return restores;
    }

    private Step startAll(List<Step> restores) {
        List<Step> starts = new ArrayList<>();
        for (Member m : members) {
            Step step = Step.on(m.host().name(), "restore", "restore/start").kind(ChangeKind.ACTION)
                    .summary("start etcd on the restored data").reason("restored")
                    .after(restores)
                    .does(ctx -> ServiceSteps.start(ctx.session()));
            steps.add(step);
            starts.add(step);
        }
        Health.Access access = Endpoints.healthAccess(in.pki());
        Step healthy = Step.cluster("restore", "restore/healthy").kind(ChangeKind.ACTION)
                .summary("wait for all " + members.size() + " restored members healthy (DOWNTIME ends)")
                .reason("started together: they need each other for a quorum")
                .after(starts)
                .readyWhen(new ClusterConditions.AllHealthy(access, Endpoints.clientUrls(members, in.layout()),
                        in.timeouts().ready()))
                .does(ctx -> Outcome.OK);
        steps.add(healthy);
        return healthy;
    }

    private void prove(RestoreTool tool, Step firstStage, Step healthy) {
        Health.Access access = Endpoints.healthAccess(in.pki());
        List<String> clientUrls = Endpoints.clientUrls(members, in.layout());
        Map<String, String> hosts = new LinkedHashMap<>();
        members.forEach(m -> hosts.put(m.host().name(), m.name()));
        long bump = tool.bumpsRevision() ? RestoreTool.BUMP : 0;
        String marker = RestoreMarker.path(in.layout());
        String staged = RestoreSteps.stagedPath(in.source());
        steps.add(Step.cluster("restore", "restore/prove").kind(ChangeKind.ACTION)
                .summary("prove the restore: one cluster, revision at least the snapshot's" + (bump > 0 ? " + " + bump : "")
                        + ", " + in.source().liveKeys().map(k -> k + " keys").orElse("its keys counted"))
                .reason("checked from the workstation, not by the members' own word")
                .after(healthy)
                .does(ctx -> {
                    long revision = ctx.outputOf(firstStage.id(), "revision").map(Long::parseLong)
                            .or(() -> in.source().revision())
                            .orElseThrow(() -> new IllegalStateException("the snapshot's revision is unknown: the step"
                                    + " reading it did not run in this apply"));
                    return RestoreSteps.prove(ctx, access, clientUrls,
                            new RestoreSteps.Expectation(revision, bump, in.source().liveKeys()), hosts, marker, staged,
                            in.timeouts().ready());
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
