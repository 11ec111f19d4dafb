package io.etcdwright.it;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real S3 API server for tests: S3Proxy (org.gaul:s3proxy 4.1.0, fetched by scripts/setup)
 * as its own java process, never on our class path. Signatures are checked (a wrong secret gets
 * 403), objects are files under a temporary basedir, the port is whatever is free on the given
 * address (127.0.0.1 for workstation tests, the testbed bridge for hosts). Each run writes a pid
 * file; a later run stops a server a killed test JVM left behind (only when that JVM is gone,
 * and only that process: its pid and its command line, naming that run's properties file, must match).
 */
final class S3Proxy implements AutoCloseable {
    static final Path JAR = Path.of(System.getenv().getOrDefault("S3PROXY_JAR",
            "/var/tmp/etcdwright-s3proxy/s3proxy-4.1.0-jar-with-dependencies.jar"));
    static final Path RUNS = Path.of(System.getProperty("java.io.tmpdir"), "etcdwright-s3proxy-runs");
    static final Path KEPT_LOGS = Testbed.ROOT.resolve("integration/target/s3proxy-logs");
    static final String BUCKET = "etcdwright-it";

    private final Path dir;
    private volatile Process process;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final Thread onExit;
    private volatile boolean failed;

    private S3Proxy(Path dir, Process process, URI endpoint, String accessKey, String secretKey) {
        this.dir = dir;
        this.process = process;
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.onExit = new Thread(this::stop, "s3proxy-stop");
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /** Starts a server on a free port of {@code address}, waits until it answers, and creates {@link #BUCKET}. */
    static S3Proxy start(String address) throws IOException, InterruptedException {
        if (!Files.isRegularFile(JAR)) {
            throw new AssertionError("S3Proxy is not at " + JAR + ": run scripts/setup (or set S3PROXY_JAR)");
        }
        stopLeftovers();
        // A free port can be taken between our probe and the server's bind: try a few.
        AssertionError last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return startOnce(address);
            } catch (PortTaken e) {
                last = new AssertionError(e.getMessage());
            }
        }
        throw last;
    }

    private static final class PortTaken extends IOException {
        PortTaken(String message) {
            super(message);
        }
    }

    private static S3Proxy startOnce(String address) throws IOException, InterruptedException {
        Files.createDirectories(RUNS);
        Path dir = Files.createTempDirectory(RUNS, "run-");
        Path basedir = Files.createDirectories(dir.resolve("data"));
        int port = freePort(address);
        URI endpoint = URI.create("http://" + address + ":" + port);
        String accessKey = "it" + random(8);
        String secretKey = random(20);
        Path properties = dir.resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=" + endpoint,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + accessKey,
                "s3proxy.credential=" + secretKey,
                "jclouds.provider=filesystem-nio2",
                "jclouds.filesystem.basedir=" + basedir,
                ""));
        Path log = dir.resolve("s3proxy.log");
        Process p = new ProcessBuilder(javaBinary(), "-Xmx256m", "-jar", JAR.toString(), "--properties", properties.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Files.writeString(dir.resolve("pid"), Long.toString(p.pid()));
        Files.writeString(dir.resolve("owner"), Long.toString(ProcessHandle.current().pid()));
        S3Proxy proxy = new S3Proxy(dir, p, endpoint, accessKey, secretKey);
        try {
            proxy.awaitAnswer(log);
            try (S3Client s3 = proxy.client()) {
                s3.createBucket(b -> b.bucket(BUCKET));
            }
            return proxy;
        } catch (IOException | RuntimeException | Error | InterruptedException e) {
            proxy.failed = true;
            proxy.close();
            throw e;
        }
    }

    private void awaitAnswer(Path log) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                String text = Files.readString(log);
                if (text.contains("Address already in use")) {
                    throw new PortTaken(endpoint + " was taken before S3Proxy bound it");
                }
                throw new AssertionError("S3Proxy exited with " + process.exitValue() + " before answering; its log:\n" + tail(text));
            }
            try {
                HttpURLConnection c = (HttpURLConnection) endpoint.toURL().openConnection();
                c.setConnectTimeout(500);
                c.setReadTimeout(2000);
                int status = c.getResponseCode(); // anonymous: 403, which is an answer
                c.disconnect();
                if (status > 0) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("S3Proxy did not answer at " + endpoint + " within 60 s; its log:\n" + tail(Files.readString(log)));
    }

    /** SIGKILLs the server, as a crash would: its objects, port and credentials stay for {@link #restart()}. */
    synchronized void kill() {
        Process p = process;
        Stream.concat(p.toHandle().descendants(), Stream.of(p.toHandle())).forEach(ProcessHandle::destroyForcibly);
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while killing S3Proxy", e);
        }
    }

    /** Starts the server again after {@link #kill()}: same objects, port and credentials; waits until it answers. */
    synchronized void restart() throws IOException, InterruptedException {
        if (process.isAlive()) {
            throw new IllegalStateException("S3Proxy still runs: kill() it first");
        }
        Path log = dir.resolve("s3proxy.log");
        process = new ProcessBuilder(javaBinary(), "-Xmx256m", "-jar", JAR.toString(), "--properties",
                dir.resolve("s3proxy.properties").toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        Files.writeString(dir.resolve("pid"), Long.toString(process.pid()));
        awaitAnswer(log);
    }

    /** A client with this server's credentials, for setting up and inspecting from tests. */
    S3Client client() {
        return S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
    }

    URI endpoint() {
        return endpoint;
    }

    String accessKey() {
        return accessKey;
    }

    String secretKey() {
        return secretKey;
    }

    long pid() {
        return process.pid();
    }

    /** Keep the server's log (in integration/target/s3proxy-logs) when it stops. */
    void markFailed() {
        failed = true;
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or will
        }
        stop();
    }

    private synchronized void stop() {
        stopTree(process.toHandle());
        Path log = dir.resolve("s3proxy.log");
        if (failed && Files.exists(log)) {
            try {
                Files.createDirectories(KEPT_LOGS);
                Path kept = KEPT_LOGS.resolve(dir.getFileName() + ".log");
                Files.copy(log, kept, StandardCopyOption.REPLACE_EXISTING);
                System.err.println("S3Proxy's log is kept at " + kept);
            } catch (IOException e) {
                System.err.println("cannot keep S3Proxy's log " + log + ": " + e.getMessage());
            }
        }
        Testbed.deleteTree(dir);
    }

    private static void stopTree(ProcessHandle root) {
        List<ProcessHandle> all = Stream.concat(root.descendants(), Stream.of(root)).toList();
        all.forEach(ProcessHandle::destroy);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception notYet) {
                h.destroyForcibly();
            }
        }
    }

    /**
     * A run killed before its close leaves its server and directory behind: stop that server
     * (when the pid is still an S3Proxy with that run's properties file) and remove the directory.
     */
    private static void stopLeftovers() throws IOException {
        if (!Files.isDirectory(RUNS)) {
            return;
        }
        try (Stream<Path> runs = Files.list(RUNS)) {
            for (Path run : runs.toList()) {
                Path pidFile = run.resolve("pid");
                Optional<ProcessHandle> leftover = Optional.empty();
                if (Files.exists(pidFile)) {
                    long pid = Long.parseLong(Files.readString(pidFile).strip());
                    String properties = run.resolve("s3proxy.properties").toString();
                    leftover = ProcessHandle.of(pid).filter(h -> h.info().commandLine()
                            .map(c -> c.contains(JAR.getFileName().toString()) && c.contains(properties)).orElse(false));
                }
                if (ownerAlive(run)) {
                    continue; // a test JVM still running (another class here, or another checkout) uses it
                }
                leftover.ifPresent(S3Proxy::stopTree);
                Testbed.deleteTree(run);
            }
        }
    }

    private static boolean ownerAlive(Path run) throws IOException {
        Path owner = run.resolve("owner");
        if (!Files.exists(owner)) {
            // being set up this very moment, or from before owners were recorded: leave it unless old
            return Files.getLastModifiedTime(run).toInstant().isAfter(Instant.now().minus(Duration.ofMinutes(5)));
        }
        return ProcessHandle.of(Long.parseLong(Files.readString(owner).strip())).map(ProcessHandle::isAlive).orElse(false);
    }

    private static int freePort(String address) throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
            return s.getLocalPort();
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String random(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static String tail(String text) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
