package io.etcdwright.cli;

import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.backup.store.Store;

import java.nio.file.Path;
import java.util.Optional;

/** The store a backup command works on: the one named by --store, or the spec's first. */
final class BackupStores {
    private BackupStores() {
    }

    static BackupPolicy policy(DesiredState desired) {
        return desired.spec().backup().orElseThrow(() -> new UsageProblem(desired.spec().file()
                + " has no backup section: add backup.stores (for example [{name: local, type: directory,"
                + " path: /var/backups/etcd}]) to say where backups go"));
    }

    static BackupStore chosen(DesiredState desired, Optional<String> name) {
        BackupPolicy policy = policy(desired);
        if (name.isEmpty()) {
            return policy.defaultStore();
        }
        return policy.store(name.get()).orElseThrow(() -> new UsageProblem("no store is named '" + name.get() + "' in "
                + desired.spec().file() + " (stores: " + String.join(", ", policy.stores().stream().map(BackupStore::name).toList()) + ")"));
    }

    /** Opens it from the workstation: a directory here, the SFTP host over SSH, the bucket with the AWS default credentials. */
    static Store open(BackupStore store, DesiredState desired, ConnectionOptions connection) {
        if (store instanceof BackupStore.Directory directory) {
            return new DirectoryStore(Path.of(directory.path()));
        }
        throw new UsageProblem(store.type() + " stores are not wired yet");
    }

    /** An operator mistake found before any work: exit 1 with the message. */
    static final class UsageProblem extends RuntimeException {
        UsageProblem(String message) {
            super(message);
        }
    }
}
