package io.etcdwright.run;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupName;
import io.etcdwright.modules.backup.BackupReader;
import io.etcdwright.modules.backup.crypto.PrivateKeys;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.restore.InvalidSnapshotException;
import io.etcdwright.modules.restore.SnapshotSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.util.Optional;

/**
 * What {@code restore --from} names, made into one checked snapshot on the workstation: a backup
 * in the spec's store (by name, or {@code latest}), a backup directory in etcd-manager's layout
 * (etcd-manager's own backups included), or a snapshot file. A backup is downloaded, decrypted,
 * checked against its trailer and meta and opened before any member is touched.
 */
public final class RestoreSources {
    private RestoreSources() {
    }

    public static SnapshotSource resolve(String from, DesiredState desired, Optional<String> storeName, Optional<Path> key,
                                  Path workDir, Optional<Version> snapshotVersion, ConnectionSettings connection,
                                  TransferListener.Factory transfers) {
        Path asPath = Path.of(from);
        try {
            Files.createDirectories(workDir);
            Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwx------"));
            if (Files.isDirectory(asPath)) {
                Path dir = asPath.toAbsolutePath().normalize();
                String name = dir.getFileName().toString();
                if (BackupName.parse(name).isEmpty() || dir.getParent() == null) {
                    throw new InvalidSnapshotException(from + " is a directory but not a backup in etcd-manager's layout"
                            + " (named like 2026-11-24T20:15:03Z-000001, holding etcd.backup.gz and _etcd_backup.meta)");
                }
                try (Store store = new DirectoryStore(dir.getParent())) {
                    return fetch(new BackupCatalog(store), name, key, workDir, snapshotVersion, transfers);
                }
            }
            if (Files.exists(asPath)) {
                return SnapshotSource.local(asPath, workDir, snapshotVersion);
            }
            if (!from.equals("latest") && BackupName.parse(from).isEmpty()) {
                throw new InvalidSnapshotException("there is no file " + from + ", and it is not a backup name (like"
                        + " 2026-11-24T20:15:03Z-000001, or 'latest'); 'etcdwright backups list' shows the backups");
            }
            BackupStores.policy(desired);
            try (Store store = BackupStores.open(BackupStores.chosen(desired, storeName), desired, connection)) {
                return fetch(new BackupCatalog(store), from.equals("latest") ? null : from, key, workDir, snapshotVersion, transfers);
            }
        } catch (IOException e) {
            throw new InvalidSnapshotException("cannot read backup " + from + ": " + e.getMessage(), e);
        }
    }

    private static SnapshotSource fetch(BackupCatalog catalog, String name, Optional<Path> key, Path workDir,
                                        Optional<Version> snapshotVersion, TransferListener.Factory transfers) throws IOException {
        BackupCatalog.Backup backup = BackupStores.find(catalog, name);
        Optional<PrivateKey> privateKey = key.map(PrivateKeys::read);
        Path file = workDir.resolve(backup.name().toString().replace(':', '-') + ".db");
        TransferListener progress = transfers.start("reading backup " + backup.name());
        BackupReader.Fetched fetched;
        try {
            fetched = BackupReader.fetch(catalog, backup, privateKey, file, progress);
        } catch (IOException e) {
            throw new InvalidSnapshotException("backup " + backup.name() + " in " + catalog.store().describe()
                    + " failed its checks: " + e.getMessage() + "; it will not be restored. Use another backup", e);
        } finally {
            progress.done();
        }
        Optional<Version> takenBy = snapshotVersion.isPresent() ? snapshotVersion : fetched.etcdVersion().map(Version::parse);
        // Everything SnapshotSource.local would check again was checked on the way in: trailer,
        // database, meta; the whole file's digest was taken as it was written.
        return new SnapshotSource("backup " + backup.name() + " in " + catalog.store().describe(), fetched.snapshot(),
                fetched.fileSha256(), fetched.bytes(), true, takenBy, Optional.of(fetched.status().revision()),
                Optional.of(fetched.status().liveKeys()));
    }
}
