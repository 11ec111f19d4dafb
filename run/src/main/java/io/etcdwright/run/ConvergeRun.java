package io.etcdwright.run;

import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.backup.BackupsSeen;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.cluster.PendingStops;
import io.etcdwright.modules.install.ReleaseArtifact;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.upgrade.PatchProbe;
import io.etcdwright.modules.upgrade.VersionChange;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The converge planner's inputs, gathered: the facts (live or recorded), the workstation's PKI,
 * release cache, snapshot directory and pending stops, what the artifact source offers when a
 * minor upgrade is planned, and what the backup stores hold when the cluster lost quorum.
 */
final class ConvergeRun {
    private ConvergeRun() {
    }

    /** Live: facts gathered now (with the client hosts'), the release source and the stores asked when it matters. */
    static Plan plan(ClusterRun run, PlanSettings settings, Optional<String> newClusterToken) {
        return planned(run, settings, newClusterToken).plan();
    }

    /** As {@link #plan}, with the facts it was made from. */
    static ClusterRun.Planned planned(ClusterRun run, PlanSettings settings, Optional<String> newClusterToken) {
        DesiredState desired = run.desired();
        ClusterRun.Facts facts = run.gatherWithClientHosts();
        return new ClusterRun.Planned(live(desired, run.layout(), facts, settings, newClusterToken,
                new RecoveryBackups(desired, store -> BackupStores.open(store, desired, run.connections()), RecoveryBackups.BOUND)),
                facts);
    }

    /**
     * The live plan from facts just gathered: the one place where it differs from the offline plan of
     * the same facts ({@link #planOffline}), which a saved rollout planned from recorded facts is
     * compared with when it is applied. The plans differ only where the live one asks more than the
     * hosts: the artifact source, for a newer patch to move to before a minor upgrade (offline: none
     * is offered, so the live plan of such a cluster may hop first where the offline one does not),
     * and the backup stores when the cluster lost quorum (the plan is refused either way; only the
     * refusal's words name the newest backup).
     */
    static Plan live(DesiredState desired, EtcdLayout layout, ClusterRun.Facts facts, PlanSettings settings,
                     Optional<String> newClusterToken, BackupsSeen.Lookup backups) {
        return plan(desired, layout, facts, settings, true, newClusterToken, backups);
    }

    /** Offline: the recorded facts stand for the hosts; no connection is opened at all ({@link #live} says how it differs). */
    static Plan planOffline(Path inventory, Path spec, Path facts, PlanSettings settings) {
        return planOffline(inventory, spec, facts, settings, Optional.empty());
    }

    /** As {@link #planOffline(Path, Path, Path, PlanSettings)}, a new cluster bootstrapping with {@code newClusterToken}. */
    static Plan planOffline(Path inventory, Path spec, Path facts, PlanSettings settings, Optional<String> newClusterToken) {
        DesiredState desired = DesiredStateLoader.loadOffline(inventory, spec);
        EtcdLayout layout = Layouts.of(desired);
        EtcdProbes probes = EtcdProbes.of(layout);
        ClusterRun.Facts recorded = FactsFile.load(facts, desired.spec().name(),
                desired.members().stream().map(m -> m.host()).toList(), desired.inventory().hosts(), probes);
        return plan(desired, layout, recorded, settings, false, newClusterToken,
                BackupsSeen.Lookup.notLooked("the plan is made offline, from recorded facts"));
    }

    /**
     * The plan from facts, live or recorded: the cluster's own view (member list, leader, health)
     * comes with them, derived from what the members answered on their hosts
     * ({@link io.etcdwright.modules.cluster.ClusterFacts}); the workstation's PKI, release cache
     * and pending stops are read as they are now.
     *
     * @param backups what the backup stores hold, asked only when the cluster lost quorum (a restore is then a way out)
     */
    private static Plan plan(DesiredState desired, EtcdLayout layout, ClusterRun.Facts facts, PlanSettings settings,
                             boolean askReleaseSource, Optional<String> newClusterToken, BackupsSeen.Lookup backups) {
        ClusterPki pki = Pkis.of(desired);
        Optional<Path> snapshots = settings.snapshot() ? Optional.of(EtcdwrightHome.snapshotDir(desired.spec().name())) : Optional.empty();
        ReleaseCache releases = new ReleaseCache(EtcdwrightHome.releaseCache());
        return ConvergePlanner.plan(new ConvergePlanner.Inputs(desired, layout, facts.byHost(), facts.unreachable(), pki,
                releases, facts.cluster(), snapshots,
                new PendingStops(EtcdwrightHome.removedHostsDir(desired.spec().name())), settings.waits().timeouts(), Instant.now(),
                new ConvergePlanner.VersionOptions(settings.allowDowntime(),
                        askReleaseSource ? offers(desired, facts, releases) : VersionChange.PatchOffers.NONE))
                .withNewClusterToken(newClusterToken).withClientHosts(facts.clientHosts()).withBackups(backups));
    }

    /**
     * Which releases the spec's artifact source offers, asked of it (a HEAD per version) only when a
     * minor upgrade is planned, with the members' architecture. Not asked offline (--facts): such a
     * plan opens no connection at all.
     */
    private static VersionChange.PatchOffers offers(DesiredState desired, ClusterRun.Facts facts, ReleaseCache releases) {
        var artifacts = desired.spec().artifacts();
        String arch = facts.byHost().values().stream().map(f -> f.system().architecture()).findFirst().orElse("amd64");
        return new PatchProbe(VersionCatalogue.builtIn(), v -> releases.offers(ReleaseArtifact.of(v.toString(), arch,
                artifacts.urlTemplate(), artifacts.checksumsUrlTemplate(), Optional.empty())));
    }
}
