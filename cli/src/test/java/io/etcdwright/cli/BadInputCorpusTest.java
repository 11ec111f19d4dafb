package io.etcdwright.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The corpus of bad inputs (src/test/resources/bad-inputs): every case, through every command
 * that reads the inputs, must exit 1 with {@code file:line:col: error: field: message}, without a
 * stack trace, within a bound, and without opening a TCP connection. The inventory's hosts are
 * real listening sockets on loopback; a control case proves a connection would be counted.
 */
class BadInputCorpusTest {
    static final Path CORPUS = corpusDir();
    /**
     * Per command run, in CPU time of the thread running it: a refused input is answered in well
     * under a second of CPU. CPU time, not wall time: a runaway parser (an expanding alias bomb)
     * burns CPU, while a machine loaded by other work only makes the run wait, and a wall-clock
     * bound of a few seconds, hit on a loaded CI machine during the schema validator's first
     * start-up, stopped that thread inside a class initialiser and failed every case after it.
     */
    static final long BOUND_MILLIS = 5_000;
    /** However loaded the machine, a run this long has hung (waiting on something it should not). */
    static final long WALL_LIMIT_MILLIS = 120_000;
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    static final String DEFAULT_SPEC = """
            cluster:
              name: corpus
            members:
              group: etcd
            etcd:
              version: 3.5.16
            """;
    static final String DEFAULT_INVENTORY = """
            all:
              children:
                etcd:
                  hosts:
                    h1: {ansible_host: 127.0.0.1, ansible_port: @PORT1@, etcd_address: 192.0.2.11}
                    h2: {ansible_host: 127.0.0.1, ansible_port: @PORT2@, etcd_address: 192.0.2.12}
                    h3: {ansible_host: 127.0.0.1, ansible_port: @PORT3@, etcd_address: 192.0.2.13}
            """;
    static final String[] HOST_OPTIONS = {"--connect-timeout", "2", "--command-timeout", "3"};

    static final List<ServerSocketChannel> HOSTS = new ArrayList<>();
    static final Map<String, String> FAILURES = Collections.synchronizedMap(new TreeMap<>());
    static Path work;

    @BeforeAll
    static void listeningHosts() throws IOException {
        for (int i = 0; i < 3; i++) {
            ServerSocketChannel host = ServerSocketChannel.open();
            host.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            host.configureBlocking(false);
            HOSTS.add(host);
        }
        work = Files.createTempDirectory("bad-inputs");
        System.setProperty("etcdwright.home", work.resolve("home").toString());
    }

    @AfterAll
    static void summary() throws IOException {
        System.clearProperty("etcdwright.home");
        for (ServerSocketChannel host : HOSTS) {
            host.close();
        }
        if (!FAILURES.isEmpty()) {
            // One line per failing case, so a run after a change says exactly what regressed; the
            // generated inputs stay for a look.
            System.out.println(FAILURES.size() + " bad-input case(s) failed (inputs kept in " + work + "):");
            FAILURES.forEach((id, reason) -> System.out.println("  FAIL " + id + ": " + reason));
        } else {
            // About 140 MB of generated inputs (the size bombs): CI runs again and again on one machine.
            try (Stream<Path> all = Files.walk(work)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseIsRefusedTheSameWayByEveryCommandWithoutContactingAHost() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.id(), () -> {
            try {
                check(c);
            } catch (AssertionError e) {
                FAILURES.put(c.id(), e.getMessage().replace('\n', ' '));
                throw e;
            }
        }));
    }

    @Test
    void theCorpusCoversEveryClassWithAtLeast150Cases() {
        Map<String, Long> perClass = cases().stream()
                .collect(Collectors.groupingBy(c -> c.id().substring(0, c.id().indexOf('/')), TreeMap::new, Collectors.counting()));
        long total = perClass.values().stream().mapToLong(Long::longValue).sum();
        assertTrue(total >= 150, "cases: " + perClass);
        for (String required : List.of("yaml-syntax", "types", "unknown-fields", "missing-required", "references",
                "duplicates", "conflicts", "injection", "traversal", "bombs", "files", "missing-files", "ip-literals",
                "ranges", "managed-settings", "release-settings", "plan-files")) {
            assertTrue(perClass.getOrDefault(required, 0L) >= 3, "class " + required + " has cases: " + perClass);
        }
    }

