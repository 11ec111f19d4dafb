package io.etcdwright.run;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.StateSettings;
import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.state.SharedState;
import io.etcdwright.modules.state.SharedTree;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The shared state of the clusters a command works on (the spec's {@code state:}), opened once per
 * command and cluster: refreshed before the PKI is first used, written back by each step that
 * changed it and at the end of the command.
 */
public final class SharedStates {
    /** A state as this command opened it; {@code writable} once refreshed for writing (under the lock). */
    record Opened(SharedState state, boolean writable, boolean read) {
        Opened(SharedState state, boolean writable) {
            this(state, writable, false);
        }

        boolean refreshed(SharedState.Purpose purpose) {
            return writable || (purpose == SharedState.Purpose.READ && read);
        }

        Opened after(SharedState.Purpose purpose) {
            return new Opened(state, writable || purpose == SharedState.Purpose.WRITE, true);
        }
    }

    private SharedStates() {
    }

    private static String key(DesiredState desired) {
        return EtcdwrightHome.dir().toAbsolutePath() + "|" + desired.spec().name();
    }

    /** The files of the state on this workstation: the PKI directory and the removed members' hosts. */
    public static SharedTree tree(DesiredState desired) {
        String name = desired.spec().name();
        Map<String, Path> roots = new LinkedHashMap<>();
        roots.put("pki", desired.spec().tls().pki().dir().orElse(EtcdwrightHome.pkiDir(name)));
        roots.put("removed-hosts", EtcdwrightHome.removedHostsDir(name));
        return new SharedTree(roots);
    }

    /** The cluster's shared state, opened (not yet read) on first use in this command; empty without {@code state:}. */
    public static Optional<SharedState> open(DesiredState desired) {
        if (desired.spec().state().isEmpty()) {
            return Optional.empty();
        }
        RunContext context = RunContext.current();
        synchronized (context.states) {
            Opened opened = context.states.get(key(desired));
            if (opened == null) {
                opened = new Opened(create(desired, context), false);
                context.states.put(key(desired), opened);
            }
            return Optional.of(opened.state());
        }
    }

    private static SharedState create(DesiredState desired, RunContext context) {
        StateSettings settings = desired.spec().state().get();
        String name = desired.spec().name();
        Store store = BackupStores.open(settings.store(), desired, ConnectionSettings.defaults());
        return new SharedState(store, StateCiphers.load(settings.encryption()), name, tree(desired),
                EtcdwrightHome.dir().resolve("clusters").resolve(name).resolve("state.json"),
                EtcdwrightHome.dir().resolve("clusters").resolve(name).resolve("state-aside"), context.command, context::note);
    }

    /** Before reading the PKI: the cache made the store's newest version when it safely can (warned about when not). */
    public static void refreshForRead(DesiredState desired) {
        refresh(desired, SharedState.Purpose.READ);
    }

    /**
     * Under the lock, before a command that may change the state: the cache is the store's newest
     * version, or the command is refused; from here on every step's changes are written back.
     */
    public static void refreshForWrite(DesiredState desired) {
        refresh(desired, SharedState.Purpose.WRITE);
    }

    private static void refresh(DesiredState desired, SharedState.Purpose purpose) {
        Optional<SharedState> state = open(desired);
        if (state.isEmpty()) {
            return;
        }
        RunContext context = RunContext.current();
        synchronized (context.states) {
            Opened opened = context.states.get(key(desired));
            if (opened.refreshed(purpose)) {
                return;
            }
            state.get().refresh(purpose);
            context.states.put(key(desired), opened.after(purpose));
        }
    }

    /** Writes back what changed, when this command refreshed the state for writing; nothing otherwise. */
    public static void writeBack(DesiredState desired) {
        if (desired.spec().state().isEmpty()) {
            return;
        }
        RunContext context = RunContext.current();
        Opened opened;
        synchronized (context.states) {
            opened = context.states.get(key(desired));
        }
        if (opened != null && opened.writable()) {
            opened.state().writeBack();
        }
    }
}
