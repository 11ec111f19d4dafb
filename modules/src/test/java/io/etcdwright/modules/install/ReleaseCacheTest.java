package io.etcdwright.modules.install;

import io.etcdwright.engine.ssh.HostSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The workstation's release cache: one download and one verification serve every host of a run. */
class ReleaseCacheTest {
    @TempDir
    Path dir;

    @Test
    void aReleaseIsDownloadedAndVerifiedOncePerRunAndAgainWhenTheFileChanges() throws Exception {
        byte[] content = "pretend tarball".getBytes();
        Path served = Files.write(dir.resolve("etcd-v3.5.16-linux-amd64.tar.gz"), content);
        String sha = HostSession.sha256(content);
        Path sums = Files.writeString(dir.resolve("SHA256SUMS"), sha + "  etcd-v3.5.16-linux-amd64.tar.gz\n");
        ReleaseArtifact artifact = new ReleaseArtifact("3.5.16", "amd64", served.toUri().toString(),
                Optional.of(sums.toUri().toString()), Optional.empty());
        ReleaseCache cache = new ReleaseCache(dir.resolve("cache"));

        ReleaseCache.Verified first = cache.obtain(artifact);
        assertEquals(sha, first.sha256());
        assertTrue(Files.exists(first.file()));
        // The second host of the run: neither the checksums file nor the tarball is read again.
        Files.delete(sums);
        Files.delete(served);
        assertEquals(first, cache.obtain(artifact));

        // The cached file changed under the run: it is verified again (and here refused, since the
        // checksums file is gone and the download too).
        Files.write(first.file(), "tampered".getBytes());
        Files.setLastModifiedTime(first.file(), FileTime.fromMillis(0));
        assertThrows(RuntimeException.class, () -> cache.obtain(artifact));
    }

    @Test
    void aCachedTarballWithAWrongDigestIsDownloadedAgain() throws Exception {
        byte[] content = "the real tarball".getBytes();
        Path served = Files.write(dir.resolve("served.tgz"), content);
        ReleaseArtifact artifact = new ReleaseArtifact("3.5.16", "amd64", served.toUri().toString(),
                Optional.empty(), Optional.of(HostSession.sha256(content)));
        Path cacheDir = Files.createDirectories(dir.resolve("cache"));
        Files.writeString(cacheDir.resolve(artifact.fileName()), "stale or damaged");
        ReleaseCache.Verified v = new ReleaseCache(cacheDir).obtain(artifact);
        assertEquals("the real tarball", Files.readString(v.file()));
    }

    @Test
    void releasesAndChecksumsAreDownloadedOverHttpAndAMissingOneIsAnError() throws Exception {
        byte[] content = "served over http".getBytes();
        String sums = HostSession.sha256(content) + "  etcd-v3.5.16-linux-amd64.tar.gz\n";
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            byte[] body = path.endsWith("SHA256SUMS") ? sums.getBytes() : path.endsWith(".tar.gz") ? content : null;
            if (path.startsWith("/old/")) {
                exchange.getResponseHeaders().add("Location", path.replaceFirst("^/old/", "/"));
                exchange.sendResponseHeaders(302, -1);
            } else if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            ReleaseArtifact artifact = ReleaseArtifact.of("3.5.16", "amd64", base + "/old/v{version}/etcd-v{version}-linux-{arch}.tar.gz",
                    Optional.of(base + "/v{version}/SHA256SUMS"), Optional.empty());
            ReleaseCache.Verified v = new ReleaseCache(dir.resolve("cache")).obtain(artifact);
            assertEquals("served over http", Files.readString(v.file()));
            ReleaseArtifact missing = ReleaseArtifact.of("3.5.16", "amd64", base + "/nothing-here",
                    Optional.empty(), Optional.of(HostSession.sha256(content)));
            RuntimeException e = assertThrows(RuntimeException.class, () -> new ReleaseCache(dir.resolve("other")).obtain(missing));
            assertTrue(e.getMessage().contains("HTTP 404"), e.getMessage());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aSourceOffersWhatItServesOverHttpOrAsAFile() throws Exception {
        com.sun.net.httpserver.HttpServer http = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        java.util.List<String> methods = new java.util.concurrent.CopyOnWriteArrayList<>();
        http.createContext("/", exchange -> {
            methods.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            boolean offered = exchange.getRequestURI().getPath().contains("v3.4.27");
            exchange.sendResponseHeaders(offered ? 200 : 404, -1);
            exchange.close();
        });
        http.start();
        try {
            String template = "http://127.0.0.1:" + http.getAddress().getPort() + "/v{version}/etcd-v{version}-linux-{arch}.tar.gz";
            ReleaseCache cache = new ReleaseCache(dir.resolve("cache"));
            assertTrue(cache.offers(ReleaseArtifact.of("3.4.27", "amd64", template, Optional.empty(), Optional.empty())));
            assertTrue(!cache.offers(ReleaseArtifact.of("3.4.28", "amd64", template, Optional.empty(), Optional.empty())));
            // Asked with HEAD: nothing is downloaded to find out.
            assertEquals(java.util.List.of("HEAD /v3.4.27/etcd-v3.4.27-linux-amd64.tar.gz",
                    "HEAD /v3.4.28/etcd-v3.4.28-linux-amd64.tar.gz"), methods);
        } finally {
            http.stop(0);
        }
        Path file = Files.write(dir.resolve("etcd-v3.4.30-linux-amd64.tar.gz"), new byte[] {1});
        ReleaseCache cache = new ReleaseCache(dir.resolve("cache"));
        assertTrue(cache.offers(new ReleaseArtifact("3.4.30", "amd64", file.toUri().toString(), Optional.empty(), Optional.empty())));
        assertTrue(!cache.offers(new ReleaseArtifact("3.4.31", "amd64", dir.resolve("missing.tar.gz").toUri().toString(),
                Optional.empty(), Optional.empty())));
        // Nothing answers: not offered, quickly.
        assertTrue(!cache.offers(ReleaseArtifact.of("3.4.29", "amd64", "http://127.0.0.1:1/{version}", Optional.empty(),
                Optional.empty())));
    }
}
