package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.KeyAlgorithm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 'etcdwright state push|pull|show' and the refusals around them, through the real command line on
 * a directory store (no host is needed): moved only when told, listed without a secret, a wrong or
 * missing key refused before anything is written, a read-only runner refused.
 */
class StateCommandTest {
    @TempDir
    Path dir;
    private Path first;
    private Path second;
    private Path spec;
    private Path inventory;

    @BeforeEach
    void setUp() throws Exception {
        first = Files.createDirectories(dir.resolve("ws1"));
        second = Files.createDirectories(dir.resolve("ws2"));
        inventory = Files.writeString(dir.resolve("hosts.yaml"), "all:\n  hosts:\n    h1: {ansible_host: 192.0.2.11}\n");
        Path key = dir.resolve("state.key");
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        Files.writeString(key, Base64.getEncoder().encodeToString(raw) + "\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        spec = Files.writeString(dir.resolve("spec.yaml"), "cluster: {name: demo}\netcd: {version: 3.5.16}\n"
                + "members: {hosts: [h1]}\nstate:\n  store: {type: directory, path: " + dir.resolve("store") + "}\n"
                + "  encryption: {key: {file: state.key}}\n");
        CertificateAuthority.generate("etcd CA for cluster demo", KeyAlgorithm.fromName("ecdsa-p256"), Duration.ofDays(3650),
                Clock.systemUTC()).writeTo(first.resolve("clusters/demo/pki"));
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    private ClientEnvOutputTest.Run as(Path home, String... args) {
        System.setProperty("etcdwright.home", home.toString());
        return ClientEnvOutputTest.run(args);
    }

    @Test
    void aPkiIsMovedOnlyByPushListedWithoutASecretAndPulledIntoAnEmptyHome() throws Exception {
        String i = inventory.toString();
        String f = spec.toString();
        // The store is empty and this workstation holds the PKI: a changing command is refused, naming the way.
        ClientEnvOutputTest.Run refused = as(first, "certs", "issue-reader", "-i", i, "-f", f, "--out", dir.resolve("r").toString());
        assertEquals(1, refused.code(), refused.out() + refused.err());
        assertTrue(refused.err().contains("run 'etcdwright state push"), refused.err());
        assertFalse(Files.exists(dir.resolve("store/demo/state.etcdwright")), "nothing moved silently");

        ClientEnvOutputTest.Run push = as(first, "state", "push", "-i", i, "-f", f);
        assertEquals(0, push.code(), push.err());
        assertTrue(push.out().contains("serial 1"), push.out());
        assertTrue(push.out().contains("pki/ca.key  secret, "), push.out());
        assertTrue(push.out().contains("pki/ca.crt  certificate CN=etcd CA for cluster demo"), push.out());
        assertFalse(push.out().contains("PRIVATE KEY"), push.out());

        ClientEnvOutputTest.Run show = as(second, "state", "show", "-i", i, "-f", f, "-o", "json");
        assertEquals(0, show.code(), show.err());
        JsonNode json = JsonOutputSchemaTest.conforms("state-show", show.out());
        assertEquals(1, json.path("serial").asInt());
        assertTrue(json.path("cache_serial").isNull(), "the second workstation has no copy yet");
        ClientEnvOutputTest.Run text = as(second, "state", "show", "-i", i, "-f", f);
        assertTrue(text.out().contains("this workstation's keys: shared key id "), text.out());

        ClientEnvOutputTest.Run pull = as(second, "state", "pull", "-i", i, "-f", f);
        assertEquals(0, pull.code(), pull.err());
        assertEquals(Files.readString(first.resolve("clusters/demo/pki/ca.key")),
                Files.readString(second.resolve("clusters/demo/pki/ca.key")));
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(second.resolve("clusters/demo/pki/ca.key"))));

