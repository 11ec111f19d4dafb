package io.etcdwright.cli;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.lock.LockHolder;
import io.etcdwright.modules.lock.WorkstationLock;
import io.etcdwright.modules.membership.EtcdAdminClient;
import io.etcdwright.modules.membership.Health;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "unlock", description = {"Remove the cluster's lock from its etcd: for a holder known to be gone whose lease",
        "you cannot wait out. Says what it removes; the workstation's lock file needs no unlock (it goes with its process)."})
final class UnlockCommand implements Callable<Integer> {
    @Mixin
    InputOptions input;

    @Option(names = "--yes", description = "Do not ask for confirmation.")
    boolean yes;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        String cluster = desired.spec().name();
        Instant now = Instant.now();
        Path file = EtcdwrightHome.lockFile(cluster);
        if (WorkstationLock.isHeld(file)) {
            out.println("On this workstation, " + WorkstationLock.heldBy(file).map(h -> h.describe(now)).orElse("a process")
                    + " holds " + file + " and is running: unlock leaves it alone (it goes when that process ends).");
        }
        Optional<Health.Access> access = ClusterLocks.access(desired);
        if (access.isEmpty()) {
            out.println("No lock to remove: cluster " + cluster + " has no client certificate on this workstation, so it was never"
                    + " locked in its etcd from here.");
            return Main.OK;
        }
        try (EtcdAdminClient client = EtcdAdminClient.connect(Endpoints.clientUrls(desired.members(), Layouts.of(desired)),
                access.get().caCert(), access.get().clientCert(), access.get().clientKey(), ClusterLocks.CALL_TIMEOUT)) {
            Optional<ClusterLock.Held> held = ClusterLock.current(client.jetcd(), cluster, ClusterLocks.CALL_TIMEOUT);
            if (held.isEmpty()) {
                out.println("No lock to remove: " + ClusterLock.key(cluster) + " is not in the cluster's etcd.");
                return Main.OK;
            }
            String what = "the lock key " + held.get().key() + " held by "
                    + held.get().holder().map((LockHolder h) -> h.describe(now)).orElse("an unreadable holder")
                    + (held.get().leaseId() == 0 ? "" : ", and its lease " + Long.toHexString(held.get().leaseId()));
            out.println("Removes " + what + ".");
            out.println("Only do this when that etcdwright is not running any more: one still running would go on"
                    + " changing the cluster beside the next.");
            if (!yes && !Confirmation.ask("Remove it?", out)) {
                err.println("Not removed: no confirmation (pass --yes to skip the question).");
                return Main.ERROR;
            }
            if (!ClusterLock.remove(client.jetcd(), held.get(), ClusterLocks.CALL_TIMEOUT)) {
                err.println("Not removed: the lock changed while this ran (taken again, or released). Run unlock again to see it.");
                return Main.ERROR;
            }
            out.println("Removed " + what + ".");
            return Main.OK;
        }
    }
}
