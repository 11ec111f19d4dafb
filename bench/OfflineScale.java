import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.cli.Main;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KeyAlgorithm;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Offline planning at scale (issue 8, item 6): a fleet of recorded facts planned with
 * {@code etcdwright plan --facts} in one JVM, as {@code bench/offline-scale} runs it.
 *
 * <pre>
 *   java -cp cli/target/etcdwright.jar bench/OfflineScale.java generate SEED_DIR FLEET_DIR
 *   java -Xmx512m -cp cli/target/etcdwright.jar bench/OfflineScale.java plan FLEET_DIR
 * </pre>
 *
 * generate: 200 clusters of 3, 5 and 7 members (1,000 hosts), each with its own inventory, spec,
 * workstation PKI (issued here, with the production ClusterPki) and facts file, derived from the
 * facts recorded on real test hosts in SEED_DIR by renaming the cluster, its hosts and addresses
 * everywhere the raw probe outputs hold them (config file, unit file, member list, hostname) and
 * putting the newly issued certificates' contents and the keys' digests where the recorded ones
 * were. Some clusters are drifted: a member's etcd stopped (recorded so), its host unreachable, a
 * config file edited on a host, the spec's settings changed. FLEET_DIR/expected lists which plans
 * must have changes.
 *
 * plan: calls the CLI's in-process entry (Main.run, no System.exit) once per cluster, in a fresh
 * JVM, and prints the wall time of all plans, the per-cluster median and max, the peak heap used
 * and how many plans had changes or were refused; exits 1 when a plan failed or differs from the expected kind.
 */
