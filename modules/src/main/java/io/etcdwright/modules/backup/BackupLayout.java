package io.etcdwright.modules.backup;

import java.time.Instant;
import java.util.Collection;

/**
 * Where things are in a backup store, as etcd-manager lays them out, so either tool can read
 * the other's backups: one directory per backup, and etcd-manager's control files.
 */
public final class BackupLayout {
    /** The gzip of the snapshot stream (etcdadm etcd-manager/pkg/backup/store.go:25 DataFilename). */
    public static final String DATA_FILE = "etcd.backup.gz";
    /** The same, encrypted to its recipients (CMS enveloped data); etcd-manager cannot read it. */
    public static final String ENCRYPTED_DATA_FILE = "etcd.backup.gz.p7m";
    /** etcd-manager's BackupInfo; its presence makes a directory a backup (store.go:24, vfs.go:104). */
    public static final String ETCD_MANAGER_META_FILE = "_etcd_backup.meta";
    /** Ours: what etcd-manager does not record (revision, digest, encryption, source member). */
    public static final String ETCDWRIGHT_META_FILE = "etcdwright-backup.json";
    /** The desired ClusterSpec (etcd-manager/pkg/commands/vfs.go:34, under control/). */
    public static final String CLUSTER_SPEC = "control/etcd-cluster-spec";
    /** Written once the cluster was created (commands/vfs.go:33). */
    public static final String CLUSTER_CREATED = "control/etcd-cluster-created";
    /** Not a backup: etcd-manager's control directory. */
    public static final String CONTROL_DIR = "control/";

    private BackupLayout() {
    }

    public static String key(BackupName backup, String file) {
        return backup + "/" + file;
    }

    /**
     * The name for a backup taken at {@code now}. etcd-manager counts from 1 per process
     * (pkg/etcd/backup.go:71-80, wrapping to 0 after 999999); a CLI run is one process per
     * backup, so we take one more than the highest sequence in the store instead: names stay
     * unique and ordered when two backups fall in one second.
     */
    public static BackupName nextName(Instant now, Collection<BackupName> existing) {
        int highest = existing.stream().mapToInt(BackupName::sequence).max().orElse(0);
        return BackupName.of(now, highest >= 999_999 ? 0 : Math.max(highest, 0) + 1);
    }
}
