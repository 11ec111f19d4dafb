package io.etcdwright.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One etcd member on the workstation's loopback, for tests that need a real etcd and no test
 * host: clients by mutual TLS on 127.0.0.1:CLIENT_PORT (the server certificate, key and CA a test
 * issues, as apply would), peers by plain HTTP on 127.0.0.1:PEER_PORT (a single member has none).
 * The binary is the one the testbed's release build made (testbed/testbed releases, cached under
 * $TESTBED_ETCD_BUILDS), unpacked into the test's directory: found there, never built here.
 */
final class LocalEtcd implements AutoCloseable {
    static final Path BUILDS = Path.of(System.getenv().getOrDefault("TESTBED_ETCD_BUILDS", "/var/tmp/etcdwright-etcd-builds"));

    /** The server's TLS files: its pair and the CA its clients' certificates must be issued by. */
    record Tls(Path cert, Path key, Path trustedCa) {
    }

    private final Path binary;
    private final Path dataDir;
    private final Path log;
    private final int clientPort;
    private final int peerPort;
    private final Tls tls;
    private Process process;

    private LocalEtcd(Path binary, Path dataDir, Path log, int clientPort, int peerPort, Tls tls) {
        this.binary = binary;
        this.dataDir = dataDir;
        this.log = log;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.tls = tls;
    }

    /** The newest release tarball of {@code minor} ("3.6") the testbed's build cache holds; fails the test when none. */
    static Path newestTarball(String minor) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> stamps = Files.newDirectoryStream(BUILDS)) {
            for (Path stamp : stamps) {
                try (DirectoryStream<Path> versions = Files.newDirectoryStream(stamp, "v" + minor + ".*")) {
                    for (Path version : versions) {
                        Path tarball = version.resolve("etcd-" + version.getFileName() + "-linux-amd64.tar.gz");
                        if (Files.isRegularFile(tarball)) {
                            found.add(tarball);
                        }
                    }
                } catch (IOException e) {
                    // not a build stamp directory (a lock or log file)
                }
            }
        } catch (IOException e) {
            throw new AssertionError("no etcd builds in " + BUILDS + " (testbed/testbed releases makes them): " + e);
        }
        return found.stream().max(Comparator.comparing(LocalEtcd::patch)).orElseThrow(() -> new AssertionError(
                "no etcd " + minor + ".x built in " + BUILDS + ": run testbed/testbed releases (it builds 3.6 with Go)"));
    }

    /** "3.6.16" of .../v3.6.16/etcd-v3.6.16-linux-amd64.tar.gz. */
    static String version(Path tarball) {
        return tarball.getParent().getFileName().toString().substring(1);
    }

    private static int patch(Path tarball) {
        String v = version(tarball);
        return Integer.parseInt(v.substring(v.lastIndexOf('.') + 1));
    }

    /** Unpacks {@code tarball} into {@code dir} and starts a new member with {@code tls}; its log is {@code log}. */
    static LocalEtcd start(Path tarball, Path dir, Path log, int clientPort, int peerPort, Tls tls) {
        try {
            Path bin = Files.createDirectories(dir.resolve("bin"));
            Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", bin.toString(), "--strip-components=1")
                    .redirectErrorStream(true).start();
            String said = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (tar.waitFor() != 0) {
                throw new AssertionError("cannot unpack " + tarball + ": " + said);
            }
            LocalEtcd etcd = new LocalEtcd(bin.resolve("etcd"), dir.resolve("data"), log, clientPort, peerPort, tls);
            Files.createDirectories(log.getParent());
            Files.deleteIfExists(log);   // restarts append; an earlier run's lines would mislead
            etcd.launch();
            return etcd;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    String clientUrl() {
        return "https://127.0.0.1:" + clientPort;
    }

    private List<String> commandLine() {
        String peer = "http://127.0.0.1:" + peerPort;
        return List.of(binary.toString(), "--name=h1", "--data-dir=" + dataDir,
                "--listen-client-urls=" + clientUrl(), "--advertise-client-urls=" + clientUrl(),
                "--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer, "--initial-cluster=h1=" + peer,
                "--initial-cluster-state=new", "--initial-cluster-token=etcdwright-local",
                "--client-cert-auth", "--trusted-ca-file=" + tls.trustedCa(), "--cert-file=" + tls.cert(), "--key-file=" + tls.key());
    }

    private void launch() throws IOException {
        Files.writeString(log, "=== " + java.time.Instant.now() + " " + String.join(" ", commandLine()) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        process = new ProcessBuilder(commandLine()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        process.getOutputStream().close();
    }

    /** SIGTERM (etcd then closes its WAL cleanly, as systemctl stop does), SIGKILL after 10 s. */
    void stop() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Stops the member, leaves it down for {@code down}, and starts it again on its data. */
    void restart(Duration down) {
        stop();
        try {
            Thread.sleep(down.toMillis());
            launch();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    Path log() {
        return log;
    }

    @Override
    public void close() {
        stop();
    }
}
