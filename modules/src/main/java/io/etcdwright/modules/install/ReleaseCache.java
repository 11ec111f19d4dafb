package io.etcdwright.modules.install;

import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.ssh.CountingInputStream;
import io.etcdwright.engine.ssh.HostSession;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

/**
 * Release tarballs on the workstation, downloaded once and verified before anything is copied
 * to a host. Safe when several hosts ask for the same release at once: one download serves all.
 */
public final class ReleaseCache {
    private final Path dir;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    /**
     * Tarballs verified by this instance (one command's run): the second host to ask for a release
     * gets it without a second download of SHA256SUMS and a second hash of the tarball. Keyed by
     * the artifact, whose URL and digest source are part of it; the file's size and time must
     * still be the ones that were verified.
     */
    private final Map<ReleaseArtifact, Checked> verified = new ConcurrentHashMap<>();

    public ReleaseCache(Path dir) {
        this.dir = dir;
    }

    /** The verified local tarball and its digest, downloading it if needed. */
    public Verified obtain(ReleaseArtifact artifact) {
        return obtain(artifact, (what, total) -> Progress.NONE);
    }

    /** Starts the report of a download: what it is, and its size (-1 when the server does not say). */
    public interface DownloadProgress {
        Progress start(String what, long totalBytes);
    }

    /** As {@link #obtain(ReleaseArtifact)}, showing a download while it runs. */
    public Verified obtain(ReleaseArtifact artifact, DownloadProgress shown) {
        synchronized (locks.computeIfAbsent(artifact.fileName(), k -> new Object())) {
            Path file = dir.resolve(artifact.fileName());
            Checked done = verified.get(artifact);
            if (done != null && done.stillMatches()) {
                return done.verified();
            }
            String expected = expectedDigest(artifact);
            try {
                if (Files.exists(file) && digest(file).equals(expected)) {
                    return remember(artifact, new Verified(file, expected));
                }
                Files.createDirectories(dir);
                Path partial = Files.createTempFile(dir, artifact.fileName(), ".part");
                try {
                    try (Opened opened = open(artifact.url());
                         Progress progress = shown.start("download " + artifact.fileName(), opened.length());
                         InputStream in = new CountingInputStream(opened.in(), progress::advanced)) {
                        Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                    }
                    String actual = digest(partial);
                    if (!actual.equals(expected)) {
                        throw new IllegalStateException("etcd " + artifact.version() + " from " + artifact.url()
                                + " has sha256 " + actual + " but " + expectedSource(artifact) + " says " + expected
                                + ": refusing to install it (a corrupt download or a tampered file)");
                    }
                    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(partial);
                }
                return remember(artifact, new Verified(file, expected));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot download etcd " + artifact.version() + " from "
                        + artifact.url() + ": " + e.getMessage(), e);
            }
        }
    }

    public record Verified(Path file, String sha256) {
    }

    private Verified remember(ReleaseArtifact artifact, Verified v) throws IOException {
        verified.put(artifact, new Checked(v, Files.size(v.file()), Files.getLastModifiedTime(v.file()).toMillis()));
        return v;
    }

    /** A verification, and the file's size and time when it was made. */
    private record Checked(Verified verified, long size, long modifiedMillis) {
        boolean stillMatches() {
            try {
                return Files.size(verified.file()) == size
                        && Files.getLastModifiedTime(verified.file()).toMillis() == modifiedMillis;
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** The digest the tarball must have: pinned in the spec, or from the release's SHA256SUMS. */
    public String expectedDigest(ReleaseArtifact artifact) {
        if (artifact.pinnedSha256().isPresent()) {
            return artifact.pinnedSha256().get().toLowerCase();
        }
        String sumsUrl = artifact.checksumsUrl().orElseThrow(() -> new IllegalStateException(
                "no sha256 for etcd " + artifact.version() + ": set artifacts.sha256 or artifacts.checksumsUrl"));
        String sums;
        try (Opened opened = open(sumsUrl)) {
            sums = new String(opened.in().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read checksums " + sumsUrl + ": " + e.getMessage(), e);
        }
        return artifact.digestIn(sums).orElseThrow(() -> new IllegalStateException(
                sumsUrl + " lists no sha256 for " + artifact.fileName()));
    }

    /**
     * Whether the source offers this release: a tarball already verified here, or a HEAD of its URL
     * that answers 200 (a file URL that exists). Asked before a minor upgrade, which should start
     * from the newest patch of the current minor; an unreachable source offers nothing.
     */
    public boolean offers(ReleaseArtifact artifact) {
        if (Files.isRegularFile(dir.resolve(artifact.fileName()))) {
            return true;
        }
        try {
            URI uri = URI.create(artifact.url());
            if ("file".equals(uri.getScheme())) {
                return Files.isRegularFile(Path.of(uri));
            }
            HttpURLConnection http = (HttpURLConnection) uri.toURL().openConnection();
            try {
                http.setRequestMethod("HEAD");
                http.setInstanceFollowRedirects(true);
                http.setConnectTimeout((int) PROBE_TIMEOUT.toMillis());
                http.setReadTimeout((int) PROBE_TIMEOUT.toMillis());
                return http.getResponseCode() == 200;
            } finally {
                http.disconnect();
            }
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    private static String expectedSource(ReleaseArtifact artifact) {
        return artifact.pinnedSha256().isPresent() ? "artifacts.sha256" : artifact.checksumsUrl().orElse("");
    }

    /**
     * A blocking HttpURLConnection, not java.net.http.HttpClient: the latter keeps a selector
     * thread waiting in native code, and a JVM that exits while any thread is in native code
     * waits 300 ms for it (HotSpot's VM_Exit), on every command that downloaded anything.
     * Redirects are followed within the same scheme (GitHub's release downloads: https to https).
     */
    private static Opened open(String url) throws IOException {
        URI uri = URI.create(url);
        if ("file".equals(uri.getScheme())) {
            Path file = Path.of(uri);
            return new Opened(Files.newInputStream(file), Files.size(file));
        }
        HttpURLConnection http = (HttpURLConnection) uri.toURL().openConnection();
        http.setInstanceFollowRedirects(true);
        http.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
        http.setReadTimeout((int) READ_TIMEOUT.toMillis());
        int status = http.getResponseCode();
        if (status != 200) {
            http.disconnect();
            throw new IOException("HTTP " + status);
        }
        return new Opened(http.getInputStream(), http.getContentLengthLong());
    }

    /** A download's stream and its length (-1 when the server does not say). */
    private record Opened(InputStream in, long length) implements java.io.Closeable {
        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** No byte for this long means the download is stuck. */
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(1);

    private static String digest(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return HostSession.sha256(in);
        }
    }
}
