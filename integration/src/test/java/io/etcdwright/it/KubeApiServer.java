package io.etcdwright.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A real kube-apiserver (integration/kube-apiserver: upstream's own main from k8s.io/kubernetes)
 * run on the workstation as a client of an etcd cluster, with exactly the etcd flags
 * {@code etcdwright kube-apiserver-flags} prints and, beside them, only what a test control plane
 * needs to start and be asked ({@link ControlPlaneFiles}, {@link #controlPlaneFlags}). Its output
 * goes to integration/target/kube-apiserver/NAME.log, appended across restarts, kept for failures.
 *
 * <p>Built by integration/kube-apiserver/build into a cache outside the checkout (scripts/setup
 * builds it; this finds it there in milliseconds, or builds it once, which takes minutes).
 *
 * <p>Needs no test host: it neither reads {@link Testbed}'s settings nor runs testbed/testbed, so
 * the root is read here from the same property.
 */
final class KubeApiServer implements AutoCloseable {
    static final Path ROOT = Path.of(System.getProperty("etcdwright.root", "..")).toAbsolutePath().normalize();
    static final Path LOGS = ROOT.resolve("integration/target/kube-apiserver");
    private static final Path BUILD = ROOT.resolve("integration/kube-apiserver/build");
    private static final Duration STOP_GRACE = Duration.ofSeconds(20);
    private static Path binary;

    private final String name;
    private final String address;
    private final int port;
    private final String etcdPrefix;
    private final ControlPlaneFiles files;
    private final Path log;
    private final KubeApi api;
    private List<String> etcdFlags;
    private Process process;

    private KubeApiServer(String name, String address, int port, ControlPlaneFiles files, List<String> etcdFlags) {
        this.name = name;
        this.address = address;
        this.port = port;
        this.files = files;
        this.etcdFlags = List.copyOf(etcdFlags);
        // Its own prefix per test: tests against one etcd never see each other's objects.
        this.etcdPrefix = "/etcdwright-it/" + name + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        this.log = LOGS.resolve(name + ".log");
        this.api = new KubeApi(URI.create("https://" + (address.contains(":") ? "[" + address + "]" : address) + ":" + port + "/"),
                files.token(), files.servingCa());
    }

    /** The binary, built by integration/kube-apiserver/build if this machine has not built it yet. */
    static synchronized Path binary() {
        if (binary == null) {
            try {
                Path err = Files.createTempFile("kube-apiserver-build", ".err");
                Process p = new ProcessBuilder(BUILD.toString()).redirectError(err.toFile()).start();
                p.getOutputStream().close();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                // The build holds its own lock for up to 30 minutes (another checkout building it).
                if (!p.waitFor(45, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new AssertionError(BUILD + " did not finish within 45 minutes");
                }
                String said = Files.readString(err);
                Files.delete(err);
                if (p.exitValue() != 0 || out.isBlank()) {
                    throw new AssertionError("cannot build kube-apiserver (" + BUILD + ", exit " + p.exitValue() + "): " + said + out);
                }
                binary = Path.of(out.strip());
            } catch (IOException e) {
                throw new AssertionError("cannot run " + BUILD + ": " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        return binary;
    }

    /**
     * The flags in what {@code etcdwright kube-apiserver-flags} printed: one {@code --etcd-*=value}
     * a line, as a manifest's command list takes them; anything else fails the test, since the
     * point is to give kube-apiserver exactly what etcdwright says and nothing of the test's own.
     */
    static List<String> etcdFlags(String printed) {
        List<String> flags = printed.lines().filter(l -> !l.isBlank()).toList();
        for (String flag : flags) {
            if (!flag.matches("--etcd-[a-z-]+=\\S.*")) {
                throw new AssertionError("not an etcd flag of kube-apiserver: '" + flag + "' in:\n" + printed);
            }
        }
        if (flags.stream().noneMatch(f -> f.startsWith("--etcd-servers="))) {
            throw new AssertionError("no --etcd-servers in:\n" + printed);
        }
        return flags;
    }

    /** Starts it on loopback, its files in {@code workDir}, under {@code name} (its log's and etcd prefix's name). */
    static KubeApiServer start(String name, List<String> etcdFlags, Path workDir) {
        return start(name, etcdFlags, workDir, "127.0.0.1");
    }

    /** As {@link #start(String, List, Path)}, listening on {@code address} (a free port there). */
    static KubeApiServer start(String name, List<String> etcdFlags, Path workDir, String address) {
        KubeApiServer server = new KubeApiServer(name, address, freePort(address),
                ControlPlaneFiles.create(workDir.resolve(name), address), etcdFlags);
        try {
            // A run's log starts empty: its restarts append, an earlier run's lines would mislead.
            Files.deleteIfExists(server.log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.launch();
        return server;
    }

    /**
     * What a control plane of one API server needs besides etcd, each for a reason:
     * <ul>
     * <li>--storage-backend=etcd3 (the only backend; said, not assumed) and --etcd-prefix: the test's own;
     * <li>--bind-address, --secure-port: a free port on the address asked for; --advertise-address the
     * same address: otherwise kube-apiserver advertises the address of the host's default route, and
     * without one (a CI container may have none) it refuses to start;
     * <li>--endpoint-reconciler-type=none, only with a loopback address: kube-apiserver refuses to
     * start advertising one with the reconciler of the 'kubernetes' Service's endpoints on ("cannot
     * use public IP 127.0.0.1 with endpoint reconciler: may not be in the loopback range"), as
     * upstream's own test server knows (it turns the reconciler off for loopback too); no test reads
     * that Service;
     * <li>--service-cluster-ip-range: kubeadm's; kube-apiserver's own default (10.0.0.0/24) is
     * deprecated and will go (it warns so at every start);
     * <li>--authorization-mode=RBAC, not the default AlwaysAllow: what real control planes run, and
     * it makes kube-apiserver write RBAC's bootstrap roles into etcd at every start and wait for them
     * in /readyz, so its start is a control plane's, not a lighter one; the test client is in
     * system:masters, which RBAC mode always allows;
     * <li>the token file, the service-account key pair and issuer (kube-apiserver refuses to start
     * without them), the serving pair ({@link ControlPlaneFiles}).
     * </ul>
     * No admission plugin is disabled: the default set needs no controller manager to admit
     * namespaces and ConfigMaps (NamespaceLifecycle looks a namespace up itself, ResourceQuota finds
     * no quota, ServiceAccount admits only pods).
     */
    List<String> controlPlaneFlags() {
        List<String> flags = new ArrayList<>(List.of(
                "--storage-backend=etcd3",
                "--etcd-prefix=" + etcdPrefix,
                "--bind-address=" + address,
                "--advertise-address=" + address,
                "--secure-port=" + port));
        if (isLoopback(address)) {
            flags.add("--endpoint-reconciler-type=none");
        }
        flags.add("--service-cluster-ip-range=10.96.0.0/12");
        flags.add("--authorization-mode=RBAC");
        flags.addAll(files.flags());
        return flags;
    }

    private static boolean isLoopback(String address) {
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + address, e);
        }
    }

    /** The whole command line: the binary, etcdwright's flags, then the control plane's. */
    List<String> commandLine() {
        List<String> command = new ArrayList<>();
        command.add(binary().toString());
        command.addAll(etcdFlags);
        command.addAll(controlPlaneFlags());
        return command;
    }

    private void launch() {
        try {
            Files.createDirectories(LOGS);
            List<String> command = commandLine();
            Files.writeString(log, "=== " + java.time.Instant.now() + " " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start kube-apiserver (log " + log + ")", e);
        }
    }

    private static int freePort(String address) {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(address))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + address, e);
        }
    }

    KubeApi api() {
        return api;
    }

    /** The etcd key prefix its objects live under (--etcd-prefix): a ConfigMap is PREFIX/configmaps/NS/NAME. */
    String etcdPrefix() {
        return etcdPrefix;
    }

    Path log() {
        return log;
    }

    List<String> etcdFlags() {
        return etcdFlags;
    }

    /**
     * Waits until /readyz answers 200 (every check: etcd reachable, the post-start hooks done,
     * RBAC's bootstrap roles written); fails with /readyz?verbose and the log's end when the process
     * ends or {@code within} passes first. Returns how long it took.
     */
    Duration awaitReady(Duration within) {
        long started = System.nanoTime();
        long deadline = started + within.toNanos();
        while (true) {
            if (api.readyz(Duration.ofSeconds(2)) == 200) {
                return Duration.ofNanos(System.nanoTime() - started);
            }
            if (!process.isAlive()) {
                throw new AssertionError("kube-apiserver exited " + process.exitValue() + " before it was ready:\n" + logTail());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("kube-apiserver not ready within " + within + ":\n" + api.readyzVerbose() + "\n" + logTail());
            }
            sleep(100);
        }
    }

    /** Stops it and starts it again with the same flags (its files and port kept). */
    void restart() {
        restartWith(etcdFlags);
    }

    /** Stops it and starts it with {@code newEtcdFlags} (what etcdwright prints after a change), the rest kept. */
    void restartWith(List<String> newEtcdFlags) {
        stop();
        etcdFlags = List.copyOf(newEtcdFlags);
        launch();
    }

    /** SIGTERM, as kubelet stops a static pod, then SIGKILL after {@link #STOP_GRACE}. Returns its exit status. */
    int stop() {
        if (process == null) {
            return 0;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        return process.exitValue();
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** The log's last lines, for a failure message. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "... " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
