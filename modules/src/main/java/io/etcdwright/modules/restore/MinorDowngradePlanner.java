package io.etcdwright.modules.restore;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.backup.SafetySnapshot;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.upgrade.VersionChange;
import io.etcdwright.modules.upgrade.VersionPreflight;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The plans converge hands over to the restore: a minor downgrade the operator allowed the downtime
 * of, and a restore an interrupted apply left in flight. A minor downgrade (3.5 -> 3.4) cannot roll
 * (etcd 3.4 before 3.4.32 refuses a cluster that speaks 3.5), so the cluster is rebuilt on the
 * older version from a snapshot taken when the apply runs. The plan reads as the order of the work:
 * <ol>
 * <li>refusals: no snapshot (--no-snapshot cannot skip this one: it is the data), no quorum to
 *     take it from, members other than the spec's, and the restore's own (an unreachable host, no
 *     restore tool);</li>
 * <li>a write fence an interrupted apply left raised, lifted; then every running member checked
 *     when the apply runs: answering, on the version planned from, no alarm
 *     ({@link VersionPreflight});</li>
 * <li>the older version installed beside the newer on every host (the newer stays), its config
 *     (with the restore's token) and unit written; etcd keeps running the newer meanwhile;</li>
 * <li>writes fenced ({@link WriteFence}) and a snapshot streamed from the same member to the
 *     workstation's snapshot directory, verified and opened there;</li>
 * <li>the restore ({@link RestorePlanner}): the snapshot staged on every host and read there by the
 *     older version's tool, every member stopped, restored under the new token, started together,
 *     the fence lifted, all healthy; the proof: every member on the older version, the snapshot's
 *     revision and key count.</li>
 * </ol>
 * An apply killed after its first stop is finished by the next one ({@link #resume}), from the
 * snapshot staged on the members: the fence kept writes out since it was taken.
 */
public final class MinorDowngradePlanner {
    static final String SNAPSHOT_LABEL = "before-minor-downgrade";

    private MinorDowngradePlanner() {
    }

    /**
     * The plan when it is one of these (a restore in flight, or a minor downgrade with the downtime
     * allowed); empty when converge plans.
     *
     * @param held          the version each member with data holds now, by member name
     * @param existingToken the cluster token of the members' config, from which the restore's is derived
     */
    public static Optional<Plan> plan(ConvergePlanner.Inputs in, VersionChange change, Map<String, Version> held,
                                      Optional<String> existingToken) {
        Optional<Plan> resumed = resume(in);
        if (resumed.isPresent()) {
            return resumed;
        }
        if (change instanceof VersionChange.MinorDowngrade down && in.versions().allowDowntime()) {
            return Optional.of(downgrade(in, down, held, existingToken));
        }
        return Optional.empty();
    }

    /**
     * A restore an interrupted apply left in flight (a member's marker says it was stopped or
     * restored for it, and no proof followed): finished from the snapshot staged on the members,
     * under the token the markers record, whatever else the spec asks. Stopping members again or
     * starting them on the old data would only make it worse.
     */
    static Optional<Plan> resume(ConvergePlanner.Inputs in) {
        List<RestoreMarker> inFlight = markers(in).values().stream().flatMap(Optional::stream)
                .filter(RestoreMarker::inFlight).toList();
        if (inFlight.isEmpty()) {
            return Optional.empty();
        }
        String name = in.desired().spec().name();
        Set<String> snapshots = new LinkedHashSet<>(inFlight.stream().map(RestoreMarker::snapshotSha256).toList());
        Optional<RestoreMarker> described = inFlight.stream().filter(m -> m.snapshot().isPresent()).findFirst();
        if (snapshots.size() > 1 || described.isEmpty()) {
            return Optional.of(Plan.refused(name, List.of(new Refusal("restore-in-flight", "cluster " + name,
                    "an interrupted restore left its members stopped or restored ("
                            + (snapshots.size() > 1 ? "from " + snapshots.size() + " different snapshots"
                            : "markers that do not say what their snapshot holds") + ", see "
                            + RestoreMarker.path(in.layout()) + " on the member hosts), and this apply cannot tell how to"
                            + " finish it",
                    "finish it with 'etcdwright restore --from FILE', FILE the snapshot it was restoring (the newest in"
                            + " $ETCDWRIGHT_HOME/clusters/" + name + "/snapshots for a minor downgrade)")), List.of()));
        }
        RestoreMarker marker = described.get();
        Version spec = Version.parse(in.desired().spec().etcd().version());
        boolean downgrade = marker.snapshot().get().takenBy()
                .filter(v -> v.minorLine().equals(spec.minorLine().next())).isPresent();
        RestorePlanner.Prelude prelude = new RestorePlanner.Prelude() {
            @Override
            public List<String> warnings() {
                return List.of("a restore is in flight: an earlier apply stopped or restored members from snapshot "
                        + marker.snapshotSha256().substring(0, 16) + " and did not finish; this apply finishes it from the"
                        + " copy staged on the members, under the same cluster token");
            }
        };
        return Optional.of(RestorePlanner.plan(restoreInputs(in, RestoreSnapshot.staged(marker), marker.token(), downgrade),
                prelude));
    }

    static Plan downgrade(ConvergePlanner.Inputs in, VersionChange.MinorDowngrade down, Map<String, Version> held,
                          Optional<String> existingToken) {
        String name = in.desired().spec().name();
        Health.Access access = Endpoints.healthAccess(in.pki());
        List<String> clientUrls = Endpoints.clientUrls(in.desired().members(), in.layout());
        RestoreSnapshot snapshot = RestoreSnapshot.takenWhenApplied("a snapshot of the cluster taken when the apply runs",
                down.from());
        String token = name + "-" + digest(existingToken.orElse(name) + "\0" + down.to()).substring(0, 12);

        RestorePlanner.Prelude prelude = new RestorePlanner.Prelude() {
            @Override
            public List<Refusal> refusals() {
                List<Refusal> refusals = new ArrayList<>();
                if (in.snapshotDir().isEmpty()) {
                    refusals.add(new Refusal("snapshot-required", "cluster " + name,
                            "--no-snapshot: a minor downgrade restores every member from a snapshot taken when the apply"
                                    + " runs, so it cannot go without one",
                            "apply without --no-snapshot"));
                }
                if (!in.cluster().map(ClusterStatus::quorum).orElse(false)) {
                    refusals.add(new Refusal("no-quorum", "cluster " + name,
                            "the cluster has no quorum (no linearizable read went through), and a minor downgrade takes"
                                    + " its snapshot from the running cluster",
                            "bring the members back on " + down.from() + " first ('etcdwright status'); if quorum is lost"
                                    + " for good, restore the newest backup with 'etcdwright restore'"));
                }
                membershipDiffers(in).ifPresent(refusals::add);
                return refusals;
            }

            @Override
            public List<String> warnings() {
                List<String> warnings = new ArrayList<>();
                warnings.add("minor downgrade from " + down.from() + " to " + down.to() + " through a snapshot and a restore: "
                        + down.whyNotRolling());
                warnings.add("writes are refused from the snapshot on: etcdwright raises etcd's NOSPACE alarm (member id "
                        + Long.toHexString(WriteFence.MEMBER_ID) + ") so no write acknowledged after the snapshot is lost;"
                        + " deletes still pass, so stop the writers (kube-apiservers) before applying");
                warnings.add("etcd " + down.from() + " stays installed beside " + down.to() + "; the old data is kept");
                warnings.addAll(down.warnings());
                return warnings;
            }

            @Override
            public List<Step> gate(List<Step> pki) {
                List<Step> gate = new ArrayList<>();
                Optional<Step> lift = WriteFence.leftover(in.cluster(), access, clientUrls, in.timeouts().ready());
                lift.ifPresent(gate::add);
                preflight(in, down, held, access, lift).ifPresent(gate::add);
                return gate;
            }

            @Override
            public Optional<Step> snapshot(List<Step> hostsReady) {
                Path dir = in.snapshotDir().orElseThrow();
                return Optional.of(Step.cluster("restore", "downgrade-snapshot").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                        .summary("refuse writes (etcd's NOSPACE alarm), then snapshot the cluster to " + dir)
                        .reason("the data every member is restored from: taken when the apply runs, from the member that"
                                + " applied the fence; verified against its sha256 and opened on this workstation")
                        .after(hostsReady)
                        .does(ctx -> {
                            SnapshotSource source;
                            try (Progress received = ctx.transfer("snapshot of the fenced cluster", -1)) {
                                SafetySnapshot.Saved saved = SafetySnapshot.take(access, clientUrls, dir, SNAPSHOT_LABEL,
                                        in.timeouts().snapshot(), WriteFence::raise, "no member was stopped. What to do: see"
                                                + " 'etcdwright status', then apply again", received::advanced);
                                source = SnapshotSource.local(saved.file(), dir, Optional.of(down.from()));
                            } catch (RuntimeException e) {
                                // Nothing will be restored: the cluster takes writes again (or the next apply lifts it).
                                WriteFence.lift(ctx, access, clientUrls, Duration.ofSeconds(10));
                                throw e;
                            }
                            snapshot.taken(source);
                            ctx.note(source.origin() + ": " + source.bytes() + " bytes, sha256 " + source.sha256() + ", revision "
                                    + source.revision().orElse(0L) + ", " + source.liveKeys().orElse(0L) + " keys");
                            return Outcome.CHANGED;
                        }));
            }
        };
        return RestorePlanner.plan(restoreInputs(in, snapshot, token, true), prelude);
    }

    /**
     * The members running when planned, checked when the apply runs: each answers, on one of the
     * versions the plan was made from, with no alarm; after a leftover fence is lifted.
     */
    private static Optional<Step> preflight(ConvergePlanner.Inputs in, VersionChange.MinorDowngrade down,
                                            Map<String, Version> held, Health.Access access, Optional<Step> after) {
        Map<String, String> running = new LinkedHashMap<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (held.containsKey(m.name()) && f != null && f.service().running()) {
                running.put(m.name(), Endpoints.clientUrl(m, in.layout()));
            }
        }
        if (running.isEmpty()) {
            return Optional.empty();
        }
        Set<String> from = new LinkedHashSet<>(held.values().stream().map(Version::toString).toList());
        Step.Builder step = Step.cluster("version", "version-preflight").safety(SafetyClass.NEVER).kind(ChangeKind.ACTION)
                .summary("check the members before the minor downgrade to " + down.to())
                .reason("from " + String.join(" and ", from) + "; checked again when applied")
                .requires(new VersionPreflight(access, running, from, false, "minor downgrade to " + down.to()));
        after.ifPresent(step::after);
        return Optional.of(step.does(ctx -> Outcome.OK));
    }

    /**
     * A member the cluster lists and the spec does not (or the other way round): a downgrade keeps the
     * members, and a member left out of the restore would keep running the newer version alone.
     */
    private static Optional<Refusal> membershipDiffers(ConvergePlanner.Inputs in) {
        if (in.cluster().isEmpty()) {
            return Optional.empty();
        }
        Set<String> spec = new LinkedHashSet<>();
        in.desired().members().forEach(m -> spec.add(new EtcdConfigFile.Peer(m.name(), m.address()).peerUrl(in.layout())));
        Set<String> cluster = new LinkedHashSet<>();
        in.cluster().get().members().forEach(m -> cluster.addAll(m.peerUrls()));
        if (spec.equals(cluster)) {
            return Optional.empty();
        }
        String name = in.desired().spec().name();
        return Optional.of(new Refusal("membership-differs", "cluster " + name,
                "the cluster's members (peer URLs " + String.join(", ", cluster) + ") are not the spec's ("
                        + String.join(", ", spec) + "), and a minor downgrade rebuilds exactly the members it has",
                "change the members first, on the version they run (an apply with the old etcd.version and the new"
                        + " members), then downgrade"));
    }

    private static RestorePlanner.Inputs restoreInputs(ConvergePlanner.Inputs in, RestoreSnapshot snapshot, String token,
                                                       boolean downgrade) {
        return new RestorePlanner.Inputs(in.desired(), in.layout(), in.facts(), in.unreachable(), markers(in), in.pki(),
                in.releases(), snapshot, false, token, in.now(), in.timeouts(), downgrade);
    }

    private static Map<String, Optional<RestoreMarker>> markers(ConvergePlanner.Inputs in) {
        Map<String, Optional<RestoreMarker>> markers = new LinkedHashMap<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (f != null) {
                markers.put(m.host().name(), f.restoreMarker());
            }
        }
        return markers;
    }

    /**
     * The restore's token is derived from the cluster's and the target version: fresh (never the
     * running cluster's), and the same for the same facts, so a plan saved with --out applies.
     */
    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
