package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.ssh.ShellQuoting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * client-env is meant for {@code eval}: whatever an address or a path contains must come out of
 * the operator's shell as the same bytes, and run nothing. Proven with the real sh (dash) and bash.
 */
class ClientEnvOutputTest {
    /** Each would run a command, split a word or end the assignment if it were not quoted. */
    static final List<String> HOSTILE = List.of(
            "it's", "a\"b", "$(touch MARKER)", "`touch MARKER`", "x; touch MARKER", "x && touch MARKER",
            "x | touch MARKER", "line one\ntouch MARKER\nline three", "${IFS}touch${IFS}MARKER", "$HOME", "\\",
            "'", "''", "'\\''", "\\'$(touch MARKER)'", "'; touch MARKER; echo '", "-n", "*", "~", "!!", "\t x \r",
            "", "é ✓ ünïcödé", "x".repeat(10_000) + "'$(touch MARKER)'");

    @TempDir
    Path dir;
    Path home;

    @BeforeEach
    void workstationHome() throws IOException {
        home = Files.createDirectories(dir.resolve("home"));
        System.setProperty("etcdwright.home", home.toString());
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    @Test
    void everyHostileValueRoundTripsThroughEvalInShAndBashAndRunsNothing() throws Exception {
        for (String shell : List.of("sh", "bash")) {
            for (String value : HOSTILE) {
                Path script = dir.resolve("env.sh");
                Files.writeString(script, ClientEnvCommand.exportLines(Map.of("ETCDCTL_ENDPOINTS", value)));
                String printed = evalAndPrint(shell, script, "ETCDCTL_ENDPOINTS");
                assertEquals(value, printed, shell + " changed the value " + shortened(value));
                assertNoMarker(shell + " ran code from " + shortened(value));
            }
        }
    }

    @Test
    void allValuesOfOneOutputSurviveTogether() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < HOSTILE.size(); i++) {
            env.put("V" + i, HOSTILE.get(i));
        }
        Path script = dir.resolve("all.sh");
        Files.writeString(script, ClientEnvCommand.exportLines(env));
        for (String shell : List.of("sh", "bash")) {
            for (Map.Entry<String, String> e : env.entrySet()) {
                assertEquals(e.getValue(), evalAndPrint(shell, script, e.getKey()), shell + " " + e.getKey());
            }
        }
        assertNoMarker("eval ran code");
    }

    @Test
    void linesAreExportsWithSingleQuotedValues() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("A", "plain");
        env.put("B", "it's");
        assertEquals("export A='plain'\nexport B='it'\\''s'\n", ClientEnvCommand.exportLines(env));
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class, () -> ShellQuoting.word("a\0b"));
        assertTrue(nul.getMessage().contains("NUL"), nul.getMessage());
    }

    /** The whole command, with a PKI directory whose name is an attack: eval gives back the real paths. */
    @Test
    void theCommandsOutputEvaluatesToTheRealPathsAndJsonAgrees() throws Exception {
        // No newline: a control character in a path is refused by validation (the last check below).
        String hostileDirName = "pki '$(touch MARKER)' `touch MARKER` ; touch MARKER \"${IFS}\" && touch MARKER";
        Path pki = Files.createDirectories(dir.resolve(hostileDirName));
        Files.createDirectories(pki.resolve("clients"));
        Files.writeString(pki.resolve("clients/admin.crt"), "not inspected by client-env\n");
        Path inventory = dir.resolve("hosts.yaml");
        Files.writeString(inventory, """
                all:
                  hosts:
                    h1: {ansible_host: 192.0.2.11}
                    h2: {ansible_host: 192.0.2.12}
                """);
        Path spec = dir.resolve("spec.yaml");
        Files.writeString(spec, """
                cluster: {name: demo}
                members: {hosts: [h1, h2]}
                etcd: {version: 3.5.16, ports: {client: 2379, peer: 2380}}
                tls: {pki: {dir: %s}}
                """.formatted(new ObjectMapper().writeValueAsString(pki.toString())));

        Run text = run("client-env", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(0, text.code(), text.err());
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("ETCDCTL_API", "3");
        expected.put("ETCDCTL_ENDPOINTS", "https://192.0.2.11:2379,https://192.0.2.12:2379");
        expected.put("ETCDCTL_CACERT", pki.resolve("ca.crt").toString());
        expected.put("ETCDCTL_CERT", pki.resolve("clients/admin.crt").toString());
        expected.put("ETCDCTL_KEY", pki.resolve("clients/admin.key").toString());
        assertEquals(ClientEnvCommand.exportLines(expected), text.out());
        Path script = dir.resolve("client-env.sh");
        Files.writeString(script, text.out());
        for (String shell : List.of("sh", "bash")) {
            for (Map.Entry<String, String> e : expected.entrySet()) {
                assertEquals(e.getValue(), evalAndPrint(shell, script, e.getKey()), shell + " " + e.getKey());
            }
        }
        assertNoMarker("eval of client-env output ran code");

        Run json = run("client-env", "-i", inventory.toString(), "-f", spec.toString(), "-o", "json");
        assertEquals(0, json.code(), json.err());
        JsonNode object = new ObjectMapper().readTree(json.out());
        assertEquals(expected.size() + 1, object.size(), "the variables and the format's version: " + json.out());
        assertEquals(1, object.path("version").asInt(), json.out());
        expected.forEach((name, value) -> assertEquals(value, object.path(name).asText(), name));

        Path withNewline = Files.createDirectories(dir.resolve("pki\n touch MARKER"));
        Files.writeString(spec, Files.readString(spec).replace(new ObjectMapper().writeValueAsString(pki.toString()),
                new ObjectMapper().writeValueAsString(withNewline.toString())));
        Run refused = run("client-env", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(1, refused.code(), "a newline in a path is refused before anything is printed: " + refused.out());
        assertEquals("", refused.out());
        assertTrue(refused.err().contains("tls.pki.dir: contains a control character"), refused.err());
    }

    @Test
    void kubeApiserverFlagsAreOneBareFlagPerLineAndJsonAgrees() throws Exception {
        Path inventory = dir.resolve("hosts.yaml");
        Files.writeString(inventory, "all:\n  hosts:\n    h1: {ansible_host: 192.0.2.11}\n");
        Path spec = dir.resolve("spec.yaml");
        Files.writeString(spec, "cluster: {name: demo}\netcd: {version: 3.5.16}\nmembers: {hosts: [h1]}\n");
        Run text = run("kube-apiserver-flags", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(0, text.code(), text.err());
        assertEquals("""
                --etcd-servers=https://192.0.2.11:2379
                --etcd-cafile=/etc/etcd/pki/ca.crt
                --etcd-certfile=/etc/etcd/pki/kube-apiserver-etcd-client.crt
                --etcd-keyfile=/etc/etcd/pki/kube-apiserver-etcd-client.key
                """, text.out());
        JsonNode json = new ObjectMapper().readTree(run("kube-apiserver-flags", "-i", inventory.toString(), "-f",
                spec.toString(), "-o", "json").out());
        assertEquals("https://192.0.2.11:2379", json.path("flags").path("etcd-servers").asText());
        assertEquals("/etc/etcd/pki/kube-apiserver-etcd-client.key", json.path("flags").path("etcd-keyfile").asText());
        assertTrue(run("kube-apiserver-flags", "--help").out().contains("do not eval"));
        assertTrue(run("client-env", "--help").out().contains("eval \"$(etcdwright client-env"));
    }

    @Test
    void clientEnvWithoutCertificatesSaysToApplyFirst() throws Exception {
        Path inventory = dir.resolve("hosts.yaml");
        Files.writeString(inventory, "all:\n  hosts:\n    h1: {ansible_host: 192.0.2.11}\n");
        Path spec = dir.resolve("spec.yaml");
        Files.writeString(spec, "cluster: {name: demo}\netcd: {version: 3.5.16}\nmembers: {hosts: [h1]}\n");
        Run r = run("client-env", "-i", inventory.toString(), "-f", spec.toString());
        assertEquals(1, r.code());
        assertEquals("", r.out(), "nothing for eval to run");
        assertTrue(r.err().contains("run 'etcdwright apply' first"), r.err());
    }

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }

    /** {@code SHELL -c 'eval "$(cat FILE)"; printf %s "$NAME"'}, run in the test's directory. */
    private String evalAndPrint(String shell, Path script, String name) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(shell, "-c", "eval \"$(cat \"$1\")\"; printf %s \"$" + name + "\"",
                shell, script.toString()).directory(dir.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the shell finished");
        assertEquals(0, p.exitValue(), shell + ": " + new String(out, StandardCharsets.UTF_8));
        return new String(out, StandardCharsets.UTF_8);
    }

    private void assertNoMarker(String message) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            assertFalse(files.anyMatch(f -> f.getFileName().toString().equals("MARKER")), message);
        }
    }

    private static String shortened(String value) {
        return value.length() > 60 ? value.substring(0, 60) + "..." : value;
    }
}
