package io.etcdwright.cli;

import io.etcdwright.engine.exec.Recap;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.restore.InvalidSnapshotException;
import io.etcdwright.modules.restore.SnapshotSource;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.LockedRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

@Command(name = "restore", description = {"Rebuild every member of the cluster from one snapshot: in place, or on new hosts.",
        "Stops every member (downtime), moves each data directory aside (never deletes it), restores the snapshot on every"
                + " member under a new cluster token, starts them and proves the result."})
final class RestoreCommand implements java.util.concurrent.Callable<Integer> {
    @Mixin
    InputOptions input;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    WaitOptions waits;

    @Mixin
    LockOptions locks;

    @Option(names = "--from", required = true, paramLabel = "BACKUP|FILE",
            description = {"A backup in the store, by name (see 'etcdwright backups list'; 'latest' for the newest);",
                    "or a backup directory in etcd-manager's layout; or a snapshot file: as 'etcdctl snapshot save' writes it",
                    "(.db), gzipped (.db.gz), or a member/snap/db copied from a member's disk (needs --skip-hash-check)."})
    String from;

    @Option(names = "--store", paramLabel = "NAME", description = "The store --from names a backup in (default: the spec's first).")
    String store;

    @Option(names = "--key", paramLabel = "FILE", description = "A recipient's private key, for an encrypted backup. It stays"
            + " on this workstation.")
    Path key;

    @Option(names = "--snapshot-version", paramLabel = "VERSION",
            description = "The etcd version of the cluster that took the snapshot, when known: a snapshot of another minor"
                    + " than the spec's is refused.")
    String snapshotVersion;

    @Option(names = "--skip-hash-check", description = "Restore a snapshot without etcd's sha256 trailer (a copied"
            + " member/snap/db) unchecked. A trailer that does not match is refused all the same.")
    boolean skipHashCheck;

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (ClusterRun run = ClusterRun.open(input.inventory, input.spec, connection.settings());
             LockedRun locked = run.lock("restore", locks.settings(), out::println)) {
            String name = run.desired().spec().name();
            SnapshotSource source;
            try {
                // On the workstation, before any member is contacted: a damaged backup never reaches one.
                source = locked.restoreSource(from, Optional.ofNullable(store), Optional.ofNullable(key),
                        Optional.ofNullable(snapshotVersion).map(Version::parse), label -> new TransferProgress(err, label));
            } catch (InvalidSnapshotException e) {
                err.println("Refused: " + e.getMessage() + ". No member was contacted; nothing was changed.");
                return Main.ERROR;
            }
            Plan plan = locked.restore(source, skipHashCheck, waits.timeouts());
            PlanPrinter.text(plan, false, out);
            if (plan.isRefused()) {
                err.println("Not restored: see above. Nothing was changed.");
                return Main.ERROR;
            }
            if (!yes && !Confirmation.ask("Stop every member of cluster " + name + " and restore it from " + source.origin() + "?", out)) {
                err.println("Not restored: no confirmation (pass --yes to skip the question). Nothing was changed.");
                return Main.ERROR;
            }
            out.println();
            long start = System.nanoTime();
            // Every inventory host: an old member's host the spec no longer lists is stopped there.
            Recap recap = locked.apply(plan, new ProgressPrinter(out));
            ProgressPrinter.recap(recap, run.memberHosts(), out);
            if (!recap.succeeded()) {
                err.println("Restore did not finish: see the failed steps above. Fix the cause and run the same restore again:"
                        + " members already restored from this snapshot are kept, the others restored under the same token."
                        + " Every member's old data is kept beside its data directory.");
                return Main.ERROR;
            }
            out.println("Restored cluster " + name + " from " + source.origin() + " in " + (System.nanoTime() - start) / 1_000_000 + " ms.");
            return Main.OK;
        }
    }
}
