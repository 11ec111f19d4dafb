package io.etcdwright.modules.state;

import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.backup.store.VersionConflictException;
import io.etcdwright.modules.lock.LockHolder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.Consumer;

/**
 * One cluster's shared state: the object in the store and this workstation's cache of it (the
 * files of a {@link SharedTree} and the {@link CacheRecord} saying which version they are a copy of).
 *
 * <ul>
 * <li>{@link #refresh} at the start of a command: the cache made a copy of the store's newest
 *     version when the store moved on and the cache holds nothing of its own; refused when both
 *     moved, when the store went back, or when the store is empty while this workstation holds a
 *     PKI (moved only by {@link #push}, never silently);</li>
 * <li>{@link #writeBack} whenever a command changed the files (a certificate issued, a CA made, a
 *     rotation's phase recorded): a compare-and-swap on the version the cache is a copy of, so a
 *     write never replaces a version this workstation has not seen, and the refusal names who
 *     wrote it;</li>
 * <li>{@link #push}, {@link #pull}: the explicit moves in and out.</li>
 * </ul>
 * Every object is encrypted here before it leaves ({@link StateCipher}); the store sees only the
 * readable header and ciphertext.
 */
public final class SharedState implements AutoCloseable {
    /** What the command about to run will do with the state. */
    public enum Purpose {
        /** Reads only (plan, status, certs): a cache that cannot be trusted is warned about and used. */
        READ,
        /** Writes back what it changes (apply, restore, certs issue-reader): the cache must be the store's newest first. */
        WRITE
    }

    private final Store store;
    private final StateCipher cipher;
    private final String cluster;
    private final SharedTree tree;
    private final Path recordFile;
    private final Path asideDir;
    private final String command;
    private final Consumer<String> notes;
    private String lastPushedDigest;

    /**
     * @param recordFile where the cache's record lives ({@code clusters/NAME/state.json})
     * @param asideDir   where a local copy set aside by {@code pull --replace-local} goes
     * @param command    the command that runs (apply, certs issue-reader), recorded as the writer
     * @param notes      one line per thing the operator should know (refreshed, written, warned)
     */
    public SharedState(Store store, StateCipher cipher, String cluster, SharedTree tree, Path recordFile, Path asideDir,
                       String command, Consumer<String> notes) {
        this.store = Objects.requireNonNull(store);
        this.cipher = Objects.requireNonNull(cipher);
        this.cluster = cluster;
        this.tree = tree;
        this.recordFile = recordFile;
        this.asideDir = asideDir;
        this.command = command;
        this.notes = notes;
    }

    public static String key(String cluster) {
        return cluster + "/state.etcdwright";
    }

    public String where() {
        return store.describe(key(cluster));
    }

    public Store store() {
        return store;
    }

    public StateCipher cipher() {
        return cipher;
    }

    public SharedTree tree() {
        return tree;
    }

    public Optional<CacheRecord> record() {
        return CacheRecord.read(recordFile);
    }

    private Optional<Store.Versioned> readStore() {
        try {
            return store.read(key(cluster));
        } catch (IOException e) {
            throw new StateException("cannot read the state store " + where() + ": " + e.getMessage() + ". Nothing was"
                    + " changed. Run the command again once the store answers (or check its settings in state.store)", e);
        }
    }

