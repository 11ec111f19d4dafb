package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.crypto.BackupEncryption;
import io.etcdwright.modules.backup.crypto.Recipient;
import io.etcdwright.modules.backup.crypto.Recipients;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

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
                          boolean encrypted, EtcdwrightBackupMeta meta) {
    }

    private BackupWriter() {
    }

    /**
     * @param snapshot  the snapshot as etcd streamed it, its trailer already verified
     * @param dbSha256  the database's sha256 from that verification
     * @param workDir   a root-only directory for the encoded file, removed from it afterwards
     */
    public static Written write(BackupCatalog catalog, Path snapshot, String dbSha256, Source source, Instant takenAt,
                                Path workDir) throws IOException {
        BoltSnapshot.Status status = BoltSnapshot.status(snapshot);
        long dbSize = Files.size(snapshot);
        BackupName name = catalog.nextName(takenAt);
        Path object = workDir.resolve(name.toString().replace(':', '-') + ".object");
        try {
            Files.deleteIfExists(object);
            Files.createFile(object, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            encode(snapshot, object, source.recipients());
            long objectSize = Files.size(object);
            List<String> fingerprints = source.recipients().map(r -> r.all().stream().map(BackupWriter::fingerprint).toList())
                    .orElse(List.of());
            EtcdwrightBackupMeta meta = new EtcdwrightBackupMeta(EtcdwrightBackupMeta.FORMAT_VERSION, source.clusterName(),
                    status.revision(), status.totalKeys(), dbSize, dbSha256, objectSize, source.recipients().isPresent(),
                    fingerprints, source.etcdVersion(), source.memberCount(), takenAt, source.takenFrom());
            EtcdClusterSpec clusterSpec = new EtcdClusterSpec(source.memberCount(), source.etcdVersion());
            catalog.add(name, object, new EtcdManagerMeta(source.etcdVersion(), takenAt, Optional.of(clusterSpec)), meta);
            // etcd-manager reads the desired cluster from control/; keep it in step with the spec.
            if (!catalog.readClusterSpec().equals(Optional.of(clusterSpec))) {
                catalog.writeClusterSpec(clusterSpec);
            }
            return new Written(name, catalog.store().describe(), status, dbSize, objectSize, meta.encrypted(), meta);
        } finally {
            Files.deleteIfExists(object);
        }
    }

    /** gzip, then CMS when encrypting: so an unencrypted backup is a plain .gz anyone can gunzip. */
    static void encode(Path snapshot, Path object, Optional<Recipients> recipients) throws IOException {
        try (InputStream in = Files.newInputStream(snapshot);
             OutputStream file = new BufferedOutputStream(Files.newOutputStream(object), 1 << 16);
             OutputStream encrypted = recipients.isPresent() ? BackupEncryption.encrypting(file, recipients.get()) : file;
             OutputStream gzip = new FastGzip(encrypted)) {
            in.transferTo(gzip);
        }
    }

    /** The sha256 of a recipient's public key (SubjectPublicKeyInfo), as {@code openssl pkey -pubout -outform DER | sha256sum} shows it. */
    static String fingerprint(Recipient recipient) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(recipient.publicKey().getEncoded()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * gzip at zlib's level 1: a snapshot is mostly free pages and repeated keys, level 1 takes it
     * to nearly the size level 6 does, at two to three times the speed, so compression does not
     * become the slowest part of a backup.
     */
    private static final class FastGzip extends GZIPOutputStream {
        FastGzip(OutputStream out) throws IOException {
            super(out, 1 << 16);
            def.setLevel(Deflater.BEST_SPEED);
        }
    }
}
