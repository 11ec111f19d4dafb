package io.etcdwright.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A private key pasted into the wrong field must not come back out in the error that quotes the
 * field's value, in any command, nor in an error about a file that turns out to hold a key.
 */
class NoSecretsInErrorsTest {
    @TempDir
    Path dir;
    String pem;
    String body;

    @BeforeEach
    void aKey() throws Exception {
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(256);
        body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(ec.generateKeyPair().getPrivate().getEncoded());
        pem = "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
        System.setProperty("etcdwright.home", dir.resolve("home").toString());
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    @Test
    void aKeyPastedIntoFieldsIsNotEchoedByAnyCommand() throws Exception {
        String indented = pem.replace("\n", "\n            ").stripTrailing();
        Path inventory = dir.resolve("hosts.yaml");
        Files.writeString(inventory, """
                all:
                  children:
                    etcd:
                      hosts:
                        h1:
                          ansible_host: 192.0.2.11
                          ansible_port: |
                            %s
                          etcd_address: |
                            %s
                          ansible_user: %s
                """.formatted(indented, indented, quoted(pem)));
        Path spec = dir.resolve("cluster.yaml");
        Files.writeString(spec, """
                cluster:
                  name: %s
                etcd:
                  version: 3.5.16
                tls:
                  pki:
                    extraSans: [%s]
                """.formatted(quoted(pem), quoted(pem)));
        for (String command : List.of("validate", "facts", "plan", "status", "client-env", "kube-apiserver-flags", "kubeadm-config", "destroy")) {
            String[] args = command.equals("destroy")
                    ? new String[]{command, "-i", inventory.toString(), "-f", spec.toString(), "--yes"}
                    : new String[]{command, "-i", inventory.toString(), "-f", spec.toString()};
            Run r = run(args);
            assertEquals(1, r.code(), command + ": " + r.err());
            assertTrue(r.err().contains(inventory + ":7:25: error: all.children.etcd.hosts.h1.ansible_port: "), r.err());
            assertTrue(r.err().contains(spec + ":2:9: error: cluster.name: "), r.err());
            assertTrue(r.err().contains(SecretRedaction.REDACTED), "says a key was there, without showing it: " + r.err());
            assertNoKeyMaterial(command, r.out() + r.err());
        }
    }

    @Test
    void aKeyGivenAsThePlanFileIsNotQuotedInTheError() throws Exception {
        Path plan = dir.resolve("saved.plan");
        Files.writeString(plan, pem);
        Run r = run("apply", plan.toString());
        assertEquals(1, r.code());
        assertNoKeyMaterial("apply PLAN", r.out() + r.err());
    }

    @Test
    void redactionCoversQuotedEscapedAndRawKeysAndLeavesOtherTextAlone() {
        String escaped = "got \"" + pem.replace("\n", "\\n").substring(0, 57) + "...\" here";
        assertEquals("got \"" + SecretRedaction.REDACTED + "\" here", SecretRedaction.redact(escaped));
        assertEquals("file holds " + SecretRedaction.REDACTED + "\nand more", SecretRedaction.redact("file holds " + pem + "and more"));
        String rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
        assertEquals("x " + SecretRedaction.REDACTED + " y", SecretRedaction.redact("x " + rsa + " y"));
        String openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
        assertEquals(SecretRedaction.REDACTED, SecretRedaction.redact(openssh));
        String certificate = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assertEquals(certificate, SecretRedaction.redact(certificate), "certificates are public");
        assertEquals("port 2379 is taken", SecretRedaction.redact("port 2379 is taken"));
    }

    private void assertNoKeyMaterial(String what, String output) {
        assertFalse(output.contains("PRIVATE KEY"), what + ": " + output);
        String joined = body.replace("\n", "");
        // Past the encoding's fixed header (the same in every P-256 key), every 16 characters are secret.
        for (int at = 40; at + 16 <= joined.length(); at += 8) {
            String fragment = joined.substring(at, at + 16);
            assertFalse(output.replace("\\n", "").contains(fragment), what + " printed part of the key: " + fragment);
        }
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\n", "\\n") + "\"";
    }

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }
}