    /**
     * Makes the cache the store's newest version when it safely can, before a command uses it.
     *
     * @throws StateException when the cache cannot be trusted for {@code purpose}: what happened and what to do
     */
    public synchronized void refresh(Purpose purpose) {
        if (purpose == Purpose.WRITE && cipher.cannotWrite().isPresent()) {
            // Said before anything is made: a CA generated now could not be written back.
            throw new StateException("cannot change cluster " + cluster + ": " + cipher.cannotWrite().get() + ". Nothing was"
                    + " changed. Give the key the spec names (state.encryption, docs/state.md)");
        }
        Optional<Store.Versioned> remote = readStore();
        Optional<CacheRecord> record = record();
        SortedMap<String, SharedTree.Entry> local = tree.read();
        String localDigest = SharedTree.digest(local);
        if (remote.isEmpty()) {
            if (local.isEmpty()) {
                if (record.isPresent()) {
                    refuseOrWarn(purpose, "the state store " + where() + " is empty, and so is this workstation's cache,"
                            + " although it held serial " + record.get().serial() + " from there: was the store emptied?"
                            + " Restore the object (bucket versioning, a backup of the store) before changing the cluster");
                }
                return; // a new cluster: the first write creates the state
            }
            if (record.isEmpty()) {
                refuseOrWarn(purpose, "the state store " + where() + " is empty, and this workstation holds the PKI of cluster "
                        + cluster + " (" + String.join(", ", rootsDescribed()) + "). It is moved there only when you say so:"
                        + " run 'etcdwright state push -i INVENTORY -f SPEC' (it lists what it moves), then run this again");
                return;
            }
            refuseOrWarn(purpose, "the state store " + where() + " holds no state, but this workstation's cache is serial "
                    + record.get().serial() + " from " + record.get().store() + ": was the store emptied, or does state.store"
                    + " now name another place? Nothing was written there. If this workstation's copy is the cluster's,"
                    + " 'etcdwright state push' writes it back");
            return;
        }
        Store.Versioned object = remote.get();
        StateHeader header = peek(object);
        if (record.isPresent() && !record.get().replacing() && record.get().version().equals(object.version())) {
            if (!localDigest.equals(record.get().digest())) {
                if (purpose == Purpose.WRITE) {
                    notes.accept("State: this workstation holds changes not yet written to " + where()
                            + " (an earlier write-back failed); writing them now");
                    writeBack();
                } else {
                    notes.accept("State: warning: this workstation holds changes not yet written to " + where()
                            + " (an earlier write-back failed); the next apply or 'etcdwright state push' writes them");
                }
            }
            return;
        }
        StateObject.Content content = open(object);
        String storeDigest = SharedTree.digest(content.files());
        if (record.isPresent() && !record.get().replacing()) {
            CacheRecord r = record.get();
            if (header.serial() < r.serial()) {
                refuseOrWarn(purpose, "the state store " + where() + " holds " + header.describe() + ", older than serial "
                        + r.serial() + " this workstation last read or wrote there: the store went back (restored from an older"
                        + " copy?). Nothing was overwritten. If this workstation's copy is the newest, 'etcdwright state push'"
                        + " writes it back; if the store's is right, 'etcdwright state pull --replace-local' takes it");
                return;
            }
            if (!localDigest.equals(r.digest()) && !localDigest.equals(storeDigest)) {
                refuseOrWarn(purpose, "this workstation holds changes to cluster " + cluster + "'s state not in the store (made"
                        + " on serial " + r.serial() + "), and the store moved on to " + header.describe() + ". Nothing was"
                        + " overwritten on either side. Take the store's with 'etcdwright state pull --replace-local' (this"
                        + " workstation's copy is kept aside), then run again");
                return;
            }
            replaceCache(content, object.version(), storeDigest);
            notes.accept("State: refreshed from " + where() + ": " + header.describe() + " (this workstation had serial "
                    + r.serial() + ")");
            return;
        }
        if (record.isPresent() || local.isEmpty() || localDigest.equals(storeDigest)) {
            boolean first = local.isEmpty() || record.isEmpty();
            replaceCache(content, object.version(), storeDigest);
            notes.accept("State: " + (first ? "read" : "refreshed") + " from " + where() + ": " + header.describe());
            return;
        }
        refuseOrWarn(purpose, "this workstation holds a PKI for cluster " + cluster + " (" + String.join(", ", rootsDescribed())
                + ") that differs from the one in the state store (" + header.describe() + "), and it never came from"
                + " there. Nothing was overwritten. Keep the store's: 'etcdwright state pull --replace-local' (this"
                + " workstation's copy is set aside, not deleted); or, if this workstation's is the cluster's real PKI,"
                + " 'etcdwright state push --replace-store' (the store's copy is kept beside it)");
    }

    private void refuseOrWarn(Purpose purpose, String message) {
        if (purpose == Purpose.WRITE) {
            throw new StateException(message);
        }
        notes.accept("State: warning: " + message + ". This read uses this workstation's copy as it is.");
    }

    private List<String> rootsDescribed() {
        List<String> list = new ArrayList<>();
        tree.roots().forEach((name, dir) -> list.add(dir.toString()));
        return list;
    }