        // A runner with only a reader's files and no key is read-only: push is refused before anything.
        Path runner = Files.createDirectories(dir.resolve("runner/clusters/demo/reader"));
        for (String name : new String[]{"ca.crt", "reader.crt", "reader.key"}) {
            Files.writeString(runner.resolve(name), "x\n");
        }
        Files.delete(dir.resolve("state.key"));
        ClientEnvOutputTest.Run readOnly = as(dir.resolve("runner"), "state", "push", "-i", i, "-f", f);
        assertEquals(1, readOnly.code(), readOnly.out() + readOnly.err());
        assertTrue(readOnly.err().contains("read-only runner"), readOnly.err());
    }

    @Test
    void stateEncryptedToARecipientIsOpenedWithItsPrivateKeyAndWithoutItIsNotListed() throws Exception {
        // A recipient's key pair: an EC P-256 certificate and its PKCS#8 key, as openssl makes them.
        Path alice = Files.createDirectories(dir.resolve("alice"));
        CertificateAuthority.generate("alice", KeyAlgorithm.fromName("ecdsa-p256"), Duration.ofDays(3650), Clock.systemUTC())
                .writeTo(alice);
        Path recipients = Files.writeString(dir.resolve("recipients.yaml"), "cluster: {name: demo}\netcd: {version: 3.5.16}\n"
                + "members: {hosts: [h1]}\nstate:\n  store: {type: directory, path: " + dir.resolve("store") + "}\n"
                + "  encryption: {recipients: [alice/ca.crt], privateKey: {file: alice/ca.key}}\n");
        String i = inventory.toString();
        String f = recipients.toString();
        assertEquals(0, as(first, "state", "push", "-i", i, "-f", f).code());
        ClientEnvOutputTest.Run pull = as(second, "state", "pull", "-i", i, "-f", f);
        assertEquals(0, pull.code(), pull.err());
        assertEquals(Files.readString(first.resolve("clusters/demo/pki/ca.key")),
                Files.readString(second.resolve("clusters/demo/pki/ca.key")));

        Files.delete(alice.resolve("ca.key"));
        ClientEnvOutputTest.Run show = as(dir.resolve("third"), "state", "show", "-i", i, "-f", f);
        assertEquals(1, show.code(), show.out() + show.err());
        assertTrue(show.out().contains("serial 1") && show.out().contains("files not listed:"), show.out());
        assertTrue(show.out().contains("alice/ca.key") && show.out().contains("does not exist"), show.out());
        assertFalse(show.out().contains("pki/ca.key"), "no file listed without the key: " + show.out());
    }

    @Test
    void anUnreachableStoreStopsACommandBeforeAnyHostIsContactedSayingWhatToDo() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Path unreachable = Files.writeString(dir.resolve("s3.yaml"), "cluster: {name: demo}\netcd: {version: 3.5.16}\n"
                + "members: {hosts: [h1]}\nstate:\n  store: {type: s3, bucket: etcd-state, endpoint: 'http://127.0.0.1:"
                + closed + "'}\n  encryption: {key: {file: state.key}}\n");
        String accessKey = System.getProperty("aws.accessKeyId");
        String secretKey = System.getProperty("aws.secretAccessKey");
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test-secret");
        try {
            ClientEnvOutputTest.Run plan = as(first, "plan", "-i", inventory.toString(), "-f", unreachable.toString());
            assertEquals(1, plan.code(), plan.out() + plan.err());
            assertTrue(plan.err().contains("cannot read the state store s3://etcd-state/etcdwright-state/demo/state.etcdwright"),
                    plan.err());
            assertTrue(plan.err().contains("cannot connect to the S3 endpoint") && plan.err().contains("Nothing was changed")
                    && plan.err().contains("once the store answers"), plan.err());
            assertFalse(plan.err().contains("test-secret"), "no credential in the message");
        } finally {
            restore("aws.accessKeyId", accessKey);
            restore("aws.secretAccessKey", secretKey);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    @Test
    void aMissingOrWrongKeyIsRefusedSayingWhichAndNothingIsWritten() throws Exception {
        String i = inventory.toString();
        String f = spec.toString();
        assertEquals(0, as(first, "state", "push", "-i", i, "-f", f).code());
        byte[] other = new byte[32];
        Files.writeString(dir.resolve("state.key"), Base64.getEncoder().encodeToString(other) + "\n");
        ClientEnvOutputTest.Run wrong = as(second, "state", "pull", "-i", i, "-f", f);
        assertEquals(1, wrong.code(), wrong.out() + wrong.err());
        assertTrue(wrong.err().contains("not encrypted with this key (shared key id "), wrong.err());
        assertFalse(Files.exists(second.resolve("clusters/demo/pki")), "nothing half-written");

        Files.setPosixFilePermissions(dir.resolve("state.key"), PosixFilePermissions.fromString("rw-r--r--"));
        ClientEnvOutputTest.Run readable = as(second, "state", "pull", "-i", i, "-f", f);
        assertEquals(1, readable.code());
        assertTrue(readable.err().contains("can be read by other users"), readable.err());

        Files.delete(dir.resolve("state.key"));
        ClientEnvOutputTest.Run missing = as(second, "state", "pull", "-i", i, "-f", f);
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("does not exist"), missing.err());
        assertFalse(Files.exists(second.resolve("clusters/demo/pki")), "nothing half-written");
    }
}
