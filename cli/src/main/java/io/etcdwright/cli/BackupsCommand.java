package io.etcdwright.cli;

import io.etcdwright.run.BackupStores;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupReader;
import io.etcdwright.modules.backup.EtcdwrightBackupMeta;
import io.etcdwright.modules.backup.Retention;
import io.etcdwright.modules.backup.crypto.PrivateKeys;
import io.etcdwright.modules.backup.store.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "backups", description = "List, verify and prune the backups in a store.",
        subcommands = {BackupsCommand.ListBackups.class, BackupsCommand.Verify.class, BackupsCommand.Prune.class})
final class BackupsCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return Main.ERROR;
    }

    /** What every subcommand takes: the input, the store, SSH options for an SFTP store. */
    static class StoreOptions {
        @Mixin
        InputOptions input;

        @Mixin
        ConnectionOptions connection;

        @Option(names = "--store", paramLabel = "NAME", description = "The store (default: the spec's first).")
        String store;

        DesiredState desired() {
            return DesiredStateLoader.load(input.inventory, input.spec);
        }

        Store open(DesiredState desired) {
            return BackupStores.open(BackupStores.chosen(desired, Optional.ofNullable(store)), desired, connection.settings());
        }
    }

    @Command(name = "list", description = "Every complete backup: time, size, revision, keys, etcd version, members, encrypted.")
    static final class ListBackups implements Callable<Integer> {
        @Mixin
        StoreOptions options;

        @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
        OutputFormat output;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            DesiredState desired = options.desired();
            PrintWriter out = spec.commandLine().getOut();
            try (Store store = options.open(desired)) {
                BackupCatalog.Listing listing = new BackupCatalog(store).list();
                if (output == OutputFormat.json) {
                    out.println(Json.write(listDocument(store.describe(), listing)));
                    return Main.OK;
                }
                out.println("backups in " + store.describe() + ":");
                if (listing.backups().isEmpty()) {
                    out.println("  none");
                }
                out.printf(Locale.ROOT, "  %-28s %10s %10s %8s %-8s %7s %s%n", "NAME", "SIZE", "REVISION", "KEYS",
                        "ETCD", "MEMBERS", "ENCRYPTED");
                for (BackupCatalog.Backup b : listing.backups()) {
                    Optional<EtcdwrightBackupMeta> m = b.meta();
                    out.printf(Locale.ROOT, "  %-28s %10s %10s %8s %-8s %7s %s%n", b.name(), TransferProgress.size(b.size()),
                            m.map(x -> Long.toString(x.revision())).orElse("-"), m.filter(x -> x.keyCount() >= 0).map(x -> Long.toString(x.keyCount())).orElse("-"),
                            m.map(EtcdwrightBackupMeta::etcdVersion).orElse("-"),
                            m.map(x -> Integer.toString(x.memberCount())).orElse("-"), b.encrypted() ? "yes" : "no");
                }
                for (BackupCatalog.Incomplete i : listing.incomplete()) {
                    out.println("  incomplete: " + i.name() + " (" + i.objects().size()
                            + " objects; a write or delete was cut short; 'backups prune' removes it)");
                }
                return Main.OK;
            }
        }
    }

    @Command(name = "verify", description = {"Check a backup from end to end, as a restore would read it.",
            "Downloads the backup, decrypts it, checks its sha256, opens the snapshot and compares it with its meta.",
            "Exits 1 when any check fails."})
    static final class Verify implements Callable<Integer> {
        @Mixin
        StoreOptions options;

        @Parameters(arity = "0..1", paramLabel = "BACKUP", description = "The backup's name (default: the newest).")
        String name;

        @Option(names = "--key", paramLabel = "FILE", description = "A recipient's private key, for an encrypted backup.")
        Path key;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            DesiredState desired = options.desired();
            Optional<PrivateKey> privateKey = Optional.ofNullable(key).map(PrivateKeys::read);
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try (Store store = options.open(desired)) {
                BackupCatalog catalog = new BackupCatalog(store);
                BackupCatalog.Backup backup = BackupStores.find(catalog, name);
                Path work = BackupCommand.workDir(desired.spec().name());
                Path snapshot = work.resolve("verify-" + ProcessHandle.current().pid() + ".db");
                try {
                    TransferProgress progress = new TransferProgress(err, "reading " + backup.name());
                    BackupReader.Fetched fetched;
                    try {
                        fetched = BackupReader.fetch(catalog, backup, privateKey, snapshot, progress);
                    } finally {
                        progress.done();
                    }
                    out.printf(Locale.ROOT, "backup %s is good: sha256 %s matches, the snapshot opens: revision %d, %d keys%n",
                            backup.name(), fetched.dbSha256(), fetched.status().revision(), fetched.status().liveKeys());
                    return Main.OK;
                } catch (IOException e) {
                    err.println("error: backup " + backup.name() + " failed verification: " + e.getMessage());
                    return Main.ERROR;
                } finally {
                    Files.deleteIfExists(snapshot);
                }
            }
        }
    }

    @Command(name = "prune", description = {"Delete the backups the retention rules drop, and leftovers of cut-short writes.",
            "The rules are etcd-manager's: all under 1 h are kept, the oldest of each hour for 7 days, of each day for 2 years;",
            "the newest is always kept."})
    static final class Prune implements Callable<Integer> {
        @Mixin
        StoreOptions options;

        @Option(names = "--dry-run", description = "Show what would be deleted, delete nothing.")
        boolean dryRun;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            DesiredState desired = options.desired();
            BackupPolicy policy = BackupStores.policy(desired);
            PrintWriter out = spec.commandLine().getOut();
            try (Store store = options.open(desired)) {
                BackupCatalog catalog = new BackupCatalog(store);
                BackupCatalog.Listing listing = catalog.list();
                List<Retention.Decision> decisions = retention(policy.retention())
                        .decide(listing.backups().stream().map(BackupCatalog.Backup::time).toList(), Instant.now());
                List<String> deleted = new ArrayList<>();
                for (int i = 0; i < decisions.size(); i++) {
                    Retention.Decision decision = decisions.get(i);
                    String backup = listing.backups().get(i).name().toString();
                    out.printf(Locale.ROOT, "  %-6s %s  %s%n", decision.keep() ? "keep" : dryRun ? "would delete" : "delete", backup,
                            decision.reason());
                    if (!decision.keep()) {
                        deleted.add(backup);
                    }
                }
                for (BackupCatalog.Incomplete leftover : listing.incomplete()) {
                    out.printf(Locale.ROOT, "  %-6s %s  incomplete: a write or delete was cut short%n",
                            dryRun ? "would delete" : "delete", leftover.name());
                    deleted.add(leftover.name());
                }
                if (!dryRun) {
                    for (String backup : deleted) {
                        catalog.delete(backup);
                    }
                }
                out.printf(Locale.ROOT, "%s %d of %d in %s%n", dryRun ? "would delete" : "deleted", deleted.size(),
                        listing.backups().size() + listing.incomplete().size(), store.describe());
                return Main.OK;
            }
        }
    }

    static Retention retention(BackupPolicy.Retention spec) {
        return new Retention(Duration.ofHours(spec.keepAllForHours()), Duration.ofDays(spec.hourlyForDays()),
                Duration.ofDays(spec.dailyForDays()));
    }

    /** {@code backups list -o json} (schemas/backups-list.schema.json). */
    static Map<String, Object> listDocument(String store, BackupCatalog.Listing listing) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("format", "etcdwright-backups/1");
        json.put("version", 1);
        json.put("store", store);
        json.put("backups", listing.backups().stream().map(BackupsCommand::json).toList());
        json.put("incomplete", listing.incomplete().stream().map(BackupCatalog.Incomplete::name).toList());
        return json;
    }

    static Map<String, Object> json(BackupCatalog.Backup b) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", b.name().toString());
        json.put("time", b.time().toString());
        json.put("size", b.size());
        json.put("encrypted", b.encrypted());
        b.meta().ifPresent(m -> {
            json.put("revision", m.revision());
            json.put("keys", m.keyCount());
            json.put("db_size", m.dbSize());
            json.put("db_sha256", m.dbSha256());
            json.put("etcd_version", m.etcdVersion());
            json.put("member_count", m.memberCount());
            json.put("taken_from", m.takenFrom());
        });
        return json;
    }
}
