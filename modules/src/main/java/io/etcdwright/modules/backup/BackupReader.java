package io.etcdwright.modules.backup;

import io.etcdwright.engine.ssh.CountingInputStream;
import io.etcdwright.modules.backup.crypto.BackupEncryption;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

/**
 * Brings a backup from its store back to a snapshot file on the workstation and proves it: the
 * data file is streamed, decrypted when it is encrypted, gunzipped, its sha256 trailer checked,
 * the database opened, and all of it compared with what the backup's meta says. Nothing that
 * fails any check is ever handed to a restore; the file is removed then.
 */
public final class BackupReader {

    /**
     * A snapshot that passed every check, and what it holds.
     *
     * @param dbSha256   the database's (what etcd's trailer holds)
     * @param fileSha256 the whole file's, trailer included (what a restore uploads and checks on hosts)
     */
    public record Fetched(Path snapshot, BackupCatalog.Backup backup, String dbSha256, String fileSha256, long bytes,
                          BoltSnapshot.Status status, Optional<String> etcdVersion) {
    }

    private BackupReader() {
    }

    /**
     * @param key the private key of one recipient, for an encrypted backup
     * @throws IOException naming the check that failed: a backup that is damaged, cut short,
     *                     encrypted to someone else, or does not hold what its meta says
     */
    public static Fetched fetch(BackupCatalog catalog, BackupCatalog.Backup backup, Optional<PrivateKey> key, Path snapshot,
                                LongConsumer progress) throws IOException {
        if (backup.encrypted() && key.isEmpty()) {
            throw new IOException("backup " + backup.name() + " is encrypted: give the private key of one of its recipients"
                    + " with --key FILE (it stays on this workstation)");
        }
        String what = "backup " + backup.name() + " in " + catalog.store().describe();
        BackupCatalog.Meta meta = catalog.readMeta(backup.name());
        Files.deleteIfExists(snapshot);
        Files.createFile(snapshot, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            TrailerCheck check;
            MessageDigest whole = sha256();
            try (InputStream stored = new CountingInputStream(catalog.store().open(backup.dataKey()), progress);
                 InputStream plain = backup.encrypted() ? BackupEncryption.decrypting(stored, key.get(), null) : stored;
                 InputStream gunzipped = new GZIPInputStream(plain, 1 << 16);
                 OutputStream file = new BufferedOutputStream(Files.newOutputStream(snapshot), 1 << 16)) {
                check = new TrailerCheck(new DigestOutputStream(file, whole));
                gunzipped.transferTo(check);
                check.flush();
            } catch (java.util.zip.ZipException e) {
                throw new IOException(what + " is not a whole gzip stream: " + e.getMessage() + "; it is damaged", e);
            }
            String sha256;
            try {
                sha256 = check.verify();
            } catch (IOException e) {
                throw new IOException(what + ": " + e.getMessage(), e);
            }
            BoltSnapshot.Status status = BoltSnapshot.status(snapshot);
            List<String> mismatches = new ArrayList<>();
            meta.etcdwright().ifPresent(ours -> {
                if (!ours.dbSha256().equals(sha256)) {
                    mismatches.add("sha256 " + sha256 + " where its meta says " + ours.dbSha256());
                }
                if (ours.revision() != status.revision()) {
                    mismatches.add("revision " + status.revision() + " where its meta says " + ours.revision());
                }
                if (ours.keyCount() >= 0 && ours.keyCount() != status.liveKeys()) {
                    mismatches.add(status.liveKeys() + " keys where its meta says " + ours.keyCount());
                }
            });
            if (!mismatches.isEmpty()) {
                throw new IOException(what + " does not hold what its meta says: " + String.join("; ", mismatches));
            }
            Optional<String> version = Optional.of(meta.etcdManager().etcdVersion()).filter(v -> !v.isEmpty());
            return new Fetched(snapshot, backup, sha256, HexFormat.of().formatHex(whole.digest()), check.count(), status, version);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(snapshot);
            throw e;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
