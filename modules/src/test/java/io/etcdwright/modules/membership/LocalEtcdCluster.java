package io.etcdwright.modules.membership;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Real etcd processes with mutual TLS on clients and peers, bound to 127.0.0.1 only, on ports
 * picked at random between 20000 and 30000 (checked free first). Every process started is killed
 * by {@link #close()}, which tests call from try-with-resources or an {@code @AfterAll}; a JVM
 * shutdown hook kills them too if the JVM goes down some other way.
 */
final class LocalEtcdCluster implements AutoCloseable {
    static final String LOOPBACK = "127.0.0.1";

    /** One member: its name, ports and files. */
    record Node(String name, int clientPort, int peerPort, Path dataDir, Path log) {
        String clientUrl() {
            return "https://" + LOOPBACK + ":" + clientPort;
        }

        String peerUrl() {
            return "https://" + LOOPBACK + ":" + peerPort;
        }
    }

    private final Path etcd;
    private final boolean unsafeNoFsync;
    private final Path dir;
    private final Path caCert;
    private final Path serverCert;
    private final Path serverKey;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Set<Integer> portsTaken = new HashSet<>();
    private final Thread shutdownHook = new Thread(this::killAll, "kill-test-etcd");

    private LocalEtcdCluster(Path etcd, String version, Path dir, Path caCert, Path serverCert, Path serverKey) {
        this.etcd = etcd;
        this.unsafeNoFsync = !version.startsWith("3.4.");
        this.dir = dir;
        this.caCert = caCert;
        this.serverCert = serverCert;
        this.serverKey = serverKey;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts {@code size} members as a new cluster and waits until every one serves clients.
     * {@code version} is what {@code etcd --version} said; it decides which flags etcd knows.
     */
    static LocalEtcdCluster start(Path etcd, String version, Path dir, Path caCert, Path serverCert, Path serverKey,
            int size, Duration readyWithin) throws IOException, InterruptedException {
        LocalEtcdCluster cluster = new LocalEtcdCluster(etcd, version, dir, caCert, serverCert, serverKey);
        try {
            List<Node> initial = new ArrayList<>();
            for (int i = 1; i <= size; i++) {
                initial.add(cluster.newNode("m" + i));
            }
            String initialCluster = initial.stream().map(n -> n.name() + "=" + n.peerUrl())
                    .collect(Collectors.joining(","));
            for (Node n : initial) {
                cluster.launch(n, initialCluster, "new");
            }
            for (Node n : initial) {
                cluster.awaitReady(n, readyWithin);
            }
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** A name and free ports for a member not started yet (say, before adding it as a learner). */
    Node newNode(String name) throws IOException {
        Node n = new Node(name, freePort(), freePort(), dir.resolve(name + ".data"), dir.resolve(name + ".log"));
        nodes.put(name, n);
        return n;
    }

    /** Starts a member that was added to the running cluster (state "existing"). */
    void join(Node n, Duration readyWithin) throws IOException, InterruptedException {
        String initialCluster = nodes.values().stream().map(m -> m.name() + "=" + m.peerUrl())
                .collect(Collectors.joining(","));
        launch(n, initialCluster, "existing");
        awaitReady(n, readyWithin);
    }

    List<Node> nodes() {
        return List.copyOf(nodes.values());
    }

    Node node(String name) {
        return nodes.get(name);
    }

    List<String> clientUrls() {
        return processes.keySet().stream().map(name -> nodes.get(name).clientUrl()).collect(Collectors.toList());
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill(String name) throws InterruptedException {
        Process p = processes.get(name);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGSTOP: the process keeps its sockets (the kernel still accepts connections) but answers nothing. */
    void freeze(String name) throws IOException, InterruptedException {
        signal(name, "STOP");
    }

    /** SIGCONT after {@link #freeze}. */
    void thaw(String name) throws IOException, InterruptedException {
        signal(name, "CONT");
    }

    private void signal(String name, String signal) throws IOException, InterruptedException {
        long pid = processes.get(name).pid();
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
        }
    }

    /** The last lines of a member's log, for failure messages. */
    String logTail(String name, int lines) {
        try {
            List<String> all = Files.readAllLines(nodes.get(name).log(), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    private synchronized void killAll() {
        for (Process p : processes.values()) {
            p.destroyForcibly(); // SIGKILL ends a SIGSTOPped process too
        }
        for (Process p : processes.values()) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private synchronized void launch(Node n, String initialCluster, String state) throws IOException {
        List<String> command = new ArrayList<>(List.of(etcd.toString(),
                "--name", n.name(),
                "--data-dir", n.dataDir().toString(),
                "--listen-client-urls", n.clientUrl(),
                "--advertise-client-urls", n.clientUrl(),
                "--listen-peer-urls", n.peerUrl(),
                "--initial-advertise-peer-urls", n.peerUrl(),
                "--initial-cluster", initialCluster,
                "--initial-cluster-state", state,
                "--initial-cluster-token", "etcdwright-test-" + dir.getFileName(),
                "--cert-file", serverCert.toString(),
                "--key-file", serverKey.toString(),
                "--trusted-ca-file", caCert.toString(),
                "--client-cert-auth",
                "--peer-cert-file", serverCert.toString(),
                "--peer-key-file", serverKey.toString(),
                "--peer-trusted-ca-file", caCert.toString(),
                "--peer-client-cert-auth"));
        if (unsafeNoFsync) {
            // Test data only: skip fsync so a slow disk does not slow elections down (etcd 3.5+).
            command.add("--unsafe-no-fsync");
        }
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(n.log().toFile()));
        // etcd reads ETCD_* variables as flags; ETCD_BIN (how a developer points the tests at etcd) is none.
        pb.environment().keySet().removeIf(k -> k.startsWith("ETCD_"));
        processes.put(n.name(), pb.start());
    }

    private void awaitReady(Node n, Duration within) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        Process p = processes.get(n.name());
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("etcd " + n.name() + " exited with " + p.exitValue() + ":\n"
                        + logTail(n.name(), 30));
            }
            if (Files.exists(n.log())
                    && Files.readString(n.log(), StandardCharsets.UTF_8).contains("ready to serve client requests")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("etcd " + n.name() + " not ready within " + within + ":\n"
                + logTail(n.name(), 30));
    }

    /** A port in [20000, 30000) that nothing on 127.0.0.1 listens on right now. */
    int freePort() throws IOException {
        for (int tries = 0; tries < 200; tries++) {
            int port = ThreadLocalRandom.current().nextInt(20000, 30000);
            if (portsTaken.contains(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port));
                portsTaken.add(port);
                return port;
            } catch (IOException inUse) {
                // try another
            }
        }
        throw new IOException("no free port between 20000 and 30000 on " + LOOPBACK);
    }
}