    private StateHeader peek(Store.Versioned object) {
        try {
            return StateObject.peek(object.content(), where());
        } catch (IOException e) {
            throw new StateException(e.getMessage() + ". Nothing was changed", e);
        }
    }

    private StateObject.Content open(Store.Versioned object) {
        try {
            return StateObject.open(object.content(), cipher, where(), cluster);
        } catch (IOException e) {
            throw new StateException(e.getMessage() + ". Nothing was changed on this workstation or in the store."
                    + (cipher.cannotRead().isPresent() || e.getMessage().contains("not encrypted with this key")
                    || e.getMessage().contains("cannot open") || e.getMessage().contains("does not unwrap")
                    ? " Give the key the state was encrypted with (state.encryption in the spec, docs/state.md)" : ""), e);
        }
    }

    private void replaceCache(StateObject.Content content, String version, String digest) {
        CacheRecord next = new CacheRecord(store.describe(), content.header().serial(), version, digest, false);
        next.replacing(true).write(recordFile);
        tree.replace(content.files());
        next.write(recordFile);
        lastPushedDigest = digest;
    }

    /**
     * Writes the files back when they changed since the cache last matched the store: a new serial,
     * compare-and-swap on the version the cache is a copy of. Called by every step that issues or
     * rotates, before it reports success; cheap when nothing changed (a digest of a few files).
     *
     * @throws StateException when the store moved on meanwhile (naming who wrote it) or cannot be written
     */
    public synchronized void writeBack() {
        SortedMap<String, SharedTree.Entry> local = tree.read();
        String digest = SharedTree.digest(local);
        Optional<CacheRecord> record = record();
        if (digest.equals(lastPushedDigest) || record.map(r -> !r.replacing() && r.digest().equals(digest)).orElse(false)) {
            return;
        }
        if (record.isEmpty() && local.isEmpty()) {
            return;
        }
        if (record.map(CacheRecord::replacing).orElse(false)) {
            throw new StateException("this workstation's copy of the state was being replaced from " + where() + " when"
                    + " that was interrupted: it is not written back. Run the command again (it reads the store's first)");
        }
        long serial = record.map(CacheRecord::serial).orElse(0L) + 1;
        write(local, digest, serial, record.map(CacheRecord::serial).orElse(0L), record.map(CacheRecord::version));
    }

    private void write(SortedMap<String, SharedTree.Entry> files, String digest, long serial, long previous,
                       Optional<String> expected) {
        LockHolder me = LockHolder.thisProcess(command, Instant.now());
        StateHeader header = new StateHeader(StateHeader.FORMAT, cluster, serial, previous, me.user() + "@" + me.host(),
                command, Instant.now(), files.size());
        byte[] sealed;
        try {
            sealed = StateObject.seal(header, files, cipher);
        } catch (IOException e) {
            throw new StateException("cannot encrypt the state for " + where() + ": " + e.getMessage()
                    + ". Nothing was written; the changes are kept on this workstation and written by the next command"
                    + " that can (or 'etcdwright state push')", e);
        }
        String version;
        try {
            version = store.putIfVersion(key(cluster), sealed, expected);
        } catch (VersionConflictException e) {
            throw new StateException("the state store " + where() + " was written by someone else since this workstation"
                    + " read it: it holds " + currentDescribed() + ", not the version this workstation's copy (serial "
                    + previous + ") is based on. Nothing was overwritten; this workstation's changes are kept in its cache"
                    + " (" + String.join(", ", rootsDescribed()) + "). Did two runs change the cluster at once? Look with"
                    + " 'etcdwright state show', then take the store's with 'etcdwright state pull --replace-local' (this"
                    + " workstation's copy is set aside) and run again", e);
        } catch (IOException e) {
            throw new StateException("cannot write the state to " + where() + ": " + e.getMessage() + ". The changes are"
                    + " kept on this workstation and written by the next apply or 'etcdwright state push' once the store"
                    + " answers", e);
        }
        if (expected.isEmpty()) {
            refuseStoresIgnoringConditions(sealed);
        }
        new CacheRecord(store.describe(), serial, version, digest, false).write(recordFile);
        lastPushedDigest = digest;
        notes.accept("State: wrote " + header.describe() + " to " + where() + " (" + files.size() + " files, encrypted)");
    }

