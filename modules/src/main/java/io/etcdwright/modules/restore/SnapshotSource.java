package io.etcdwright.modules.restore;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.modules.backup.SafetySnapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import io.etcdwright.modules.backup.BoltSnapshot;

/**
 * The snapshot a restore works from: a raw etcd snapshot on the workstation, already checked, and
 * what is known about it. This is the seam between where a backup comes from and the restore: the
 * {@code restore} command builds one from a local file ({@link #local}); a backup store builds one
 * after downloading (and decrypting) a backup into a local file, with what its metadata records
 * (the etcd version that took it, its revision and live key count).
 *
 * @param origin      what the operator named, for the plan ("/backups/x.db.gz", "store s3/nightly-...")
 * @param file        the raw snapshot on the workstation, as {@code etcdctl snapshot save} writes it
 * @param sha256      of the whole file (what is uploaded and checked on every host)
 * @param bytes       its size
 * @param hashTrailer whether it carries etcd's sha256 trailer, and it matched; false for a database
 *                    copied from a member's disk, which only restores with --skip-hash-check
 * @param takenBy     the etcd version of the cluster that took it, when known (a raw file does not say)
 * @param revision    its revision, when the backup's metadata records it
 * @param liveKeys    how many keys it holds (a range count, not the database's revisions), when recorded
 */
public record SnapshotSource(String origin, Path file, String sha256, long bytes, boolean hashTrailer,
                             Optional<Version> takenBy, Optional<Long> revision, Optional<Long> liveKeys) {
    public SnapshotSource {
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("not a sha256: " + sha256);
        }
    }

    /**
     * A snapshot file on the workstation: a raw {@code .db}, a {@code .db.gz} (unpacked into
     * {@code workDir}, private), or a copied {@code member/snap/db}. A trailer that does not match
     * the data is refused here, always: the file is damaged and must never reach a member.
     *
     * @throws InvalidSnapshotException when it is missing, damaged, cut short or not a database
     */
    public static SnapshotSource local(Path from, Path workDir, Optional<Version> takenBy) {
        if (!Files.isRegularFile(from)) {
            throw new InvalidSnapshotException(from + " is not a file");
        }
        Path raw = from;
        try {
            if (from.getFileName().toString().endsWith(".gz")) {
                raw = gunzip(from, workDir);
            }
            long size = Files.size(raw);
            boolean trailer = SafetySnapshot.hasHashTrailer(size);
            if (trailer) {
                try {
                    SafetySnapshot.verify(raw);
                } catch (IOException e) {
                    throw new InvalidSnapshotException(from + ": " + e.getMessage() + "; it will not be restored."
                            + " Use another backup", e);
                }
            } else if (size == 0 || size % 512 != 0) {
                throw new InvalidSnapshotException(from + " (" + size + " bytes) is neither a snapshot with etcd's"
                        + " sha256 trailer nor a database of whole pages: it is cut short or not etcd's; it will not be"
                        + " restored. Use another backup");
            }
            String sha256;
            try (InputStream in = Files.newInputStream(raw)) {
                sha256 = HostSession.sha256(in);
            }
            // Opened here, page by page: a file that is not a readable etcd database never reaches a
            // member, and its revision and key count are what the restored cluster must show.
            BoltSnapshot.Status status;
            try {
                status = BoltSnapshot.status(raw);
            } catch (IOException e) {
                throw new InvalidSnapshotException(from + " does not open as an etcd database: " + e.getMessage()
                        + "; it will not be restored. Use another backup", e);
            }
            return new SnapshotSource(from.toString(), raw, sha256, size, trailer, takenBy, Optional.of(status.revision()),
                    Optional.of(status.liveKeys()));
        } catch (IOException e) {
            throw new InvalidSnapshotException("cannot read " + from + ": " + e.getMessage(), e);
        }
    }

    /** The snapshot's etcd minor ("3.5"), when known. */
    public Optional<String> minor() {
        return takenBy.map(v -> v.minorLine().toString());
    }

    private static Path gunzip(Path gz, Path workDir) throws IOException {
        Files.createDirectories(workDir);
        String name = gz.getFileName().toString();
        Path out = workDir.resolve(name.substring(0, name.length() - ".gz".length()));
        Path partial = workDir.resolve(out.getFileName() + ".part");
        Files.deleteIfExists(partial);
        // It holds every key of the cluster: private from its first byte.
        Files.createFile(partial, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz)); OutputStream o = Files.newOutputStream(partial)) {
            in.transferTo(o);
        } catch (IOException e) {
            Files.deleteIfExists(partial);
            throw new InvalidSnapshotException(gz + " does not unpack (" + e.getMessage() + "): it is damaged or cut short;"
                    + " it will not be restored. Use another backup", e);
        }
        Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return out;
    }
}
