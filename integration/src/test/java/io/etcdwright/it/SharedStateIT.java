package io.etcdwright.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One cluster, two workstation homes and a CI-like runner home, its state in a real S3 store
 * (S3Proxy, signatures checked): the first workstation creates the cluster; the second, with only
 * the spec, the inventory, the SSH key and the state's key, plans it unchanged, renews certificates
 * and grows it; the first then plans no change (its cache refreshed from the store); a runner with
 * only the reader certificate and the CA certificate checks drift read-only (exit 2 once a member's
 * config drifted) and is refused apply; two workstations applying at once, one is refused by the
 * store's lock and the store never goes back; a CA rotation started on one is finished on the other.
 * No object of the store ever holds a private key or a byte string of a CA key in clear.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharedStateIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(2);
    static final String INV = Testbed.INVENTORY.toString();
    static final String CLUSTER = "shared";
    static final String STATE_KEY = "it-state/" + CLUSTER + "/state.etcdwright";

    static S3Proxy s3proxy;
    static Path first;
    static Path second;
    static Path runner;
    /** The team's specs (with the state's key beside them) and the runner's checkout of them (without it). */
    static Path specs;
    static Path runnerSpecs;
    private static String previousAccessKey;
    private static String previousSecretKey;

    @RegisterExtension
    static final TestWatcher KEEP_SERVER_LOG = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (s3proxy != null) {
                s3proxy.markFailed();
            }
        }
    };

    @BeforeAll
    static void setUp() throws Exception {
        Testbed.removeEtcd(2);
        s3proxy = S3Proxy.start("127.0.0.1");
        previousAccessKey = System.getProperty("aws.accessKeyId");
        previousSecretKey = System.getProperty("aws.secretAccessKey");
        System.setProperty("aws.accessKeyId", s3proxy.accessKey());
        System.setProperty("aws.secretAccessKey", s3proxy.secretKey());
        first = HOSTS.home();
        second = Testbed.scratch("second-home");
        runner = Testbed.scratch("runner-home");
        specs = Testbed.scratch("specs");
        runnerSpecs = Testbed.scratch("runner-specs");
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path keyFile = specs.resolve("state.key");
        Files.writeString(keyFile, Base64.getEncoder().encodeToString(key) + "\n");
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        writeSpec(List.of("h1"), 365, 30, 1);
    }

    @AfterAll
    static void cleanUp() {
        restore("aws.accessKeyId", previousAccessKey);
        restore("aws.secretAccessKey", previousSecretKey);
        System.setProperty("etcdwright.home", first.toString());
        if (s3proxy != null) {
            s3proxy.close();
        }
        Testbed.removeEtcd(2);
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    /** The same spec for the team and for the runner's checkout; only the team has the key file beside it. */
    private static void writeSpec(List<String> members, int validityDays, int renewBeforeDays, int caGeneration) throws Exception {
        String spec = String.join("\n",
                "cluster: {name: " + CLUSTER + "}",
                "members: {hosts: [" + String.join(", ", members) + "]}",
                "etcd:",
                "  version: 3.5.16",
                "  settings: {heartbeat-interval: 100, election-timeout: 1000}",
                "artifacts:",
                "  url: " + Testbed.releaseServer() + "v{version}/etcd-v{version}-linux-{arch}.tar.gz",
                "  checksumsUrl: " + Testbed.releaseServer() + "v{version}/SHA256SUMS",
                "tls:",
                "  pki: {keyAlgorithm: ecdsa-p256, validityDays: " + validityDays + ", renewBeforeDays: " + renewBeforeDays
                        + (caGeneration > 1 ? ", caGeneration: " + caGeneration : "") + "}",
                "state:",
                "  store: {type: s3, bucket: " + S3Proxy.BUCKET + ", prefix: it-state/, endpoint: '" + s3proxy.endpoint() + "'}",
                "  encryption: {key: {file: state.key}}",
                "");
        Files.writeString(specs.resolve("cluster.yaml"), spec);
        Files.writeString(runnerSpecs.resolve("cluster.yaml"), spec);
    }

    private static String spec() {
        return specs.resolve("cluster.yaml").toString();
    }

    /** One command line of the workstation (or runner) whose $ETCDWRIGHT_HOME is {@code home}. */
    private static Cli.Run as(Path home, String... args) {
        System.setProperty("etcdwright.home", home.toString());
        try {
            return Cli.run(args);
        } finally {
            System.setProperty("etcdwright.home", first.toString());
        }
    }

    private static byte[] stateObject() {
        try (S3Client s3 = s3proxy.client()) {
            return s3.getObjectAsBytes(r -> r.bucket(S3Proxy.BUCKET).key(STATE_KEY)).asByteArray();
        }
    }

    private static long serial() {
        Matcher m = Pattern.compile("\"serial\":(\\d+)").matcher(new String(stateObject(), StandardCharsets.ISO_8859_1));
        assertTrue(m.find(), "the state object's header names its serial");
        return Long.parseLong(m.group(1));
    }

    private static String hostSha(int host, String file) {
        return Testbed.ssh(host, "sha256sum " + file).split(" ")[0];
    }

    @Test
    @Order(1)
    void theFirstWorkstationCreatesTheClusterWithItsPkiInTheStore() {
        Cli.Run apply = as(first, "apply", "-i", INV, "-f", spec(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertTrue(apply.all().contains("Lock: held in the state store"), apply.all());
        assertTrue(apply.all().contains("State: wrote serial"), apply.all());
        assertTrue(serial() >= 2, "the CA and then the certificates were written back as they were made");
        assertNoSecretInClear();
    }

    @Test
    @Order(2)
    void aSecondWorkstationWithOnlyTheKeyPlansTheClusterUnchangedAndItsStatusWorks() {
        Cli.Run plan = as(second, "plan", "-i", INV, "-f", spec(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("State: read from s3://" + S3Proxy.BUCKET + "/it-state/"), plan.all());
        assertTrue(Files.exists(second.resolve("clusters/" + CLUSTER + "/pki/ca.key")));
        Cli.Run status = as(second, "status", "-i", INV, "-f", spec());
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("healthy"), status.out());
    }

    @Test
    @Order(3)
    void theSecondRenewsCertificatesAndGrowsTheClusterAndTheFirstPlansNoChange() throws Exception {
        String before = hostSha(1, "/etc/etcd/pki/server.crt");
        long serial = serial();
        // Certificates of 365 days are inside 370 days of renewal: every one is renewed (for 400 days).
        writeSpec(List.of("h1", "h2"), 400, 370, 1);
        Cli.Run apply = as(second, "apply", "-i", INV, "-f", spec(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertNotEquals(before, hostSha(1, "/etc/etcd/pki/server.crt"), "h1's certificate was renewed");
        assertTrue(serial() > serial, "the renewed and new certificates were written to the store");
        // The first workstation's cache is a version behind: it is refreshed, and nothing is left to do.
        Cli.Run plan = as(first, "plan", "-i", INV, "-f", spec(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("State: refreshed from"), plan.all());
        assertEquals(hostSha(1, "/etc/etcd/pki/server.crt"),
                sha(first.resolve("clusters/" + CLUSTER + "/pki/members/h1/server.crt")));
    }

    @Test
    @Order(4)
    void aReadOnlyRunnerFindsDriftWithTheReaderCertificateAndIsRefusedApply() throws Exception {
        Path readerDir = runner.resolve("clusters/" + CLUSTER + "/reader");
        Cli.Run issued = as(first, "certs", "issue-reader", "-i", INV, "-f", spec(), "--out", readerDir.toString());
        assertEquals(0, issued.exitCode(), issued.all());
        assertTrue(issued.out().contains("CN=etcdwright-reader"), issued.out());
        assertTrue(issued.out().contains("the reader CAN write to etcd directly"), issued.out());
        String runnerSpec = runnerSpecs.resolve("cluster.yaml").toString();

        Cli.Run plan = as(runner, "plan", "-i", INV, "-f", runnerSpec, "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.all().contains("read-only (a reader certificate and the CA certificate, no CA key): not judged here"),
                plan.all());
        Cli.Run status = as(runner, "status", "-i", INV, "-f", runnerSpec);
        assertEquals(0, status.exitCode(), status.all());
        assertTrue(status.out().contains("read-only runner: asked with the reader certificate"), status.out());
        Cli.Run certs = as(runner, "certs", "-i", INV, "-f", runnerSpec);
        assertEquals(0, certs.exitCode(), certs.all());
        assertTrue(certs.out().contains("CN=etcdwright-reader"), certs.out());
        assertFalse(Files.exists(runner.resolve("clusters/" + CLUSTER + "/pki")), "the runner holds no PKI");

        Testbed.ssh(2, "sed -i 's/^heartbeat-interval: 100$/heartbeat-interval: 150/' /etc/etcd/etcd.conf.yml");
        String drifted = hostSha(2, "/etc/etcd/etcd.conf.yml");
        Cli.Run drift = as(runner, "plan", "-i", INV, "-f", runnerSpec, "--detailed-exitcode");
        assertEquals(2, drift.exitCode(), drift.all());
        assertTrue(drift.out().contains("h2:"), drift.out());
        Cli.Run refused = as(runner, "apply", "-i", INV, "-f", runnerSpec, "--yes");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("read-only runner") && refused.err().contains("No host was contacted"), refused.err());
        assertEquals(drifted, hostSha(2, "/etc/etcd/etcd.conf.yml"), "the refused apply changed nothing");
    }

    @Test
    @Order(5)
    void twoWorkstationsApplyingAtOnceOneIsRefusedByTheLockAndTheStoreNeverGoesBack() throws Exception {
        byte[] before = stateObject();
        long serial = serial();
        Map<String, String> env = Map.of("AWS_ACCESS_KEY_ID", s3proxy.accessKey(), "AWS_SECRET_ACCESS_KEY", s3proxy.secretKey());
        try (Cli.Launched fixing = Cli.Launched.start(first, env, "apply", "-i", INV, "-f", spec(), "--yes")) {
            fixing.await(Pattern.compile("Lock: held in the state store"), Duration.ofMinutes(2));
            Cli.Run refused = as(second, "apply", "-i", INV, "-f", spec(), "--yes");
            assertEquals(1, refused.exitCode(), refused.all());
            assertTrue(refused.err().contains("is locked by") && refused.err().contains("the state store's lock"), refused.err());
            assertFalse(refused.all().contains("RECAP"), refused.all());
            Cli.Run fixed = fixing.finish(Duration.ofMinutes(5));
            assertEquals(0, fixed.exitCode(), fixed.out());
            assertTrue(fixed.out().contains("RECAP"), fixed.out());
        }
        assertTrue(serial() >= serial, "the store never goes back");
        assertTrue(Arrays.equals(before, stateObject()), "nothing was issued, so nothing was written: the refused run wrote nothing");
        Cli.Run plan = as(second, "plan", "-i", INV, "-f", spec(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
    }

    @Test
    @Order(6)
    void aCaRotationStartedOnOneWorkstationIsFinishedOnTheOther() throws Exception {
        writeSpec(List.of("h1", "h2"), 400, 370, 2);
        Cli.Run phase1 = as(first, "apply", "-i", INV, "-f", spec(), "--yes");
        assertEquals(0, phase1.exitCode(), phase1.all());
        assertTrue(phase1.out().contains("CA rotation 1/3"), phase1.out());
        Cli.Run phase2 = as(second, "apply", "-i", INV, "-f", spec(), "--yes");
        assertEquals(0, phase2.exitCode(), phase2.all());
        assertTrue(phase2.all().contains("State: refreshed from"), phase2.all());
        assertTrue(phase2.out().contains("CA rotation 2/3"), phase2.out());
        assertTrue(phase2.all().contains("a reader certificate was issued for read-only runners"), phase2.all());
        Cli.Run phase3 = as(second, "apply", "-i", INV, "-f", spec(), "--yes");
        assertEquals(0, phase3.exitCode(), phase3.all());
        assertTrue(phase3.out().contains("CA rotation 3/3"), phase3.out());
        Cli.Run plan = as(first, "plan", "-i", INV, "-f", spec(), "--detailed-exitcode");
        assertEquals(0, plan.exitCode(), plan.all());
        Path ca = first.resolve("clusters/" + CLUSTER + "/pki/ca.crt");
        for (int host = 1; host <= 2; host++) {
            assertEquals(sha(ca), hostSha(host, "/etc/etcd/pki/ca.crt"), "h" + host + " trusts the new CA alone");
        }
        assertFalse(Files.exists(first.resolve("clusters/" + CLUSTER + "/pki/rotation")), "the rotation's record is gone");
        assertNoSecretInClear();
    }

    private static String sha(Path file) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    /** No object of the store holds a PEM private key, or 16 bytes in a row of any CA key's DER, in clear. */
    private static void assertNoSecretInClear() {
        List<byte[]> caKeys = new ArrayList<>();
        Path pki = first.resolve("clusters/" + CLUSTER + "/pki");
        for (Path key : List.of(pki.resolve("ca.key"), pki.resolve("previous-ca/generation-1/ca.key"))) {
            if (Files.exists(key)) {
                try {
                    String pem = Files.readString(key);
                    caKeys.add(Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").strip()));
                } catch (java.io.IOException e) {
                    throw new AssertionError(e);
                }
            }
        }
        assertFalse(caKeys.isEmpty(), "the first workstation holds the CA key");
        try (S3Client s3 = s3proxy.client()) {
            List<S3Object> objects = s3.listObjectsV2Paginator(r -> r.bucket(S3Proxy.BUCKET)).contents().stream().toList();
            assertFalse(objects.isEmpty());
            for (S3Object o : objects) {
                byte[] bytes = s3.getObjectAsBytes(r -> r.bucket(S3Proxy.BUCKET).key(o.key())).asByteArray();
                String text = new String(bytes, StandardCharsets.ISO_8859_1);
                assertFalse(text.contains("PRIVATE KEY"), o.key() + " holds a PEM private key");
                for (byte[] der : caKeys) {
                    for (int i = 0; i + 16 <= der.length; i++) {
                        assertFalse(contains(bytes, Arrays.copyOfRange(der, i, i + 16)),
                                o.key() + " holds bytes " + i + ".." + (i + 16) + " of a CA key in clear");
                    }
                }
            }
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
