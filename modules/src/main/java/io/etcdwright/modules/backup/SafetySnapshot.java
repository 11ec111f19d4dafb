package io.etcdwright.modules.backup;

import io.etcd.jetcd.Client;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.TlsMaterial;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A snapshot of the cluster taken on the workstation right before a risky change (a membership
 * change, a minor upgrade), so that the state before it can be restored whatever happens. It is
 * streamed to a file, never held in memory, and verified the way etcd's own restore verifies it:
 * etcd appends the sha256 of the database to the snapshot stream, and the file is kept only if
 * that hash matches the data ({@code etcdctl snapshot save} checks the same).
 */
public final class SafetySnapshot {
    private static final int SHA256_SIZE = 32;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /** Where it went and what it holds. */
    public record Saved(Path file, long bytes, String sha256) {
    }

    private SafetySnapshot() {
    }

    /**
     * Streams a snapshot from the cluster (whichever member answers) into {@code dir} as
     * {@code <label>-<time>.db}, mode 0600 (it holds every key of the cluster, secrets included).
     *
     * @throws EtcdAdminException when no member streams a snapshot or its hash does not match;
     *                            nothing is left behind then
     */
    public static Saved take(Health.Access access, List<String> clientUrls, Path dir, String label, Duration timeout) {
        if (!label.matches("[a-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("a snapshot label is lowercase letters, digits and '-', got " + label);
        }
        Path file = dir.resolve(label + "-" + STAMP.format(Instant.now()) + ".db");
        Path partial = dir.resolve(file.getFileName() + ".part");
        TlsMaterial tls = TlsMaterial.read(access.caCert(), access.clientCert(), access.clientKey());
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(partial);
            Files.createFile(partial, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            io.etcdwright.modules.membership.GrpcLogging.quiet();
            try (Client client = Client.builder().endpoints(clientUrls.stream().map(URI::create).toArray(URI[]::new))
                    .sslContext(tls.clientContext()).connectTimeout(timeout).build();
                 OutputStream out = Files.newOutputStream(partial)) {
                client.getMaintenanceClient().snapshot(out).get(timeout.toMillis() * 10, TimeUnit.MILLISECONDS);
            }
            String sha256 = verify(partial);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
            return new Saved(file, Files.size(file), sha256);
        } catch (IOException | ExecutionException | TimeoutException e) {
            deleteQuietly(partial);
            throw new EtcdAdminException("cannot take a snapshot of the cluster into " + dir + ": " + e.getMessage()
                    + "; nothing was changed (use --no-snapshot to go ahead without one)", e);
        } catch (InterruptedException e) {
            deleteQuietly(partial);
            Thread.currentThread().interrupt();
            throw new EtcdAdminException("interrupted while taking a snapshot", e);
        } catch (RuntimeException e) {
            deleteQuietly(partial);
            throw e;
        }
    }

    /**
     * Checks etcd's trailer: the last 32 bytes are the sha256 of everything before them, and the
     * database before them is whole pages (a multiple of 512 bytes), as etcdctl checks.
     *
     * @return the sha256 of the database, hex
     */
    public static String verify(Path snapshot) throws IOException {
        long size = Files.size(snapshot);
        if (!hasHashTrailer(size)) {
            throw new IOException("the snapshot has no sha256 trailer (" + size + " bytes): it is incomplete");
        }
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] trailer = new byte[SHA256_SIZE];
        try (InputStream in = Files.newInputStream(snapshot)) {
            byte[] buffer = new byte[1 << 16];
            long left = size - SHA256_SIZE;
            while (left > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    throw new IOException("the snapshot ended early");
                }
                digest.update(buffer, 0, n);
                left -= n;
            }
            if (in.readNBytes(trailer, 0, SHA256_SIZE) != SHA256_SIZE) {
                throw new IOException("the snapshot's sha256 trailer is cut short");
            }
        }
        byte[] actual = digest.digest();
        if (!Arrays.equals(actual, trailer)) {
            throw new IOException("the snapshot's data does not match its sha256 trailer: it is damaged");
        }
        return HexFormat.of().formatHex(actual);
    }

    /**
     * Whether a file of this size can carry etcd's sha256 trailer (whole 512-byte pages and 32
     * bytes): what etcd's restore looks at to decide whether to check it. A database copied from a
     * member's disk ({@code member/snap/db}) is whole pages only.
     */
    public static boolean hasHashTrailer(long size) {
        return size >= SHA256_SIZE && (size - SHA256_SIZE) % 512 == 0;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the operator sees the first error; a leftover .part file is harmless and named as such
        }
    }
}