    /**
     * Some S3-compatible servers accept If-None-Match and ignore it: every "create if absent"
     * succeeds and two writers would both win. Checked once, when the state is created: a second
     * create of the same object must be refused.
     */
    private void refuseStoresIgnoringConditions(byte[] sealed) {
        try {
            store.putIfVersion(key(cluster), sealed, Optional.empty());
        } catch (VersionConflictException expected) {
            return;
        } catch (IOException e) {
            return; // the check itself failed; the write before it did not
        }
        throw new StateException("the state store " + where() + " ignores conditional writes (a second 'create if absent'"
                + " of the same object succeeded): two workstations could overwrite each other's PKI there. Use a store"
                + " that honours If-None-Match and If-Match (AWS S3, MinIO, Ceph RGW, S3Proxy 2.1+) or a directory or SFTP store");
    }

    private String currentDescribed() {
        try {
            return store.read(key(cluster)).map(o -> {
                try {
                    return StateObject.peek(o.content(), where()).describe();
                } catch (IOException e) {
                    return "an object that is not etcdwright state (" + e.getMessage() + ")";
                }
            }).orElse("no state (it was removed)");
        } catch (IOException e) {
            return "a version it did not show (" + e.getMessage() + ")";
        }
    }

    /** What {@link #push} did. */
    public record Pushed(Optional<StateHeader> header, List<SharedTree.Entry> files, Optional<String> keptAs) {
    }

    /**
     * Moves this workstation's files into the store: into an empty store; over a version this
     * workstation is a copy of (its changes); over an older version (a store that went back); or,
     * with {@code replaceStore}, over a version it has not seen (kept beside it as
     * {@code NAME/replaced/serial-N.etcdwright}, never lost).
     */
    public synchronized Pushed push(boolean replaceStore) {
        SortedMap<String, SharedTree.Entry> local = tree.read();
        if (local.isEmpty()) {
            throw new StateException("nothing to push: this workstation holds no state of cluster " + cluster + " ("
                    + String.join(", ", rootsDescribed()) + " are empty)");
        }
        String digest = SharedTree.digest(local);
        Optional<Store.Versioned> remote = readStore();
        Optional<CacheRecord> record = record();
        long base = record.map(CacheRecord::serial).orElse(0L);
        if (remote.isEmpty()) {
            write(local, digest, base + 1, base, Optional.empty());
            return new Pushed(Optional.of(current()), List.copyOf(local.values()), Optional.empty());
        }
        Store.Versioned object = remote.get();
        StateHeader header = peek(object);
        boolean copyOfIt = record.isPresent() && !record.get().replacing() && record.get().version().equals(object.version());
        if (copyOfIt) {
            if (digest.equals(record.get().digest())) {
                return new Pushed(Optional.empty(), List.copyOf(local.values()), Optional.empty());
            }
            write(local, digest, header.serial() + 1, header.serial(), Optional.of(object.version()));
            return new Pushed(Optional.of(current()), List.copyOf(local.values()), Optional.empty());
        }
        StateObject.Content content = open(object);
        if (SharedTree.digest(content.files()).equals(digest)) {
            new CacheRecord(store.describe(), header.serial(), object.version(), digest, false).write(recordFile);
            return new Pushed(Optional.empty(), List.copyOf(local.values()), Optional.empty());
        }
        boolean storeBehind = record.isPresent() && header.serial() < record.get().serial();
        if (!storeBehind && !replaceStore) {
            throw new StateException("the state store " + where() + " holds " + header.describe() + ", which this"
                    + " workstation's copy is not based on. Nothing was written. Take it with 'etcdwright state pull"
                    + " --replace-local' (this workstation's copy is set aside), or, if this workstation's copy is the"
                    + " cluster's real PKI, overwrite it with 'etcdwright state push --replace-store' (the store's copy is"
                    + " kept beside it)");
        }
        String kept = cluster + "/replaced/serial-" + header.serial() + "-" + object.version().replaceAll("[^A-Za-z0-9]", "")
                + ".etcdwright";
        try {
            store.putIfVersion(kept, object.content(), Optional.empty());
        } catch (VersionConflictException already) {
            // kept by an earlier try
        } catch (IOException e) {
            throw new StateException("cannot keep the store's copy as " + store.describe(kept) + " before replacing it: "
                    + e.getMessage() + ". Nothing was written", e);
        }
        long serial = Math.max(header.serial(), base) + 1;
        write(local, digest, serial, header.serial(), Optional.of(object.version()));
        return new Pushed(Optional.of(current()), List.copyOf(local.values()), Optional.of(store.describe(kept)));
    }

