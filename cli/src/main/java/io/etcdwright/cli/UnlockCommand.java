package io.etcdwright.cli;

import io.etcdwright.run.ClusterLocks;
import io.etcdwright.run.EtcdwrightHome;
import io.etcdwright.run.Layouts;
import io.etcdwright.run.SharedStates;
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

@Command(name = "unlock", description = {"Remove the cluster's lock from its etcd, for a holder known to be gone.",
        "For when the holder's lease is one you cannot wait out. Says what it removes; the workstation's lock file needs no",
        "unlock (it goes with its process)."})
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
        if (desired.spec().state().isPresent() && !unlockStateStore(desired, now, out, err)) {
            return Main.ERROR;
        }
        Optional<Health.Access> access = ClusterLocks.access(desired);
        if (access.isEmpty()) {
            out.println("No lock to remove: cluster " + cluster + " has no client certificate on this workstation, so it was never"
                    + " locked in its etcd from here.");
            return Main.OK;
        }
        return unlockEtcd(desired, access.get(), now, out, err);
    }

    /** The state store's own lock, when the spec names a store; false when the operator said no or it changed meanwhile. */
    private boolean unlockStateStore(DesiredState desired, Instant now, PrintWriter out, PrintWriter err) {
        io.etcdwright.modules.state.SharedState state = SharedStates.open(desired).orElseThrow();
        Optional<io.etcdwright.modules.backup.store.Store.Versioned> held;
        try {
            held = io.etcdwright.modules.state.StoreLock.current(state.store(), desired.spec().name());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot read the state store's lock: " + e.getMessage(), e);
        }
        String key = state.store().describe(io.etcdwright.modules.state.StoreLock.key(desired.spec().name()));
        if (held.isEmpty()) {
            out.println("No lock in the state store (" + key + ").");
            return true;
        }
        var lock = io.etcdwright.modules.state.StoreLock.Held.parse(held.get().content());
        String what = "the state store's lock " + key + " held by " + lock.describe(now)
                + lock.expires().map(e -> " (expires " + e + " unless renewed)").orElse("");
        out.println("Removes " + what + ".");
        out.println("Only do this when that etcdwright is not running any more.");
        if (!yes && !Confirmation.ask("Remove it?", out)) {
            err.println("Not removed: no confirmation (pass --yes to skip the question).");
            return false;
        }
        try {
            state.store().deleteIfVersion(io.etcdwright.modules.state.StoreLock.key(desired.spec().name()), held.get().version());
        } catch (io.etcdwright.modules.backup.store.VersionConflictException e) {
            err.println("Not removed: the state store's lock changed while this ran (renewed, taken again or released)."
                    + " Run unlock again to see it.");
            return false;
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot remove the state store's lock: " + e.getMessage(), e);
        }
        out.println("Removed " + what + ".");
        return true;
    }

    private int unlockEtcd(DesiredState desired, Health.Access access, Instant now, PrintWriter out, PrintWriter err) {
        String cluster = desired.spec().name();
        try (EtcdAdminClient client = EtcdAdminClient.connect(Endpoints.clientUrls(desired.members(), Layouts.of(desired)),
                access.caCert(), access.clientCert(), access.clientKey(), ClusterLocks.CALL_TIMEOUT)) {
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
