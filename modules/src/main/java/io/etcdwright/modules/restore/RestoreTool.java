package io.etcdwright.modules.restore;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.upgrade.VersionCatalogue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The tool that restores a snapshot of one etcd version, and what it can do: {@code etcdutl} for
 * 3.5, {@code etcdctl} for 3.4 (from {@link VersionCatalogue}), run from the version's own
 * directory so that the version installed beside it (an upgrade in flight) is never the one used.
 *
 * @param bumpsRevision whether it takes {@code --bump-revision} and {@code --mark-compacted}
 *                      (3.5.10+, 3.4.27+): the restored revision then lies far ahead of anything a
 *                      watcher saw, and the revisions in between count as compacted, so watchers
 *                      (Kubernetes' informers) notice and list again instead of waiting for events
 *                      that the restore took back
 */
public record RestoreTool(Version version, String tool, boolean bumpsRevision) {
    /** etcd's recovery guide's figure: about a week of revisions at 1500 writes a second. */
    public static final long BUMP = 1_000_000_000L;

    /** Empty when etcdwright knows no restore tool for this version's minor. */
    public static Optional<RestoreTool> of(Version v, VersionCatalogue catalogue) {
        return catalogue.line(v).map(line -> new RestoreTool(v, line.restoreTool(), line.bumpsRevision(v)));
    }

    public String binary() {
        return EtcdLayout.versionDir(version.toString()) + "/" + tool;
    }

    /** {@code snapshot status -w json}: reads the database without changing it (revision, hash, keys). */
    public RemoteCommand status(String snapshot) {
        return command(List.of("snapshot", "status", "-w", "json", snapshot));
    }

    /** Everything one member's restore needs. */
    public record Restore(String snapshot, String name, String peerUrl, String initialCluster, String token,
                          String dataDir, boolean skipHashCheck) {
    }

    public RemoteCommand restore(Restore r) {
        List<String> args = new ArrayList<>(List.of("snapshot", "restore", r.snapshot(), "--name", r.name(),
                "--data-dir", r.dataDir(), "--initial-cluster", r.initialCluster(),
                "--initial-cluster-token", r.token(), "--initial-advertise-peer-urls", r.peerUrl()));
        if (r.skipHashCheck()) {
            args.add("--skip-hash-check");
        }
        if (bumpsRevision) {
            args.addAll(List.of("--bump-revision", Long.toString(BUMP), "--mark-compacted"));
        }
        return command(args);
    }

    /** 3.4's etcdctl speaks v3 only when told (its default is v3 too, but a stray ETCDCTL_API=2 would win). */
    private RemoteCommand command(List<String> args) {
        List<String> argv = new ArrayList<>();
        if (tool.equals("etcdctl")) {
            argv.addAll(List.of("env", "ETCDCTL_API=3"));
        }
        argv.add(binary());
        argv.addAll(args);
        return new RemoteCommand.Exec(argv);
    }
}
