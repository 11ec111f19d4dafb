package io.etcdwright.modules.backup;

import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.TlsMaterial;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * A snapshot of the cluster taken on the workstation right before a risky change (a membership
 * change, a minor upgrade), so that the state before it can be restored whatever happens. It is
 * the same path as {@code etcdwright backup}: from the leader ({@link SnapshotMember}), streamed to
 * a file ({@link SnapshotDownload}), never held in memory, and kept only if etcd's sha256 trailer
 * matches the data ({@link TrailerCheck}, what {@code etcdctl snapshot save} checks too).
 */
public final class SafetySnapshot {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /** Where it went and what it holds. */
    public record Saved(Path file, long bytes, String sha256) {
    }

    private SafetySnapshot() {
    }

    /**
     * Streams a snapshot from the cluster (its leader, else a healthy voter) into {@code dir} as
     * {@code <label>-<time>.db}, mode 0600 (it holds every key of the cluster, secrets included).
     *
     * @throws EtcdAdminException when no member streams a snapshot or its hash does not match;
     *                            nothing is left behind then
     */
    public static Saved take(Health.Access access, List<String> clientUrls, Path dir, String label, Duration timeout,
                             LongConsumer progress) {
        return take(access, clientUrls, dir, label, timeout, member -> { },
                "nothing was changed (use --no-snapshot to go ahead without one)", progress);
    }

    /**
     * As above (the bytes received so far told to {@code progress}), with {@code first} done on the member the snapshot comes from, before it streams
     * (a write fence: what that member applied before it, the snapshot holds), and {@code whatToDo}
     * told when it fails.
     */
    public static Saved take(Health.Access access, List<String> clientUrls, Path dir, String label, Duration timeout,
                             Consumer<MemberRpc> first, String whatToDo, LongConsumer progress) {
        if (!label.matches("[a-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("a snapshot label is lowercase letters, digits and '-', got " + label);
        }
        Path file = dir.resolve(label + "-" + STAMP.format(Instant.now()) + ".db");
        Path partial = dir.resolve(file.getFileName() + ".part");
        TlsMaterial tls = access.tls();
        try {
            Files.createDirectories(dir);
            SnapshotDownload.Saved saved;
            try (SnapshotMember member = SnapshotMember.find(clientUrls, tls, timeout)) {
                first.accept(member.rpc());
                saved = SnapshotDownload.take(member.rpc(), partial, progress);
            }
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
            return new Saved(file, saved.bytes(), saved.sha256());
        } catch (IOException | RuntimeException e) {
            deleteQuietly(partial);
            throw new EtcdAdminException("cannot take a snapshot of the cluster into " + dir + ": " + e.getMessage()
                    + "; " + whatToDo, e);
        }
    }

    /**
     * Checks etcd's trailer on a file: the last 32 bytes are the sha256 of everything before them,
     * and the database before them is whole pages (a multiple of 512 bytes), as etcdctl checks.
     *
     * @return the sha256 of the database, hex
     */
    public static String verify(Path snapshot) throws IOException {
        TrailerCheck check = new TrailerCheck(OutputStream.nullOutputStream());
        try (InputStream in = Files.newInputStream(snapshot)) {
            in.transferTo(check);
        }
        return check.verify();
    }

    /**
     * Whether a file of this size can carry etcd's sha256 trailer (whole 512-byte pages and 32
     * bytes): what etcd's restore looks at to decide whether to check it. A database copied from a
     * member's disk ({@code member/snap/db}) is whole pages only.
     */
    public static boolean hasHashTrailer(long size) {
        return TrailerCheck.wholeSnapshot(size);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the operator sees the first error; a leftover .part file is harmless and named as such
        }
    }
}
