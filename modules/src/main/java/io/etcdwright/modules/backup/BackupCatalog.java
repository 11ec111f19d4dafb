package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.backup.store.Store.StoredObject;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The backups in a store, in etcd-manager's layout. A backup is complete once its
 * {@code _etcd_backup.meta} exists beside its data file: that is how etcd-manager lists them
 * (pkg/backup/vfs.go:93-123), so writers put the data first and that meta last, and deleters
 * remove that meta first; a write or delete cut short never looks like a whole backup.
 */
public final class BackupCatalog {
    private final Store store;

    public BackupCatalog(Store store) {
        this.store = store;
    }

    public Store store() {
        return store;
    }

    /** A complete backup: its name, data file and size, and our meta when we wrote it. */
    public record Backup(BackupName name, String dataKey, long size, boolean encrypted, Optional<EtcdwrightBackupMeta> meta) {
        public Instant time() {
            return name.time();
        }
    }

    /** What a write or delete cut short left: objects under a backup name without the meta that completes it. */
    public record Incomplete(String name, List<StoredObject> objects) {
    }

    /**
     * @param backups     complete backups, oldest first
     * @param incomplete  leftovers of cut-short writes or deletes, for the operator to see and clean
     * @param unrecognised top-level names that are neither backups nor etcd-manager's control/ (left alone)
     */
    public record Listing(List<Backup> backups, List<Incomplete> incomplete, List<String> unrecognised) {
        public Optional<Backup> newest() {
            return backups.isEmpty() ? Optional.empty() : Optional.of(backups.get(backups.size() - 1));
        }
    }

    /**
     * Every backup with our meta (revision, keys, version, members): one listing of the store, then
     * one read per backup etcdwright wrote, {@link Store#concurrentReads()} at a time (an S3 bucket
     * of two years of backups holds about 900, read sixteen at once).
     */
    public Listing list() throws IOException {
        Names names = names();
        List<Optional<EtcdwrightBackupMeta>> metas = readMetas(names.backups());
        List<Backup> backups = new ArrayList<>();
        for (int i = 0; i < names.backups().size(); i++) {
            backups.add(names.backups().get(i).with(metas.get(i)));
        }
        return new Listing(List.copyOf(backups), names.incomplete(), names.unrecognised());
    }

    /**
     * The newest complete backup, with our meta when etcdwright wrote it: one listing and at most
     * one read, whatever the store holds.
     */
    public Optional<Backup> newest() throws IOException {
        List<Found> found = names().backups();
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Found newest = found.get(found.size() - 1);
        return Optional.of(newest.with(readMetas(List.of(newest)).get(0)));
    }

    /** A complete backup as the listing shows it, before its meta is read; {@code ours}: etcdwright's meta is there. */
    private record Found(BackupName name, String dataKey, long size, boolean encrypted, boolean ours) {
        Backup with(Optional<EtcdwrightBackupMeta> meta) {
            return new Backup(name, dataKey, size, encrypted, meta);
        }
    }

    /** What one listing of the store says, oldest backup first. */
    private record Names(List<Found> backups, List<Incomplete> incomplete, List<String> unrecognised) {
    }