    /** Without this, "no connection counted" could mean the counter is blind. */
    @Test
    void aValidInputIsAcceptedAndFactsDoesConnectToTheListeningHosts() throws Exception {
        Path dir = Files.createDirectories(work.resolve("control"));
        Path inventory = dir.resolve("hosts.yaml");
        Path spec = dir.resolve("cluster.yaml");
        Files.writeString(inventory, expand(DEFAULT_INVENTORY, dir, inventory, spec));
        Files.writeString(spec, DEFAULT_SPEC);
        drainConnections();
        Outcome valid = run("validate", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(0, valid.code(), valid.err());
        assertEquals(0, drainConnections(), "validate contacts no host");

        AtomicReference<Outcome> facts = new AtomicReference<>();
        Thread gather = new Thread(() -> facts.set(run(concat(new String[]{"facts", "-i", inventory.toString(), "-f",
                spec.toString()}, HOST_OPTIONS))));
        gather.setDaemon(true);
        gather.start();
        int seen = 0;
        for (long deadline = System.currentTimeMillis() + 10_000; seen < 1 && System.currentTimeMillis() < deadline; ) {
            seen += drainConnections();
            Thread.sleep(20);
        }
        gather.join(15_000);
        seen += drainConnections();
        assertTrue(seen >= 1, "facts against the listening hosts was seen by the counter");
        assertEquals(1, facts.get().code(), "the hosts are not SSH servers: " + facts.get().out() + facts.get().err());
    }

    private static void check(BadInputCase c) throws IOException {
        Path dir = Files.createDirectories(work.resolve(c.id().replace('/', '_')));
        boolean ini = c.broken() == BadInputCase.Broken.ini;
        Path inventory = dir.resolve(ini ? "hosts.ini" : "hosts.yaml");
        Path spec = dir.resolve("cluster.yaml");
        Path plan = dir.resolve("saved.plan");
        if (!ini) {
            Files.writeString(inventory, expand(DEFAULT_INVENTORY, dir, inventory, spec));
        }
        Files.writeString(spec, DEFAULT_SPEC);
        Path broken = switch (c.broken()) {
            case inventory, ini -> inventory;
            case spec -> spec;
            case plan -> plan;
        };
        Map<String, String> placeholders = placeholders(dir, inventory, spec);
        switch (c.given()) {
            case "" -> {
                Files.deleteIfExists(broken);
                Files.write(broken, c.bodyBytes(placeholders));
            }
            case "directory" -> {
                Files.deleteIfExists(broken);
                Files.createDirectory(broken);
            }
            case "dangling-symlink" -> {
                Files.deleteIfExists(broken);
                Files.createSymbolicLink(broken, dir.resolve("nothing-here"));
            }
            case "pipe" -> {
                Files.deleteIfExists(broken);
                feedThroughFifo(broken, c.bodyBytes(placeholders));
            }
            default -> throw new AssertionError("unknown 'given: " + c.given() + "'");
        }
        for (String step : c.setup()) {
            setUp(dir, step, placeholders);
        }
        drainConnections();
        Path reportedIn = switch (c.reportedIn()) {
            case inventory, ini -> inventory;
            case spec -> spec;
            case plan -> plan;
        };
        Pattern expected = c.errorLine(reportedIn);
        Set<String> firstErrors = null;
        String firstCommand = null;
        for (String[] command : commands(c, inventory, spec, plan)) {
            String shown = String.join(" ", command).replace(dir + "/", "");
            Outcome r = run(command);
            if (r.timedOut()) {
                throw new AssertionError(shown + ": did not finish within " + BOUND_MILLIS + " ms of CPU (or "
                        + WALL_LIMIT_MILLIS + " ms of wall time)");
            }
            String all = r.out() + r.err();
            if (all.contains("Exception") || all.contains("\tat ") || all.contains("Error:")) {
                throw new AssertionError(shown + ": stack trace or exception in output: " + firstLines(all));
            }
            if (r.code() != 1) {
                throw new AssertionError(shown + ": exit " + r.code() + ", expected 1: " + firstLines(all));
            }
            if (!expected.matcher(r.err()).find()) {
                throw new AssertionError(shown + ": no error line " + reportedIn.getFileName() + ":" + c.at() + ": error: "
                        + (c.field().equals("-") ? "" : c.field() + ": ") + "...'" + c.message() + "'...; got: "
                        + firstLines(r.err()));
            }
            // The same errors in the file at fault (facts -i alone does not read the spec, so may show fewer elsewhere).
            Set<String> errors = r.err().lines().filter(l -> l.startsWith(reportedIn + ":") && l.contains(": error: "))
                    .collect(Collectors.toCollection(TreeSet::new));
            if (firstErrors == null) {
                firstErrors = errors;
                firstCommand = shown;
            } else if (!errors.equals(firstErrors)) {
                throw new AssertionError(shown + " reports " + errors + " but " + firstCommand + " reported " + firstErrors);
            }
        }
        int connections = drainConnections();
        if (connections != 0) {
            throw new AssertionError(connections + " TCP connection(s) to the hosts for an input that must be refused");
        }
    }

    /**
     * Makes {@code fifo} a FIFO and writes {@code body} into it once, as a shell's process
     * substitution would: the first command reads it, the later ones of this JVM get the text
     * that came (a pipe is read once a run). A reader that stops early (the size limit) ends the write.
     */
    private static void feedThroughFifo(Path fifo, byte[] body) throws IOException {
        try {
            Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).inheritIO().start();
            if (mkfifo.waitFor() != 0) {
                throw new AssertionError("mkfifo " + fifo + " failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        Thread writer = new Thread(() -> {
            try (java.io.OutputStream out = Files.newOutputStream(fifo)) {
                out.write(body);
            } catch (IOException e) {
                // the reader closed it first: it read all it wanted
            }
        }, "fifo writer " + fifo.getFileName());
        writer.setDaemon(true);
        writer.start();
    }

    /** Every command that reads the inputs; options that touch hosts are bounded so a mistake cannot hang. */
    private static List<String[]> commands(BadInputCase c, Path inventory, Path spec, Path plan) {
        if (c.broken() == BadInputCase.Broken.plan) {
            return List.<String[]>of(new String[]{"apply", plan.toString()});
        }
        String i = inventory.toString();
        String f = spec.toString();
        List<String[]> commands = new ArrayList<>();
        commands.add(new String[]{"validate", "-i", i, "-f", f});
        commands.add(concat(new String[]{"facts", "-i", i, "-f", f}, HOST_OPTIONS));
        if (c.broken() == c.reportedIn() && !c.seenWithSpec()
                && (c.broken() == BadInputCase.Broken.inventory || c.broken() == BadInputCase.Broken.ini)) {
            // facts also runs on an inventory alone; a clash with the spec is only seen with -f.
            commands.add(concat(new String[]{"facts", "-i", i}, HOST_OPTIONS));
        }
        commands.add(concat(new String[]{"plan", "-i", i, "-f", f}, HOST_OPTIONS));
        commands.add(concat(new String[]{"apply", "-i", i, "-f", f, "--yes"}, HOST_OPTIONS));
        commands.add(new String[]{"status", "-i", i, "-f", f, "--timeout", "2"});
        commands.add(new String[]{"client-env", "-i", i, "-f", f});
        commands.add(new String[]{"kube-apiserver-flags", "-i", i, "-f", f});
        commands.add(new String[]{"kubeadm-config", "-i", i, "-f", f});
        commands.add(concat(new String[]{"destroy", "-i", i, "-f", f, "--yes", "--wipe-data"}, HOST_OPTIONS));
        return commands;
    }

    private static void setUp(Path dir, String step, Map<String, String> placeholders) throws IOException {
        String[] words = step.split(" ", 3);
        Path target = dir.resolve(words[1]);
        Files.createDirectories(target.getParent());
        switch (words[0]) {
            case "mkdir" -> Files.createDirectories(target);
            case "file" -> Files.writeString(target, BadInputCase.unescape(words.length > 2 ? words[2] : ""));
            case "symlink" -> Files.createSymbolicLink(target, Path.of(words[2]));
            default -> throw new AssertionError("unknown setup step: " + step);
        }
    }

    static List<BadInputCase> cases() {
        try (Stream<Path> files = Files.walk(CORPUS)) {
            return files.filter(f -> f.toString().endsWith(".case")).sorted(Comparator.naturalOrder())
                    .map(f -> BadInputCase.read(CORPUS.relativize(f).toString().replaceAll("\\.case$", ""), f))
                    .toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    record Outcome(int code, String out, String err, boolean timedOut) {
    }

    /** Runs the CLI in this JVM on a thread of its own, so a run that does not end is caught. */
    @SuppressWarnings({"deprecation", "removal"})
    static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] code = {-1};
        Thread[] worker = new Thread[1];
        Throwable[] escaped = new Throwable[1];
        worker[0] = new Thread(() -> {
            try {
                code[0] = Main.run(args, new PrintWriter(out), new PrintWriter(err));
            } catch (Throwable t) {
                escaped[0] = t;
            }
        }, "etcdwright " + args[0]);
        worker[0].setDaemon(true);
        worker[0].start();
        try {
            long wallDeadline = System.currentTimeMillis() + WALL_LIMIT_MILLIS;
            while (worker[0].isAlive() && System.currentTimeMillis() < wallDeadline
                    && THREADS.getThreadCpuTime(worker[0].getId()) < BOUND_MILLIS * 1_000_000L) {
                worker[0].join(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (worker[0].isAlive()) {
            // A runaway parser (an expanding alias bomb) would otherwise eat the CPU the other tests need.
            worker[0].stop();
            return new Outcome(-1, out.toString(), err.toString(), true);
        }
        if (escaped[0] != null) {
            StringWriter trace = new StringWriter();
            escaped[0].printStackTrace(new PrintWriter(trace));
            return new Outcome(-1, out.toString(), err + "\nescaped Main.run: " + trace, false);
        }
        return new Outcome(code[0], out.toString(), err.toString(), false);
    }

    /** Connections made to the listening hosts since the last call (each closed at once). */
    static int drainConnections() throws IOException {
        int count = 0;
        for (ServerSocketChannel host : HOSTS) {
            for (SocketChannel c = host.accept(); c != null; c = host.accept()) {
                c.close();
                count++;
            }
        }
        return count;
    }

    private static Map<String, String> placeholders(Path dir, Path inventory, Path spec) {
        Map<String, String> p = new LinkedHashMap<>();
        for (int i = 0; i < HOSTS.size(); i++) {
            try {
                p.put("@PORT" + (i + 1) + "@", String.valueOf(((InetSocketAddress) HOSTS.get(i).getLocalAddress()).getPort()));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        p.put("@DIR@", dir.toString());
        p.put("@INVENTORY@", inventory.toString());
        p.put("@SPEC@", spec.toString());
        return p;
    }

    private static String expand(String text, Path dir, Path inventory, Path spec) {
        for (Map.Entry<String, String> p : placeholders(dir, inventory, spec).entrySet()) {
            text = text.replace(p.getKey(), p.getValue());
        }
        return text;
    }

    private static String[] concat(String[] a, String[] b) {
        return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
    }

    private static String firstLines(String text) {
        String oneLine = text.strip().replace("\n", " | ");
        return oneLine.length() > 400 ? oneLine.substring(0, 400) + "..." : oneLine;
    }

    private static Path corpusDir() {
        try {
            return Path.of(BadInputCorpusTest.class.getResource("/bad-inputs").toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new AssertionError("the corpus src/test/resources/bad-inputs is not on the test classpath", e);
        }
    }
}
