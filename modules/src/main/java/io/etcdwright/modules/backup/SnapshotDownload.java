package io.etcdwright.modules.backup;

import io.etcd.jetcd.Client;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.GrpcLogging;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.TlsMaterial;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;

/**
 * A snapshot streamed from one member into a file on the workstation, never held in memory, and
 * verified against etcd's sha256 trailer as it arrives. One endpoint only, as etcd requires
 * ("snapshot must be requested to one selected node"): the caller picks the member (the leader
 * where it can, as etcd's docs advise).
 */
public final class SnapshotDownload {

    /** What was saved: the file (trailer included), its size and the database's sha256. */
    public record Saved(Path file, long bytes, String sha256) {
    }

    private SnapshotDownload() {
    }

    /**
     * Streams into {@code file} (created 0600: a snapshot holds every secret of the cluster).
     * On any failure the file is removed.
     *
     * @param progress told the bytes received so far, from the gRPC thread
     */
    public static Saved take(Health.Access access, String clientUrl, Path file, Duration timeout, LongConsumer progress) {
        TlsMaterial tls = TlsMaterial.read(access.caCert(), access.clientCert(), access.clientKey());
        try {
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            GrpcLogging.quiet();
            TrailerCheck check;
            try (Client client = Client.builder().endpoints(URI.create(clientUrl)).sslContext(tls.clientContext())
                    .connectTimeout(timeout).build();
                 OutputStream out = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.WRITE), 1 << 20)) {
                check = new TrailerCheck(new Counting(out, progress));
                // The whole stream may take long on a big db; the timeout bounds silence, not size.
                client.getMaintenanceClient().snapshot(check).get(timeout.toMillis() * 20, TimeUnit.MILLISECONDS);
                check.flush();
            }
            String sha256 = check.verify();
            return new Saved(file, check.count(), sha256);
        } catch (IOException | ExecutionException | TimeoutException e) {
            deleteQuietly(file);
            throw new EtcdAdminException("cannot take a snapshot from " + clientUrl + ": " + message(e), e);
        } catch (InterruptedException e) {
            deleteQuietly(file);
            Thread.currentThread().interrupt();
            throw new EtcdAdminException("interrupted while taking a snapshot from " + clientUrl, e);
        } catch (RuntimeException e) {
            deleteQuietly(file);
            throw e;
        }
    }

    private static String message(Exception e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the operator sees the first error
        }
    }

    /** Counts bytes for a progress display. */
    private static final class Counting extends java.io.FilterOutputStream {
        private final LongConsumer progress;
        private long count;

        Counting(OutputStream out, LongConsumer progress) {
            super(out);
            this.progress = progress;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
            progress.accept(count);
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }
    }
}