    /** Our metas of {@code backups} (empty for those etcd-manager wrote), in their order, read side by side as the store allows. */
    private List<Optional<EtcdwrightBackupMeta>> readMetas(List<Found> backups) throws IOException {
        List<Found> ours = backups.stream().filter(Found::ours).toList();
        Map<BackupName, EtcdwrightBackupMeta> read = new java.util.concurrent.ConcurrentHashMap<>();
        int threads = Math.min(ours.size(), Math.max(1, store.concurrentReads()));
        if (threads <= 1) {
            for (Found b : ours) {
                read.put(b.name(), readOurs(b.name()));
            }
        } else {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "backup-meta-reader");
                t.setDaemon(true);
                return t;
            });
            try {
                List<java.util.concurrent.Future<?>> reads = new ArrayList<>();
                for (Found b : ours) {
                    reads.add(pool.submit(() -> {
                        read.put(b.name(), readOurs(b.name()));
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : reads) {
                    f.get();
                }
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IOException(String.valueOf(e.getCause().getMessage()), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while reading the backups' metas");
            } finally {
                pool.shutdownNow();
            }
        }
        return backups.stream().map(b -> Optional.ofNullable(read.get(b.name()))).toList();
    }

    /** The backups as one listing of the store shows them: complete or not, data file, size, encrypted, whose meta. */
    private Names names() throws IOException {
        Map<String, List<StoredObject>> byDirectory = new LinkedHashMap<>();
        List<String> unrecognised = new ArrayList<>();
        for (StoredObject o : store.list("")) {
            int slash = o.key().indexOf('/');
            if (o.key().startsWith(BackupLayout.CONTROL_DIR)) {
                continue;
            }
            if (slash < 0) {
                unrecognised.add(o.key());
                continue;
            }
            byDirectory.computeIfAbsent(o.key().substring(0, slash), d -> new ArrayList<>()).add(o);
        }
        List<Found> backups = new ArrayList<>();
        List<Incomplete> incomplete = new ArrayList<>();
        for (Map.Entry<String, List<StoredObject>> e : byDirectory.entrySet()) {
            Optional<BackupName> name = BackupName.parse(e.getKey());
            if (name.isEmpty()) {
                unrecognised.add(e.getKey() + "/");
                continue;
            }
            Optional<StoredObject> data = file(e.getValue(), e.getKey(), BackupLayout.DATA_FILE)
                    .or(() -> file(e.getValue(), e.getKey(), BackupLayout.ENCRYPTED_DATA_FILE));
            boolean hasMeta = file(e.getValue(), e.getKey(), BackupLayout.ETCD_MANAGER_META_FILE).isPresent();
            if (data.isEmpty() || !hasMeta) {
                incomplete.add(new Incomplete(e.getKey(), List.copyOf(e.getValue())));
                continue;
            }
            backups.add(new Found(name.get(), data.get().key(), data.get().size(),
                    data.get().key().endsWith(BackupLayout.ENCRYPTED_DATA_FILE),
                    file(e.getValue(), e.getKey(), BackupLayout.ETCDWRIGHT_META_FILE).isPresent()));
        }
        backups.sort(Comparator.comparing(Found::name));
        return new Names(List.copyOf(backups), List.copyOf(incomplete), List.copyOf(unrecognised));
    }

    private static Optional<StoredObject> file(List<StoredObject> objects, String dir, String file) {
        String key = dir + "/" + file;
        return objects.stream().filter(o -> o.key().equals(key)).findFirst();
    }

    /** A backup's metas: etcd-manager's always, ours when etcdwright wrote the backup. */
    public record Meta(EtcdManagerMeta etcdManager, Optional<EtcdwrightBackupMeta> etcdwright) {
    }

    public Meta readMeta(BackupName backup) throws IOException {
        String key = BackupLayout.key(backup, BackupLayout.ETCD_MANAGER_META_FILE);
        EtcdManagerMeta etcdManager = EtcdManagerMeta.parse(store.describe(key), read(key));
        Optional<EtcdwrightBackupMeta> ours;
        try {
            ours = Optional.of(readOurs(backup));
        } catch (NoSuchFileException e) {
            ours = Optional.empty(); // written by etcd-manager
        }
        return new Meta(etcdManager, ours);
    }

    private EtcdwrightBackupMeta readOurs(BackupName backup) throws IOException {
        String key = BackupLayout.key(backup, BackupLayout.ETCDWRIGHT_META_FILE);
        return EtcdwrightBackupMeta.parse(store.describe(key), read(key));
    }

    private byte[] read(String key) throws IOException {
        try (InputStream in = store.open(key)) {
            return in.readAllBytes();
        }
    }

    /**
     * Adds a backup: the data file, then our meta, then etcd-manager's meta, which makes it
     * complete. A failure on the way removes what was written (as the members' scheduled runs
     * do), so a failed backup leaves nothing for an operator to wonder about; when the store
     * refuses that too (it went down), the error says which incomplete backup is left and how it
     * goes, and {@link #list()} reports it as incomplete, never as a backup.
     */
    public void add(BackupName backup, Path dataFile, EtcdManagerMeta etcdManager, EtcdwrightBackupMeta ours) throws IOException {
        String data = ours.encrypted() ? BackupLayout.ENCRYPTED_DATA_FILE : BackupLayout.DATA_FILE;
        // Each key is noted before its write: a write that failed may still have landed (the answer
        // was lost), so it is removed too, and first: etcd-manager's meta before anything else.
        List<String> written = new ArrayList<>();
        try {
            written.add(BackupLayout.key(backup, data));
            store.put(BackupLayout.key(backup, data), dataFile);
            written.add(BackupLayout.key(backup, BackupLayout.ETCDWRIGHT_META_FILE));
            store.put(BackupLayout.key(backup, BackupLayout.ETCDWRIGHT_META_FILE), ours.toBytes());
            written.add(BackupLayout.key(backup, BackupLayout.ETCD_MANAGER_META_FILE));
            store.put(BackupLayout.key(backup, BackupLayout.ETCD_MANAGER_META_FILE), etcdManager.toBytes());
        } catch (IOException e) {
            throw removeWritten(backup, written, e).orElse(e);
        } catch (RuntimeException e) {
            Optional<IOException> left = removeWritten(backup, written, e);
            if (left.isPresent()) {
                throw left.get();
            }
            throw e;
        }
    }

    /**
     * Removes a failed backup's objects (and the one whose write failed), newest first. Empty when
     * the store took every delete; otherwise the error to throw instead, saying which incomplete
     * backup may be left and how it goes.
     */
    private Optional<IOException> removeWritten(BackupName backup, List<String> written, Exception failure) {
        List<String> left = new ArrayList<>();
        for (int i = written.size() - 1; i >= 0; i--) {
            try {
                store.delete(written.get(i));
            } catch (IOException | RuntimeException e) {
                left.add(written.get(i));
                failure.addSuppressed(e);
            }
        }
        if (left.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new IOException(failure.getMessage() + "; the incomplete backup " + backup + " ("
                + String.join(", ", left) + ") may be left: it could not be removed from " + store.describe() + " either. It never counts as"
                + " a backup, and 'etcdwright backups prune' removes it once the store answers", failure));
    }

    /**
     * The name for a backup taken now, unique in this store: see {@link BackupLayout#nextName}.
     * From one listing of the keys, no meta read: a store of two years of backups answers as
     * fast as an empty one.
     */
    public BackupName nextName(Instant now) throws IOException {
        java.util.Set<BackupName> names = new java.util.TreeSet<>();
        for (StoredObject o : store.list("")) {
            int slash = o.key().indexOf('/');
            if (slash > 0 && !o.key().startsWith(BackupLayout.CONTROL_DIR)) {
                BackupName.parse(o.key().substring(0, slash)).ifPresent(names::add);
            }
        }
        return BackupLayout.nextName(now, names);
    }

    /**
     * Deletes every object of a backup, etcd-manager's meta first: from then on the backup is no
     * longer listed as complete, whatever happens to the rest. Works on incomplete ones too.
     */
    public void delete(String backupName) throws IOException {
        if (backupName.isEmpty() || backupName.contains("/") || BackupName.parse(backupName).isEmpty()) {
            throw new IllegalArgumentException("'" + backupName + "' is not a backup name (like 2026-11-24T20:15:03Z-000001)");
        }
        store.delete(backupName + "/" + BackupLayout.ETCD_MANAGER_META_FILE);
        for (StoredObject o : store.list(backupName + "/")) {
            store.delete(o.key());
        }
    }

    public void writeClusterSpec(EtcdClusterSpec spec) throws IOException {
        store.put(BackupLayout.CLUSTER_SPEC, spec.toBytes());
    }

    public Optional<EtcdClusterSpec> readClusterSpec() throws IOException {
        try {
            return Optional.of(EtcdClusterSpec.parse(store.describe(BackupLayout.CLUSTER_SPEC), read(BackupLayout.CLUSTER_SPEC)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    public void markClusterCreated(Instant at) throws IOException {
        store.put(BackupLayout.CLUSTER_CREATED, new ClusterCreatedMarker(at).toBytes());
    }

    public Optional<ClusterCreatedMarker> clusterCreated() throws IOException {
        try {
            return Optional.of(ClusterCreatedMarker.parse(store.describe(BackupLayout.CLUSTER_CREATED), read(BackupLayout.CLUSTER_CREATED)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }
}