    private StateHeader current() {
        Store.Versioned object = readStore().orElseThrow(() -> new StateException("the state just written to " + where()
                + " is not there"));
        return peek(object);
    }

    /** What {@link #pull} did. */
    public record Pulled(StateHeader header, List<SharedTree.Entry> files, Optional<Path> setAside) {
    }

    /**
     * Fills the cache from the store: an empty one, one the store's version is newer than, or, with
     * {@code replaceLocal}, one holding changes of its own (copied aside first, never deleted).
     */
    public synchronized Pulled pull(boolean replaceLocal) {
        Store.Versioned object = readStore().orElseThrow(() -> new StateException("the state store " + where()
                + " holds no state of cluster " + cluster + " yet: push it from the workstation that holds the PKI"
                + " ('etcdwright state push'), or let the first apply create it"));
        StateHeader header = peek(object);
        StateObject.Content content = open(object);
        SortedMap<String, SharedTree.Entry> local = tree.read();
        String localDigest = SharedTree.digest(local);
        String storeDigest = SharedTree.digest(content.files());
        Optional<CacheRecord> record = record();
        boolean ownWork = !local.isEmpty() && !localDigest.equals(storeDigest)
                && record.map(r -> r.replacing() || !r.digest().equals(localDigest)).orElse(true);
        Optional<Path> aside = Optional.empty();
        if (ownWork) {
            if (!replaceLocal) {
                throw new StateException("this workstation holds state of cluster " + cluster + " that is not in the store"
                        + " (" + String.join(", ", rootsDescribed()) + "). Nothing was changed. Push it ('etcdwright state"
                        + " push'), or pass --replace-local to take the store's " + header.describe() + " (this"
                        + " workstation's copy is set aside, not deleted)");
            }
            aside = Optional.of(setAside(local));
        }
        replaceCache(content, object.version(), storeDigest);
        return new Pulled(header, List.copyOf(content.files().values()), aside);
    }

    private Path setAside(SortedMap<String, SharedTree.Entry> local) {
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(Instant.now());
        Path dir = asideDir.resolve(stamp);
        try {
            Files.createDirectories(asideDir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + asideDir + ": " + e.getMessage(), e);
        }
        java.util.Map<String, Path> roots = new java.util.LinkedHashMap<>();
        tree.roots().keySet().forEach(name -> roots.put(name, dir.resolve(name)));
        new SharedTree(roots).replace(local);
        return dir;
    }

    /** What {@link #show} found. */
    public record Shown(Optional<StateHeader> header, Optional<String> version, Optional<StateObject.Content> content,
                        Optional<String> unreadable, Optional<CacheRecord> cache, boolean localChanges) {
    }

    /** The store's object (its files only when this workstation can decrypt it) and how the cache stands against it. */
    public synchronized Shown show() {
        Optional<Store.Versioned> remote = readStore();
        Optional<CacheRecord> record = record();
        String localDigest = SharedTree.digest(tree.read());
        boolean localChanges = record.map(r -> !r.digest().equals(localDigest)).orElse(!tree.read().isEmpty());
        if (remote.isEmpty()) {
            return new Shown(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), record, localChanges);
        }
        StateHeader header = peek(remote.get());
        try {
            return new Shown(Optional.of(header), Optional.of(remote.get().version()),
                    Optional.of(StateObject.open(remote.get().content(), cipher, where(), cluster)), Optional.empty(), record,
                    localChanges);
        } catch (IOException e) {
            return new Shown(Optional.of(header), Optional.of(remote.get().version()), Optional.empty(),
                    Optional.of(e.getMessage()), record, localChanges);
        }
    }

    @Override
    public void close() throws IOException {
        store.close();
    }
}
