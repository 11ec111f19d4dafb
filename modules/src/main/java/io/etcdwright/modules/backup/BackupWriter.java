package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.crypto.Recipient;
import io.etcdwright.modules.backup.crypto.Recipients;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns a verified snapshot file into a backup in a store, in etcd-manager's layout: the
 * snapshot gzipped (then encrypted to the recipients, when there are any) as the data file,
 * then our meta, then etcd-manager's meta, which is what makes the backup complete. The
 * snapshot is opened first ({@link BoltSnapshot}), so a backup is only written for a database
 * that reads, and its revision and key count go into the meta.
 */
public final class BackupWriter {

    /**
     * What the backup says about where it came from.
     *
     * @param recipients empty: not encrypted
     */
    public record Source(String clusterName, String etcdVersion, int memberCount, String takenFrom,
                         Optional<Recipients> recipients) {
        public Source {
            Objects.requireNonNull(clusterName, "clusterName");
            Objects.requireNonNull(etcdVersion, "etcdVersion");
            Objects.requireNonNull(takenFrom, "takenFrom");
            Objects.requireNonNull(recipients, "recipients");
        }
    }

    /** The backup written: its name and what it holds. */
    public record Written(BackupName name, String store, BoltSnapshot.Status status, long dbSize, long objectSize,
                          boolean encrypted, EtcdwrightBackupMeta meta, Phases phases) {
    }

    /** Where the time went, for the operator's summary and the benchmark. */
    public record Phases(Duration open, Duration encode, Duration store) {
    }

    private BackupWriter() {
    }

    /**
     * Encodes the snapshot here, then stores it: for a snapshot already on disk.
     *
     * @param snapshot the snapshot as etcd streamed it, its trailer already verified
     * @param dbSha256 the database's sha256 from that verification
     * @param workDir  a root-only directory for the encoded file, removed from it afterwards
     */
    public static Written write(BackupCatalog catalog, Path snapshot, String dbSha256, Source source, Instant takenAt,
                                Path workDir) throws IOException {
        Path object = newObjectFile(workDir);
        try {
            long t0 = System.nanoTime();
            BackgroundEncoder encoder = BackgroundEncoder.into(object, source.recipients());
            try (InputStream in = Files.newInputStream(snapshot)) {
                in.transferTo(encoder);
                encoder.close();
            } catch (IOException | RuntimeException e) {
                encoder.abandon();
                throw e;
            }
            return store(catalog, snapshot, dbSha256, object, Duration.ofNanos(System.nanoTime() - t0), source, takenAt);
        } finally {
            Files.deleteIfExists(object);
        }
    }

    /** A new, empty, 0600 file in {@code workDir} for an encoded snapshot. */
    public static Path newObjectFile(Path workDir) throws IOException {
        Path object = Files.createTempFile(workDir, "backup-", ".object",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        return object;
    }

    /**
     * Opens the snapshot to describe it, then writes the encoded object and the metas to the
     * store. The caller removes {@code object} afterwards.
     *
     * @param encodeTime how long encoding took, for the summary
     */
    public static Written store(BackupCatalog catalog, Path snapshot, String dbSha256, Path object, Duration encodeTime,
                                Source source, Instant takenAt) throws IOException {
        long t0 = System.nanoTime();
        BoltSnapshot.Status status = BoltSnapshot.status(snapshot);
        long t1 = System.nanoTime();
        long dbSize = Files.size(snapshot);
        long objectSize = Files.size(object);
        BackupName name = catalog.nextName(takenAt);
        List<String> fingerprints = source.recipients().map(r -> r.all().stream().map(BackupWriter::fingerprint).toList())
                .orElse(List.of());
        EtcdwrightBackupMeta meta = new EtcdwrightBackupMeta(EtcdwrightBackupMeta.FORMAT_VERSION, source.clusterName(),
                status.revision(), status.liveKeys(), dbSize, dbSha256, objectSize, source.recipients().isPresent(),
                fingerprints, source.etcdVersion(), source.memberCount(), takenAt, source.takenFrom());
        EtcdClusterSpec clusterSpec = new EtcdClusterSpec(source.memberCount(), source.etcdVersion());
        catalog.add(name, object, new EtcdManagerMeta(source.etcdVersion(), takenAt, Optional.of(clusterSpec)), meta);
        // etcd-manager reads the desired cluster from control/; keep it in step with the spec.
        if (!catalog.readClusterSpec().equals(Optional.of(clusterSpec))) {
            catalog.writeClusterSpec(clusterSpec);
        }
        long t2 = System.nanoTime();
        return new Written(name, catalog.store().describe(), status, dbSize, objectSize, meta.encrypted(), meta,
                new Phases(Duration.ofNanos(t1 - t0), encodeTime, Duration.ofNanos(t2 - t1)));
    }

    /** The sha256 of a recipient's public key (SubjectPublicKeyInfo), as {@code openssl pkey -pubout -outform DER | sha256sum} shows it. */
    static String fingerprint(Recipient recipient) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(recipient.publicKey().getEncoded()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

}
