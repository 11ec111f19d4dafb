package io.etcdwright.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input: a clear error with file, line, column and field, exit 1, and no host touched. The
 * "host" here is a real listening socket on loopback, so a connection attempt would be seen.
 */
class InvalidInputTest {
    @TempDir
    Path dir;
    ServerSocket host;
    Path inventory;

    @BeforeEach
    void listeningHost() throws Exception {
        host = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        host.setSoTimeout(300);
        inventory = dir.resolve("hosts.yaml");
        Files.writeString(inventory, """
                all:
                  children:
                    etcd:
                      hosts:
                        h1:
                          ansible_host: 127.0.0.1
                          ansible_port: %d
                """.formatted(host.getLocalPort()));
    }

    @AfterEach
    void close() throws Exception {
        host.close();
    }

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    private void assertNobodyConnected() throws Exception {
        try {
            host.accept().close();
            throw new AssertionError("etcdwright opened a connection to a host despite invalid input");
        } catch (SocketTimeoutException expected) {
            // nobody knocked
        }
    }

    @Test
    void everyCommandValidatesFirstAndTouchesNoHost() throws Exception {
        Path spec = dir.resolve("bad.yaml");
        Files.writeString(spec, """
                cluster:
                  name: Bad_Name
                etcd:
                  version: 3.5
                  ports:
                    client: 2379
                    peer: 2379
                """);
        for (String command : new String[]{"validate", "plan", "apply", "destroy", "status", "facts"}) {
            Result r = command.equals("apply") || command.equals("destroy")
                    ? run(command, "-i", inventory.toString(), "-f", spec.toString(), "--yes")
                    : run(command, "-i", inventory.toString(), "-f", spec.toString());
            assertEquals(1, r.code(), command + ": " + r.err());
            assertTrue(r.err().contains(spec + ":2:9: error: cluster.name:"), command + ": " + r.err());
            assertTrue(r.err().contains(spec + ":4:12: error: etcd.version:"), command + ": " + r.err());
            assertTrue(r.err().contains("etcd.ports.peer"), command + ": " + r.err());
            assertTrue(r.err().contains("No host was contacted"), r.err());
            assertFalse(r.err().contains("Exception"), r.err());
        }
        assertNobodyConnected();
    }

    @Test
    void aValidInputValidatesWithExitZeroAndStillContactsNobody() throws Exception {
        Path spec = dir.resolve("ok.yaml");
        Files.writeString(spec, "cluster:\n  name: demo\netcd:\n  version: 3.5.16\n");
        Result r = run("validate", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("cluster demo, 1 member (h1)"), r.out());
        assertNobodyConnected();
    }

    /**
     * -f <(sops -d spec.yaml) hands over a pipe: read within the same limits, validated like a file
     * (a trailing '/' on dataDir taken out, with a warning), but never saved in a plan, whose apply
     * reads its inputs again.
     */
    @Test
    void aSpecThroughAPipeValidatesAndATrailingSlashIsAWarning() throws Exception {
        Path fifo = dir.resolve("spec.fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        Thread writer = new Thread(() -> {
            try {
                Files.writeString(fifo, "cluster:\n  name: demo\netcd:\n  version: 3.5.16\n  dataDir: /var/lib/etcd/\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        writer.setDaemon(true);
        writer.start();
        Result r = run("validate", "-i", inventory.toString(), "-f", fifo.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("cluster demo, 1 member (h1)"), r.out());
        assertTrue((r.out() + r.err()).contains(fifo + ":5:12: warning: etcd.dataDir: read as /var/lib/etcd (the trailing '/'"
                + " removed)"), r.out() + r.err());
        Result saved = run("plan", "-i", inventory.toString(), "-f", fifo.toString(), "--out", dir.resolve("p.plan").toString());
        assertEquals(1, saved.code(), saved.err());
        assertTrue(saved.err().contains(fifo + " is a pipe, and a saved plan is applied by reading its input files again"),
                saved.err());
        assertNobodyConnected();
    }

    @Test
    void aBrokenInventoryIsNamedByLineToo() throws Exception {
        Files.writeString(inventory, "all:\n  hosts:\n    h1:\n      ansible_port: twenty-two\n");
        Path spec = dir.resolve("ok.yaml");
        Files.writeString(spec, "cluster:\n  name: demo\nmembers:\n  hosts: [h1]\netcd:\n  version: 3.5.16\n");
        Result r = run("plan", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(1, r.code());
        assertTrue(r.err().contains(inventory + ":4:21: error: all.hosts.h1.ansible_port"), r.err());
    }

    @Test
    void badOptionsAreErrorsWithUsageHints() {
        Result r = run("plan", "--no-such-flag");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("etcdwright plan --help"), r.err());
    }

    @Test
    void nonsenseNumbersAreRefusedBeforeAnyHostIsContacted() throws Exception {
        Path spec = dir.resolve("ok.yaml");
        Files.writeString(spec, "cluster:\n  name: demo\netcd:\n  version: 3.5.16\n");
        String inv = inventory.toString();
        String sp = spec.toString();
        String[][] cases = {
                {"plan", "-i", inv, "-f", sp, "--forks", "0"},
                {"facts", "-i", inv, "--connect-timeout", "0"},
                {"apply", "-i", inv, "-f", sp, "--yes", "--command-timeout", "-5"},
                {"status", "-i", inv, "-f", sp, "--timeout", "0"}};
        for (String[] c : cases) {
            Result r = run(c);
            String option = c[c.length - 2];
            assertEquals(1, r.code(), String.join(" ", c) + ": " + r.err());
            assertTrue(r.err().contains(option + " must be at least 1, got " + c[c.length - 1]), r.err());
        }
        assertNobodyConnected();
    }

    @Test
    void everyCommandHasHelp() {
        for (String command : new String[]{"validate", "facts", "plan", "apply", "status", "client-env",
                "kube-apiserver-flags", "kubeadm-config", "destroy"}) {
            Result r = run(command, "--help");
            assertEquals(0, r.code(), command + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: etcdwright " + command), r.out());
        }
        assertTrue(run("status", "--help").out().contains("Exits 0 when every member"));
    }
}