public class OfflineScale {
    static final int CLUSTERS = 200;
    static final ObjectMapper JSON = new ObjectMapper();
    static final String SEED_NET = "10.78.0.";

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("generate")) {
            generate(Path.of(args[1]), Path.of(args[2]));
        } else if (args.length == 2 && args[0].equals("plan")) {
            System.exit(plan(Path.of(args[1])));
        } else {
            System.err.println("usage: OfflineScale generate SEED_DIR FLEET_DIR | plan FLEET_DIR");
            System.exit(1);
        }
    }

    // ---------------------------------------------------------------- generate

    enum Drift { NONE, STOPPED, UNREACHABLE, CONFIG_EDITED, SPEC_CHANGED }

    /** 50 x 3 + 100 x 5 + 50 x 7 = 1,000 hosts. */
    static int size(int k) {
        return switch (k % 4) {
            case 0 -> 3;
            case 2 -> 7;
            default -> 5;
        };
    }

    /** 60 of 200 drifted; STOPPED and UNREACHABLE only on 5-member clusters (k odd), as recorded. */
    static Drift drift(int k) {
        return switch (k % 10) {
            case 1 -> Drift.STOPPED;
            case 3 -> Drift.UNREACHABLE;
            case 4 -> Drift.CONFIG_EDITED;
            case 7 -> Drift.SPEC_CHANGED;
            default -> Drift.NONE;
        };
    }

    static void generate(Path seeds, Path fleet) throws Exception {
        long t0 = System.nanoTime();
        Path home = fleet.resolve("home");
        Files.createDirectories(home);
        System.setProperty("etcdwright.home", home.toString());
        Map<String, JsonNode> seed = new LinkedHashMap<>();
        for (String s : List.of("three-converged", "five-converged", "five-h2-stopped", "seven-converged")) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(seeds.resolve(s + ".json.gz")))) {
                seed.put(s, JSON.readTree(in));
            }
        }
        String[] expected = new String[CLUSTERS];
        // Clusters are independent: made side by side, more of them than cores, as ClusterPki syncs
        // every key and certificate it writes to disk (5,200 files) and waits for that.
        java.util.concurrent.ForkJoinPool pool = new java.util.concurrent.ForkJoinPool(8);
        pool.submit(() -> java.util.stream.IntStream.range(0, CLUSTERS).parallel().forEach(k -> {
            try {
                expected[k] = cluster(k, seed, fleet);
            } catch (Exception e) {
                throw new IllegalStateException("cluster " + k + ": " + e, e);
            }
        })).get();
        pool.shutdown();
        Files.writeString(fleet.resolve("expected"), String.join("", expected));
        int hosts = java.util.stream.IntStream.range(0, CLUSTERS).map(OfflineScale::size).sum();
        System.out.printf("offline-scale: generated %d clusters, %d hosts in %s (%.1f s)%n", CLUSTERS, hosts, fleet,
                (System.nanoTime() - t0) / 1e9);
    }

    /** Writes cluster k's inventory, spec, PKI and facts; returns its line of FLEET_DIR/expected. */
    static String cluster(int k, Map<String, JsonNode> seed, Path fleet) throws Exception {
        int n = size(k);
        Drift drift = drift(k);
        String cluster = String.format("c%03d", k);
        Path dir = fleet.resolve(cluster);
        Files.createDirectories(dir);
        List<String> names = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            names.add(cluster + "-m" + i);
            addresses.add("10." + (100 + k / 250) + "." + (k % 250) + "." + (10 + i));
        }
        Files.writeString(dir.resolve("hosts.yaml"), inventory(names, addresses));
        Files.writeString(dir.resolve("spec.yaml"), spec(cluster, names, drift == Drift.SPEC_CHANGED));
        // The workstation PKI, issued as apply would have: CA, every member's own pairs, the clients
        // (which stay on the workstation: no host holds them).
        DesiredState desired = DesiredStateLoader.load(dir.resolve("hosts.yaml"), dir.resolve("spec.yaml"));
        ClusterPki pki = pki(desired);
        Map<String, Map<String, Path>> filesByHost = new LinkedHashMap<>();
        for (Member m : desired.members()) {
            ClusterPki.MemberIdentity id = new ClusterPki.MemberIdentity(m.name(), m.host().name(), m.address());
            Map<String, Path> files = new LinkedHashMap<>();
            files.put(HostCertificates.certPath(HostCertificates.CA), pki.caCertFile());
            for (String role : HostCertificates.KEYED) {
                boolean client = HostCertificates.isClient(role);
                ClusterPki.LocalPair pair = client ? pki.clientPair(role) : pki.memberPair(id, role);
                pki.ensure(pair, client ? pki.clientRequest(role) : pki.memberRequest(id, role));
                if (!client) {
                    files.put(HostCertificates.certPath(role), pair.cert());
                    files.put(HostCertificates.keyPath(role), pair.key());
                }
            }
            filesByHost.put(m.host().name(), files);
        }
        String seedName = switch (n) {
            case 3 -> "three-converged";
            case 7 -> "seven-converged";
            default -> drift == Drift.STOPPED || drift == Drift.UNREACHABLE ? "five-h2-stopped" : "five-converged";
        };
        ObjectNode doc = seed.get(seedName).deepCopy();
        String seedCluster = doc.path("cluster").asText();
        doc.put("cluster", cluster);
        ArrayNode hostList = (ArrayNode) doc.path("hosts");
        for (int i = 0; i < hostList.size(); i++) {
            ObjectNode h = (ObjectNode) hostList.get(i);
            int index = Integer.parseInt(h.path("host").asText().substring(1)) - 1;
            h.put("host", names.get(index));
            h.put("address", addresses.get(index));
            ObjectNode probes = (ObjectNode) h.path("probes");
            probes.put("system", probes.path("system").asText()
                    .replaceAll("(?m)^hostname=h\\d+$", Matcher.quoteReplacement("hostname=" + names.get(index))));
            probes.put("etcd_member", rename(probes.path("etcd_member").asText(), names, addresses));
            String seedFiles = probes.path("etcd_files").asText();
            ArrayNode seedArguments = (ArrayNode) h.path("probe_arguments").path("etcd_files");
            probes.put("etcd_files", files(seedFiles, seedArguments,
                    filesByHost.get(names.get(index)), seedCluster, cluster, names, addresses,
                    drift == Drift.CONFIG_EDITED && index == n - 1));
            // The seed's hosts held the shared client keys and no healthcheck client (an older
            // etcdwright); this fleet is as the current one leaves it: the member's own healthcheck client.
            probes.put("pki_files", healthcheckFiles(seedFiles, seedArguments, filesByHost.get(names.get(index))));
            ArrayNode pkiArguments = ((ObjectNode) h.path("probe_arguments")).putArray("pki_files");
            pkiArguments.add("content").add(HostCertificates.certPath(HostCertificates.HEALTHCHECK))
                    .add("digest").add(HostCertificates.keyPath(HostCertificates.HEALTHCHECK));
        }
        if (drift == Drift.UNREACHABLE) {
            // Host 2's etcd was stopped when recorded: now its host does not answer at all.
            ObjectNode down = JSON.createObjectNode();
            down.put("host", names.get(1));
            down.put("address", addresses.get(1));
            down.put("reachable", false);
            down.put("reason", "TIMEOUT");
            down.put("message", "connect timed out after 10 s");
            hostList.set(1, down);
        }
        // The parsed views beside the raw outputs are for people; loading ignores them. Their names
        // and addresses are renamed as text (in JSON strings only: base64 may hold "h1" too); the
        // certificate details they show stay the seed's.
        String text = renameStrings(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc), names, addresses);
        Files.writeString(dir.resolve("facts.json"), text);
        return cluster + " " + n + " " + drift + " "
                + (drift == Drift.NONE ? "no-changes" : drift == Drift.UNREACHABLE ? "refused" : "changes") + "\n";
    }

    static ClusterPki pki(DesiredState desired) {
        Pki p = desired.spec().tls().pki();
        Path dir = Path.of(System.getProperty("etcdwright.home"), "clusters", desired.spec().name(), "pki");
        return new ClusterPki(new ClusterPki.Settings(desired.spec().name(), dir, p.caCert(), p.caKey(),
                KeyAlgorithm.fromName(p.keyAlgorithm()), Duration.ofDays(p.validityDays()),
                Duration.ofDays(p.renewBeforeDays()), Duration.ofDays(p.caValidityDays()), p.extraSans()),
                Clock.systemUTC());
    }

    static final Pattern SEED_HOST = Pattern.compile("(?<![A-Za-z0-9_-])h([1-9])(?![A-Za-z0-9_-])");
    static final Pattern SEED_ADDRESS = Pattern.compile(Pattern.quote(SEED_NET) + "1([1-9])(?![0-9])");

    /** A seed host name as a whole JSON string: "h1", or \"h1\" within a string (the member list). */
    static final Pattern SEED_HOST_STRING = Pattern.compile("(\\\\?\")h([1-9])(\\\\?\")");

    /** The seed's host names as whole JSON strings and its addresses, renamed in a JSON text. */
    static String renameStrings(String json, List<String> names, List<String> addresses) {
        json = SEED_ADDRESS.matcher(json).replaceAll(m -> Matcher.quoteReplacement(addresses.get(Integer.parseInt(m.group(1)) - 1)));
        return SEED_HOST_STRING.matcher(json).replaceAll(m -> Matcher.quoteReplacement(
                m.group(1) + names.get(Integer.parseInt(m.group(2)) - 1) + m.group(3)));
    }

    /** The seed's host names (h1..h7, as whole words) and addresses (10.78.0.11..17) in plain text, renamed. */
    static String rename(String text, List<String> names, List<String> addresses) {
        text = SEED_ADDRESS.matcher(text).replaceAll(m -> Matcher.quoteReplacement(addresses.get(Integer.parseInt(m.group(1)) - 1)));
        return SEED_HOST.matcher(text).replaceAll(m -> Matcher.quoteReplacement(names.get(Integer.parseInt(m.group(1)) - 1)));
    }

    /**
     * The etcd_files probe's output ("@file I", "meta=...", "sha256=...", "content=BASE64" for
     * files probed by content) with the config and unit files renamed and the certificates and
     * keys those of this cluster's PKI.
     */
    static String files(String raw, ArrayNode arguments, Map<String, Path> pkiFiles, String seedCluster, String cluster,
                        List<String> names, List<String> addresses, boolean editConfig) throws IOException {
        StringBuilder out = new StringBuilder();
        String path = null;
        byte[] content = null;
        boolean dropped = false;
        for (String line : raw.split("\n", -1)) {
            if (!line.startsWith("@file ") && dropped) {
                continue; // a shared client's file: no host holds it
            }
            if (line.startsWith("@file ")) {
                int index = Integer.parseInt(line.substring(6).trim());
                path = arguments.get(2 * index + 1).asText();
                content = null;
                dropped = path.startsWith(HostCertificates.certPath(HostCertificates.ADMIN).replace(".crt", "."))
                        || path.startsWith(HostCertificates.certPath(HostCertificates.APISERVER).replace(".crt", "."));
                if (pkiFiles.containsKey(path)) {
                    content = Files.readAllBytes(pkiFiles.get(path));
                } else if (path.endsWith(".yml") || path.endsWith(".service")) {
                    content = null; // from the content line below
                }
                out.append(line).append('\n');
            } else if (line.startsWith("sha256=") && path != null) {
                if (content == null && (path.endsWith(".yml") || path.endsWith(".service"))) {
                    content = renamedFile(raw, line, path, seedCluster, cluster, names, addresses, editConfig);
                }
                out.append(content == null ? line : "sha256=" + sha256(content)).append('\n');
            } else if (line.startsWith("content=") && content != null) {
                out.append("content=").append(Base64.getEncoder().encodeToString(content)).append('\n');
            } else {
                out.append(line).append('\n');
            }
        }
        out.setLength(out.length() - 1);
        return out.toString();
    }

    /**
     * The pki_files probe's output for a host holding its own healthcheck client: the certificate
     * with the seed's server certificate's mode, owner and time, the key with its server key's.
     */
    static String healthcheckFiles(String seedRaw, ArrayNode seedArguments, Map<String, Path> pkiFiles) throws IOException {
        byte[] cert = Files.readAllBytes(pkiFiles.get(HostCertificates.certPath(HostCertificates.HEALTHCHECK)));
        byte[] key = Files.readAllBytes(pkiFiles.get(HostCertificates.keyPath(HostCertificates.HEALTHCHECK)));
        return "@file 0\n" + metaOf(seedRaw, seedArguments, HostCertificates.certPath(HostCertificates.SERVER)) + "\nsha256=" + sha256(cert)
                + "\ncontent=" + Base64.getEncoder().encodeToString(cert) + "\n@file 1\n"
                + metaOf(seedRaw, seedArguments, HostCertificates.keyPath(HostCertificates.SERVER)) + "\nsha256=" + sha256(key) + "\n";
    }

    /** The "meta=..." line of {@code path} in a files probe's output. */
    static String metaOf(String raw, ArrayNode arguments, String path) {
        for (int i = 1; i < arguments.size(); i += 2) {
            if (arguments.get(i).asText().equals(path)) {
                int at = raw.indexOf("@file " + (i / 2) + "\n");
                int start = raw.indexOf("meta=", at);
                return raw.substring(start, raw.indexOf('\n', start));
            }
        }
        throw new IllegalStateException(path + " is not in the seed's files");
    }

    /** The config or unit file whose sha256 line is {@code shaLine}, from its content line, renamed. */
    static byte[] renamedFile(String raw, String shaLine, String path, String seedCluster, String cluster,
                              List<String> names, List<String> addresses, boolean editConfig) {
        int at = raw.indexOf(shaLine);
        int start = raw.indexOf("\ncontent=", at) + "\ncontent=".length();
        int end = raw.indexOf('\n', start);
        String text = new String(Base64.getDecoder().decode(raw.substring(start, end < 0 ? raw.length() : end)),
                StandardCharsets.UTF_8);
        text = rename(text, names, addresses)
                .replace("initial-cluster-token: " + seedCluster + "-", "initial-cluster-token: " + cluster + "-")
                .replace("of cluster " + seedCluster + " ", "of cluster " + cluster + " ");
        if (editConfig && path.endsWith(".yml")) {
            text = text + "log-level: debug\n"; // edited by hand on the host
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String inventory(List<String> names, List<String> addresses) {
        StringBuilder s = new StringBuilder("all:\n  vars:\n    ansible_user: root\n  children:\n    etcd:\n      hosts:\n");
        for (int i = 0; i < names.size(); i++) {
            s.append("        ").append(names.get(i)).append(":\n          ansible_host: ").append(addresses.get(i)).append('\n');
        }
        return s.toString();
    }

    /** examples/five-node.yaml's settings; SPEC_CHANGED: another heartbeat, election timeout and quota. */
    static String spec(String cluster, List<String> names, boolean changed) {
        return "cluster:\n  name: " + cluster + "\n"
                + "members:\n  hosts: [" + String.join(", ", names) + "]\n"
                + "etcd:\n  version: 3.5.16\n  settings:\n"
                + "    heartbeat-interval: " + (changed ? 150 : 100) + "\n"
                + "    election-timeout: " + (changed ? 1500 : 1000) + "\n"
                + "    auto-compaction-mode: periodic\n"
                + "    auto-compaction-retention: \"8h\"\n"
                + "    quota-backend-bytes: " + (changed ? 4294967296L : 2147483648L) + "\n"
                + "artifacts:\n"
                + "  url: http://10.77.0.1:8799/v{version}/etcd-v{version}-linux-{arch}.tar.gz\n"
                + "  checksumsUrl: http://10.77.0.1:8799/v{version}/SHA256SUMS\n"
                + "tls:\n  pki:\n    keyAlgorithm: ecdsa-p256\n    validityDays: 365\n    renewBeforeDays: 30\n";
    }

    // ---------------------------------------------------------------- plan

    static int plan(Path fleet) throws IOException {
        System.setProperty("etcdwright.home", fleet.resolve("home").toString());
        List<String[]> expected = Files.readAllLines(fleet.resolve("expected")).stream().map(l -> l.split(" ")).toList();
        List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
        long[] took = new long[expected.size()];
        int changes = 0;
        int refused = 0;
        int hosts = 0;
        List<String> wrong = new ArrayList<>();
        var threads = ManagementFactory.getThreadMXBean();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = threads.getCurrentThreadCpuTime();
        long processCpuStart = os.getProcessCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < expected.size(); i++) {
            String[] e = expected.get(i);
            Path dir = fleet.resolve(e[0]);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            long t0 = System.nanoTime();
            int code = Main.run(new String[]{"plan", "-i", dir.resolve("hosts.yaml").toString(), "-f",
                    dir.resolve("spec.yaml").toString(), "--facts", dir.resolve("facts.json").toString(),
                    "--detailed-exitcode"}, new PrintWriter(out), new PrintWriter(err));
            took[i] = System.nanoTime() - t0;
            hosts += Integer.parseInt(e[1]);
            if (code == Main.CHANGES) {
                changes++;
            }
            // A refusal is exit 1 with its reasons on stdout ("Cannot plan cluster ..."); other errors go to stderr.
            String got = code == Main.CHANGES ? "changes" : code == Main.OK ? "no-changes"
                    : out.toString().startsWith("Cannot plan cluster") ? "refused" : "error";
            if (got.equals("refused")) {
                refused++;
            }
            if (!got.equals(e[3])) {
                wrong.add(e[0] + " (" + e[2] + "): expected " + e[3] + ", got " + got + " (exit " + code + ")\n" + out + err);
            }
        }
        long total = System.nanoTime() - start;
        // CPU times, as wall time stretches with the machine's load: this thread's (the plans'),
        // and the process's (JIT compilers and GC included).
        long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
        long processCpu = os.getProcessCpuTime() - processCpuStart;
        long peakSum = heapPools.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        long[] sorted = took.clone();
        Arrays.sort(sorted);
        // -Xmx as given: the serial collector reports one survivor space less as the maximum.
        String xmx = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-Xmx")).reduce((a, b) -> b)
                .orElse("max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB");
        System.out.printf("offline plan --facts, %d clusters / %d hosts in one JVM (%s): total %.2f s,"
                        + " per cluster median %.1f ms, max %.1f ms; peak heap used %d MB; %d plans with changes, %d refused;"
                        + " CPU %.2f s planning, %.2f s the whole JVM (%d cores, load %.1f)%n",
                expected.size(), hosts, xmx, total / 1e9,
                sorted[sorted.length / 2] / 1e6, sorted[sorted.length - 1] / 1e6, peakSum / (1024 * 1024), changes, refused,
                cpu / 1e9, processCpu / 1e9, os.getAvailableProcessors(), os.getSystemLoadAverage());
        if (!wrong.isEmpty()) {
            System.out.println("offline-scale: " + wrong.size() + " plans not as expected:");
            wrong.stream().limit(5).forEach(System.out::println);
            return 1;
        }
        return 0;
    }
}
