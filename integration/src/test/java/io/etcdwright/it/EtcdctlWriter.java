package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An independent client writing throughout: upstream's etcdctl binary (3.4.23 from Debian, which
 * speaks etcd's v3 API to every version here), configured only by what 'etcdwright client-env'
 * printed, one {@code etcdctl put} process after another on its own thread. A put it saw
 * acknowledged (exit 0 and a revision in its JSON answer) is logged with its revision; at the end
 * every one must be in the cluster with its value ({@link #lost}). Nothing here shares code or a
 * connection with etcdwright or with the write-load harness.
 */
final class EtcdctlWriter implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path etcdctl;
    private final Map<String, String> env;
    private final String prefix = "independent-" + Long.toHexString(System.nanoTime()) + "/";
    private final Map<String, Long> acked = new LinkedHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger failed = new AtomicInteger();
    private final Writer log;
    private final Thread thread;

    private EtcdctlWriter(Path etcdctl, Map<String, String> env, Path logFile) throws IOException {
        this.etcdctl = etcdctl;
        this.env = env;
        Files.createDirectories(logFile.getParent());
        this.log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
        this.thread = new Thread(this::write, "etcdctl-writer");
    }

    /** Starts writing {@code PREFIX/N = value-N}, N = 0, 1, 2, ... through etcdctl at {@code etcdctl}. */
    static EtcdctlWriter start(Path etcdctl, Map<String, String> env, Path logFile) throws IOException {
        EtcdctlWriter w = new EtcdctlWriter(etcdctl, env, logFile);
        w.thread.setDaemon(true);
        w.thread.start();
        return w;
    }

    private void write() {
        for (int n = 0; !stop.get(); n++) {
            String key = prefix + n;
            Testbed.Result put = run("put", key, "value-" + n, "-w", "json");
            long revision = -1;
            if (put.exitCode() == 0) {
                try {
                    revision = JSON.readTree(put.stdout()).path("header").path("revision").asLong(-1);
                } catch (IOException e) {
                    revision = -1;
                }
            }
            synchronized (this) {
                try {
                    if (revision > 0) {
                        acked.put(key, revision);
                        log.write(key + " " + revision + "\n");
                    } else {
                        failed.incrementAndGet();
                        log.write(key + " not acknowledged: exit " + put.exitCode() + " " + put.stderr().strip() + "\n");
                    }
                    log.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
    }

    /** How many puts were acknowledged so far. */
    synchronized int acknowledged() {
        return acked.size();
    }

    /** Stops after the put in flight; returns the acknowledged keys with their revisions. */
    Map<String, Long> stop() throws InterruptedException {
        stop.set(true);
        thread.join(30_000);
        synchronized (this) {
            return new LinkedHashMap<>(acked);
        }
    }

    int failedPuts() {
        return failed.get();
    }

    /**
     * What the cluster holds now (a linearizable get of the prefix through the same etcdctl), checked
     * against {@code acked}: each acknowledged key missing or with another value, as "KEY: why".
     */
    List<String> lost(Map<String, Long> acked) throws IOException {
        Testbed.Result get = run("get", prefix, "--prefix", "-w", "json");
        if (get.exitCode() != 0) {
            throw new AssertionError("etcdctl get failed: " + get.stderr());
        }
        Map<String, String> held = new LinkedHashMap<>();
        for (JsonNode kv : JSON.readTree(get.stdout()).path("kvs")) {
            held.put(decode(kv.path("key").asText()), decode(kv.path("value").asText()));
        }
        List<String> lost = new ArrayList<>();
        acked.forEach((key, revision) -> {
            String want = "value-" + key.substring(prefix.length());
            if (!want.equals(held.get(key))) {
                lost.add(key + " (acknowledged at revision " + revision + "): " + (held.containsKey(key) ? "holds " + held.get(key)
                        : "missing"));
            }
        });
        return lost;
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    private Testbed.Result run(String... args) {
        List<String> cmd = new ArrayList<>(List.of(etcdctl.toString(), "--dial-timeout=2s", "--command-timeout=3s"));
        cmd.addAll(List.of(args));
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().keySet().removeIf(k -> k.startsWith("ETCDCTL_"));
            pb.environment().putAll(env);
            Path err = Files.createTempFile("etcdctl-writer", ".err");
            pb.redirectError(err.toFile());
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int code = p.waitFor();
            String errText = Files.readString(err);
            Files.delete(err);
            return new Testbed.Result(code, out, errText);
        } catch (IOException e) {
            return new Testbed.Result(-1, "", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Testbed.Result(-1, "", "interrupted");
        }
    }

    @Override
    public void close() throws IOException {
        stop.set(true);
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            log.close();
        }
    }
}
