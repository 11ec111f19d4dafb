package io.etcdwright.cli;

import io.etcdwright.run.BackupStores;
import io.etcdwright.run.EtcdwrightHome;
import io.etcdwright.run.Layouts;
import io.etcdwright.run.Pkis;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.backup.BackgroundEncoder;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupWriter;
import io.etcdwright.modules.backup.SnapshotDownload;
import io.etcdwright.modules.backup.SnapshotMember;
import io.etcdwright.modules.membership.TlsMaterial;
import io.etcdwright.modules.backup.crypto.Recipients;
import io.etcdwright.modules.backup.store.Store;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.pki.ClusterPki;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "backup", description = {"Take a backup now: a snapshot from the leader, written to a store.",
        "The snapshot is verified, compressed, encrypted when the spec names recipients, and written in etcd-manager's layout."})
final class BackupCommand implements Callable<Integer> {
    @Mixin
    BackupsCommand.StoreOptions options;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
            description = "How long a member may stay silent (connecting, or between parts of the snapshot).")
    int timeoutSeconds;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
    OutputFormat output;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        ConnectionOptions.positive("--timeout", timeoutSeconds);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DesiredState desired = options.desired();
        BackupPolicy policy = BackupStores.policy(desired);
        BackupStore target = BackupStores.chosen(desired, Optional.ofNullable(options.store));
        // Recipients are read before anything is contacted: a wrong file is an input error.
        Optional<Recipients> recipients = policy.encryption().map(e -> Recipients.load(e.recipients()));
        ClusterPki pki = Pkis.of(desired);
        Health.Access access = Endpoints.healthAccess(pki);
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        String cluster = desired.spec().name();

        long askStarted = System.nanoTime();
        Path work = workDir(cluster);
        Path snapshot = work.resolve("snapshot-" + ProcessHandle.current().pid() + ".db");
        TlsMaterial tls = access.tls();
        try (SnapshotMember source = SnapshotMember.find(Endpoints.clientUrls(desired.members(), Layouts.of(desired)), tls, timeout);
             Store opened = open(target, desired)) {
            if (!source.leader()) {
                err.println("warning: no leader answered; taking the snapshot from " + source.name()
                        + ", which may lag the newest writes");
            }
            Instant takenAt = Instant.now();
            long started = System.nanoTime();
            Duration ask = Duration.ofNanos(started - askStarted);
            TransferProgress progress = new TransferProgress(err, "snapshot from " + source.name());
            SnapshotDownload.Saved saved;
            // Compressed (and encrypted) while it downloads: the backup takes about the longer of the two.
            Path object = BackupWriter.newObjectFile(work);
            try {
                BackgroundEncoder encoder = BackgroundEncoder.into(object, recipients);
                try {
                    saved = SnapshotDownload.take(source.rpc(), snapshot, progress, encoder);
                } catch (RuntimeException e) {
                    encoder.abandon();
                    throw e;
                } finally {
                    progress.done();
                }
                Duration download = Duration.ofNanos(System.nanoTime() - started);
                BackupWriter.Written written;
                try {
                    written = BackupWriter.store(new BackupCatalog(opened), snapshot, saved.sha256(), object,
                            download, new BackupWriter.Source(cluster, source.version().isEmpty() ? desired.spec().etcd().version()
                                    : source.version(), source.memberCount(), source.name(), recipients), takenAt);
                } catch (IOException | RuntimeException e) {
                    // The snapshot was good; the store failed it. Say which store, and that nothing counts.
                    String why = String.valueOf(e.getMessage());
                    throw new IOException("no backup was stored in store '" + target.name() + "' (" + opened.describe() + "): "
                            + why + (why.endsWith("?") || why.endsWith(".") ? " " : ". ")
                            + "Run 'etcdwright backup' again once the store answers.", e);
                }
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                report(written, source.name(), took, out);
                if (output == OutputFormat.text) {
                    out.printf(Locale.ROOT, "  (finding the leader %.1f s, snapshot and compressing%s %.1f s, opening it %.1f s, writing to"
                                    + " the store %.1f s)%n", secs(ask), written.encrypted() ? " and encrypting" : "", secs(download),
                            secs(written.phases().open()), secs(written.phases().store()));
                }
                return Main.OK;
            } finally {
                Files.deleteIfExists(object);
            }
        } finally {
            Files.deleteIfExists(snapshot);
        }
    }

    /** The store, opened before any snapshot is taken: an SFTP host that does not answer stops the backup at once. */
    private Store open(BackupStore target, DesiredState desired) throws IOException {
        try {
            return BackupStores.open(target, desired, options.connection.settings());
        } catch (BackupStores.UsageProblem e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IOException("cannot open store '" + target.name() + "': " + e.getMessage() + "; no snapshot was taken", e);
        }
    }

    private static double secs(Duration d) {
        return d.toNanos() / 1e9;
    }

    private void report(BackupWriter.Written written, String source, Duration took, PrintWriter out) {
        double seconds = Math.max(0.001, took.toNanos() / 1e9);
        if (output == OutputFormat.json) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("format", "etcdwright-backup-result/1");
            json.put("name", written.name().toString());
            json.put("store", written.store());
            json.put("taken_from", source);
            json.put("revision", written.status().revision());
            json.put("keys", written.status().liveKeys());
            json.put("db_size", written.dbSize());
            json.put("stored_size", written.objectSize());
            json.put("encrypted", written.encrypted());
            json.put("seconds", Math.round(seconds * 1000) / 1000.0);
            out.println(Json.write(json));
            return;
        }
        out.printf(Locale.ROOT, "backup %s written to %s%n", written.name(), written.store());
        out.printf(Locale.ROOT, "  from %s: revision %d, %d keys, db %s, stored %s%s%n", source,
                written.status().revision(), written.status().liveKeys(), TransferProgress.size(written.dbSize()),
                TransferProgress.size(written.objectSize()), written.encrypted() ? " (encrypted)" : "");
        out.printf(Locale.ROOT, "  took %.1f s (%s/s of snapshot)%n", seconds,
                TransferProgress.size((long) (written.dbSize() / seconds)));
    }

    /** Root-only scratch space for the snapshot on its way to the store. */
    static Path workDir(String cluster) {
        Path dir = EtcdwrightHome.dir().resolve("clusters").resolve(cluster).resolve("backup-work");
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir + " for the snapshot: " + e.getMessage(), e);
        }
        return dir;
    }
}
