package io.etcdwright.run;

import io.etcdwright.engine.exec.Executor;
import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.cluster.PendingStops;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.maintenance.DefragPlanner;
import io.etcdwright.modules.maintenance.MaintenanceChecks;
import io.etcdwright.modules.restore.RestoreMarker;
import io.etcdwright.modules.restore.RestorePlanner;
import io.etcdwright.modules.restore.SnapshotSource;
import io.etcdwright.modules.teardown.TeardownPlanner;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster's run while it holds the cluster's lock ({@link ClusterRun#lock}): every change is
 * planned here, from facts gathered under the lock (facts gathered before it could be another run's
 * half-way state), and applied here, each step's changes to the shared state written back as it
 * ends. Closing it releases the lock.
 */
public final class LockedRun implements ClusterApply.Locked, AutoCloseable {
    private final ClusterRun run;
    private final ClusterLocks locks;

    LockedRun(ClusterRun run, ClusterLocks locks) {
        this.run = run;
        this.locks = locks;
    }

    public ClusterRun run() {
        return run;
    }

    /**
     * The converge plan ({@code apply}).
     *
     * @param newClusterToken the bootstrap token a saved plan of a new cluster was made with
     */
    @Override
    public Plan converge(PlanSettings settings, Optional<String> newClusterToken) {
        return ConvergeRun.plan(run, settings, newClusterToken);
    }

    /** As {@link #converge}, with the facts (gathered under the lock) it was made from. */
    public ClusterRun.Planned converged(PlanSettings settings) {
        return ConvergeRun.planned(run, settings, Optional.empty());
    }

    /**
     * Where a restore's snapshot comes from, resolved and checked on the workstation before any
     * member is contacted ({@link RestoreSources}): a damaged backup never reaches one.
     */
    public SnapshotSource restoreSource(String from, Optional<String> store, Optional<Path> key,
                                        Optional<Version> snapshotVersion, TransferListener.Factory transfers) {
        String name = run.desired().spec().name();
        return RestoreSources.resolve(from, run.desired(), store, key,
                EtcdwrightHome.dir().resolve("clusters").resolve(name).resolve("restore"), snapshotVersion, run.settings(),
                transfers);
    }

    /** The restore of every member from {@code source} under a fresh cluster token ({@link RestorePlanner}). */
    public Plan restore(SnapshotSource source, boolean skipHashCheck, StepWaits waits) {
        DesiredState desired = run.desired();
        String name = desired.spec().name();
        ClusterRun.Facts facts = run.gather();
        RestorePlanner.Inputs inputs = new RestorePlanner.Inputs(desired, run.layout(), facts.byHost(),
                facts.unreachable(), markers(), run.pki(), new ReleaseCache(EtcdwrightHome.releaseCache()), source,
                skipHashCheck, name + "-restore-" + randomHex(), Instant.now(), waits.timeouts());
        // The cluster it replaces, as its members see it: old members on hosts the spec no longer lists are stopped.
        return RestorePlanner.plan(facts.cluster().map(c -> inputs.replacing(c,
                new PendingStops(EtcdwrightHome.removedHostsDir(name)))).orElse(inputs));
    }

    /**
     * The defragmentation of the members whose database is worth it ({@link DefragPlanner}).
     *
     * @param minFragmentationPercent defragment a member only when at least this share of its file is free pages
     */
    public DefragPlanner.Defrag defrag(int minFragmentationPercent, Duration defragTimeout, Duration readyTimeout) {
        DesiredState desired = run.desired();
        ClusterRun.Facts facts = run.gather();
        return DefragPlanner.plan(new DefragPlanner.Inputs(desired.spec().name(),
                desired.members(), Endpoints.clientUrls(desired.members(), run.layout()), facts.byHost(),
                facts.unreachable(), facts.cluster(), Endpoints.healthAccess(run.pki()),
                MaintenanceChecks.quotaBytes(desired.spec().etcd()), minFragmentationPercent, defragTimeout, readyTimeout));
    }

    /** The teardown of the cluster ({@link TeardownPlanner}): data directories deleted only with {@code wipeData}. */
    public Plan teardown(boolean wipeData) {
        ClusterRun.Facts facts = run.gatherWithClientHosts();
        return TeardownPlanner.plan(run.desired().spec().name(), facts.byHost(), facts.unreachable(), run.layout(), wipeData,
                facts.clientHosts(), run.pki().clientHosts(), java.util.Optional.of(run.pki()));
    }

    /**
     * Runs {@code plan}'s steps on every inventory host they name (a removed member's host is no
     * member any more, but its etcd is stopped there), each checking its conditions when it runs;
     * the shared state is written back after each step.
     */
    @Override
    public Recap apply(Plan plan, ProgressListener progress) {
        return new Executor(run.connections(), run.stepTargets(), run.settings().forks(), progress)
                .afterEachStep(() -> SharedStates.writeBack(run.desired())).run(plan);
    }

    /** Each member host's restore marker: a second, small round trip only restore needs. */
    private Map<String, Optional<RestoreMarker>> markers() {
        var probe = RestoreMarker.probe(run.layout());
        List<HostReport> reports = run.ask(run.desired().members().stream().map(Member::host).toList(), List.of(probe));
        Map<String, Optional<RestoreMarker>> markers = new LinkedHashMap<>();
        for (HostReport r : reports) {
            if (r instanceof HostReport.Reachable ok) {
                markers.put(ok.host(), ok.facts().get(probe));
            }
        }
        return markers;
    }

    private static String randomHex() {
        byte[] bytes = new byte[6];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public void close() {
        locks.close();
    }
}
