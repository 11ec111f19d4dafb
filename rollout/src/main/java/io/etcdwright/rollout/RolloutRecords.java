package io.etcdwright.rollout;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.StateSettings;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.backup.store.VersionConflictException;
import io.etcdwright.run.BackupStores;
import io.etcdwright.run.ConnectionSettings;
import io.etcdwright.run.EtcdwrightHome;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Where rollouts' records are kept: the shared state store when the specs have one (so a second
 * workstation resumes a rollout whose first one died), else {@code $ETCDWRIGHT_HOME/rollouts}. Every
 * change is a compare-and-swap on the record ({@link Store#putIfVersion}): a change made meanwhile
 * by another process (an {@code abort}) is read and the change made again on top of it, never
 * overwritten.
 */
public final class RolloutRecords implements AutoCloseable {
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final int ATTEMPTS = 10;

    private final Store store;
    private final boolean shared;
    /** Where the records are in the store: a folder of their own in a shared one. */
    private final String prefix;

    private RolloutRecords(Store store, boolean shared) {
        this.store = store;
        this.shared = shared;
        this.prefix = shared ? "rollouts/" : "";
    }

    /** The records in a directory of their own (a test's). */
    static RolloutRecords in(java.nio.file.Path dir) {
        return new RolloutRecords(new DirectoryStore(dir), false);
    }

    /** This workstation's records, {@code $ETCDWRIGHT_HOME/rollouts}. */
    public static RolloutRecords local() {
        return new RolloutRecords(new DirectoryStore(EtcdwrightHome.dir().resolve("rollouts")), false);
    }

    /**
     * The records of a rollout of {@code clusters}: the shared state store of the first of them
     * that has one (a fleet sharing state shares one store), else this workstation's.
     */
    public static RolloutRecords of(List<DesiredState> clusters) {
        for (DesiredState d : clusters) {
            Optional<StateSettings> state = d.spec().state();
            if (state.isPresent()) {
                return new RolloutRecords(BackupStores.open(state.get().store(), d, ConnectionSettings.defaults()), true);
            }
        }
        return local();
    }

    /** Refuses a name that could not be a key or a file name, before anything is written. */
    public static String checkId(String id) {
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("rollout name " + id + ": lower-case letters, digits and '-', up to 63,"
                    + " starting with a letter or digit");
        }
        return id;
    }

    private String key(String id) {
        return prefix + checkId(id) + ".json";
    }

    /** For messages: where the records are. */
    public String describe() {
        return shared ? "the shared state store " + store.describe() : store.describe();
    }

    public Optional<RolloutRecord> read(String id) {
        try {
            return store.read(key(id)).map(v -> RolloutRecord.parse(v.content(), store.describe(key(id))));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read rollout " + id + " from " + describe() + ": " + e.getMessage(), e);
        }
    }

    /** Every rollout kept here, by name. */
    public List<String> ids() {
        try {
            return store.list(prefix).stream().map(o -> o.key().substring(prefix.length()))
                    .filter(k -> k.endsWith(".json")).map(k -> k.substring(0, k.length() - ".json".length())).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the rollouts in " + describe() + ": " + e.getMessage(), e);
        }
    }

    /** Writes a new rollout's record; refused when one of that name exists (a name is one rollout). */
    public void create(RolloutRecord record) {
        try {
            store.putIfVersion(key(record.id()), record.toJson(), Optional.empty());
        } catch (VersionConflictException e) {
            throw new IllegalStateException("a rollout named " + record.id() + " exists already in " + describe()
                    + ": see 'etcdwright rollout status " + record.id() + "', resume it with 'etcdwright rollout resume "
                    + record.id() + "', or give another --rollout name");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write rollout " + record.id() + " to " + describe() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Changes the record of {@code id} as {@code change} makes it from its current version, again
     * on top of any version another process wrote meanwhile; returns what was written.
     */
    public synchronized RolloutRecord update(String id, UnaryOperator<RolloutRecord> change) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                Store.Versioned current = store.read(key(id)).orElseThrow(() -> new IllegalStateException(
                        "no rollout named " + id + " in " + describe()));
                RolloutRecord changed = change.apply(RolloutRecord.parse(current.content(), store.describe(key(id))));
                store.putIfVersion(key(id), changed.toJson(), Optional.of(current.version()));
                return changed;
            } catch (VersionConflictException e) {
                // Another process wrote it between the read and the write: read it again.
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write rollout " + id + " to " + describe() + ": " + e.getMessage(), e);
            }
        }
        throw new IllegalStateException("rollout " + id + " in " + describe() + " changed " + ATTEMPTS
                + " times while this process wrote it: is another process driving it?");
    }

    @Override
    public void close() {
        try {
            store.close();
        } catch (IOException e) {
            // Closing a store only ends its connections.
        }
    }
}
