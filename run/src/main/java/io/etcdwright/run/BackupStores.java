package io.etcdwright.run;

import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupName;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.backup.store.S3Settings;
import io.etcdwright.modules.backup.store.S3Store;
import io.etcdwright.modules.backup.store.SftpStore;
import io.etcdwright.modules.backup.store.Store;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The store a backup command works on: the one named by --store, or the spec's first. */
public final class BackupStores {
    private BackupStores() {
    }

    public static BackupPolicy policy(DesiredState desired) {
        return desired.spec().backup().orElseThrow(() -> new UsageProblem(desired.spec().file()
                + " has no backup section: add backup.stores (for example [{name: local, type: directory,"
                + " path: /var/backups/etcd}]) to say where backups go"));
    }

    public static BackupStore chosen(DesiredState desired, Optional<String> name) {
        BackupPolicy policy = policy(desired);
        if (name.isEmpty()) {
            return policy.defaultStore();
        }
        return policy.store(name.get()).orElseThrow(() -> new UsageProblem("no store is named '" + name.get() + "' in "
                + desired.spec().file() + " (stores: " + String.join(", ", policy.stores().stream().map(BackupStore::name).toList()) + ")"));
    }

    /** Opens it from the workstation: a directory here, the SFTP host over SSH, the bucket with the AWS default credentials. */
    public static Store open(BackupStore store, DesiredState desired, ConnectionSettings connection) {
        if (store instanceof BackupStore.Directory directory) {
            return new DirectoryStore(Path.of(directory.path()));
        }
        if (store instanceof BackupStore.S3 s3) {
            return new S3Store(new S3Settings(s3.bucket(), s3.prefix(), s3.endpoint().map(URI::create), s3.region(), s3.pathStyle()));
        }
        BackupStore.Sftp sftp = (BackupStore.Sftp) store;
        InventoryHost host = desired.inventory().host(sftp.host()).orElseThrow(() -> new UsageProblem("the SFTP store's host "
                + sftp.host() + " is not in " + desired.inventory().file()));
        SshConnections connections = Hosts.connect(desired.inventory(), connection);
        try {
            return new SftpOverOwnConnection(new SftpStore(connections.session(Hosts.target(host)), sftp.path()), connections);
        } catch (RuntimeException e) {
            connections.close();
            throw e;
        }
    }

    /**
     * Opens it over connections a command already holds (the SFTP store's host through the run's
     * SSH connections, left open when the store closes).
     */
    public static Store open(BackupStore store, DesiredState desired, SshConnections connections) {
        if (!(store instanceof BackupStore.Sftp sftp)) {
            return open(store, desired, (ConnectionSettings) null);
        }
        InventoryHost host = desired.inventory().host(sftp.host()).orElseThrow(() -> new UsageProblem("the SFTP store's host "
                + sftp.host() + " is not in " + desired.inventory().file()));
        return new SftpStore(connections.session(Hosts.target(host)), sftp.path());
    }

    /** The backup {@code name} in {@code catalog}, or its newest when {@code name} is null; an operator mistake when there is none. */
    public static BackupCatalog.Backup find(BackupCatalog catalog, String name) throws IOException {
        BackupCatalog.Listing listing = catalog.list();
        if (name == null) {
            return listing.newest().orElseThrow(() -> new UsageProblem("there is no complete backup in "
                    + catalog.store().describe() + " yet; take one with 'etcdwright backup'"));
        }
        if (BackupName.parse(name).isEmpty()) {
            throw new UsageProblem("'" + name + "' is not a backup name (like 2026-11-24T20:15:03Z-000001);"
                    + " 'etcdwright backups list' shows them");
        }
        return listing.backups().stream().filter(b -> b.name().toString().equals(name)).findFirst()
                .orElseThrow(() -> new UsageProblem("there is no complete backup " + name + " in "
                        + catalog.store().describe() + "; 'etcdwright backups list' shows them"));
    }

    /** An SFTP store that closes the SSH connection it was opened on. */
    private record SftpOverOwnConnection(Store store, SshConnections connections) implements Store {
        @Override
        public String describe() {
            return store.describe();
        }

        @Override
        public void put(String key, Path file) throws IOException {
            store.put(key, file);
        }

        @Override
        public void put(String key, byte[] content) throws IOException {
            store.put(key, content);
        }

        @Override
        public InputStream open(String key) throws IOException {
            return store.open(key);
        }

        @Override
        public List<StoredObject> list(String prefix) throws IOException {
            return store.list(prefix);
        }

        @Override
        public void delete(String key) throws IOException {
            store.delete(key);
        }

        @Override
        public Optional<Versioned> read(String key) throws IOException {
            return store.read(key);
        }

        @Override
        public String putIfVersion(String key, byte[] content, Optional<String> expected) throws IOException {
            return store.putIfVersion(key, content, expected);
        }

        @Override
        public void deleteIfVersion(String key, String expected) throws IOException {
            store.deleteIfVersion(key, expected);
        }

        @Override
        public void close() throws IOException {
            try {
                store.close();
            } finally {
                connections.close();
            }
        }
    }

    /** An operator mistake found before any work: exit 1 with the message. */
    public static final class UsageProblem extends RuntimeException {
        public UsageProblem(String message) {
            super(message);
        }
    }
}
