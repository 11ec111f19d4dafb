package io.etcdwright.modules.restore;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The tool that restores (and reads) a snapshot of one etcd version, and what it can do, as the
 * {@link VersionCatalogue} says ({@code etcdutl} from 3.5 on, {@code etcdctl} with ETCDCTL_API=3 for
 * 3.4), run from the version's own directory so that the version installed beside it (an upgrade
 * in flight) is never the one used.
 *
 * @param env           the environment it runs with
 *
 * @param bumpsRevision whether it takes {@code --bump-revision} and {@code --mark-compacted}
 *                      (3.5.10+, 3.4.27+): the restored revision then lies far ahead of anything a
 *                      watcher saw, and the revisions in between count as compacted, so watchers
 *                      (Kubernetes' informers) notice and list again instead of waiting for events
 *                      that the restore took back
 */
public record RestoreTool(Version version, String tool, Map<String, String> env, boolean bumpsRevision) {
    /** etcd's recovery guide's figure: about a week of revisions at 1500 writes a second. */
    public static final long BUMP = 1_000_000_000L;

    public RestoreTool {
        env = Map.copyOf(env);
    }

    /** Empty when etcdwright knows no restore tool for this version's minor. */
    public static Optional<RestoreTool> of(Version v, VersionCatalogue catalogue) {
        return catalogue.restoreTool(v).map(t -> new RestoreTool(v, t.binary(), t.env(), t.bumpsRevision()));
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

    /** Run with the catalogue's environment (3.4's etcdctl: ETCDCTL_API=3, lest a stray ETCDCTL_API=2 win). */
    private RemoteCommand command(List<String> args) {
        List<String> argv = new ArrayList<>();
        if (!env.isEmpty()) {
            argv.add("env");
            new TreeMap<>(env).forEach((name, value) -> argv.add(name + "=" + value));
        }
        argv.add(binary());
        argv.addAll(args);
        return new RemoteCommand.Exec(argv);
    }
}
