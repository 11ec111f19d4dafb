package io.etcdwright.modules.pki;

import static io.etcdwright.modules.pki.Fixtures.CLOCK;
import static io.etcdwright.modules.pki.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second opinion from OpenSSL, which is what operators check certificates with on a host.
 * Skipped only where there is no openssl binary.
 */
class OpensslInteropTest {
    private static final Duration YEAR = Duration.ofDays(365);
    private static final String OPENSSL = "/usr/bin/openssl";

    @TempDir
    Path dir;

    @BeforeAll
    static void requireOpenssl() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of(OPENSSL)), OPENSSL + " is not installed");
    }

    @Test
    void opensslVerifiesServerPeerAndClientCertificatesForTheirPurposes() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), CLOCK);
        ca.writeTo(dir);
        write(ca.issue(new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of("h1.etcd.example"),
                List.of("10.77.0.11", "fd00::11"), KeyAlgorithm.ECDSA_P256, YEAR), CLOCK), "server");
        write(ca.issue(new CertificateRequest(Purpose.PEER, "h1", List.of(), List.of("h1.etcd.example"),
                List.of("10.77.0.11"), KeyAlgorithm.RSA_2048, YEAR), CLOCK), "peer");
        write(ca.issue(new CertificateRequest(Purpose.CLIENT, "admin", List.of("system:masters"), List.of(), List.of(),
                KeyAlgorithm.ECDSA_P256, YEAR), CLOCK), "admin");

        String at = Long.toString(NOW.getEpochSecond());
        for (String[] check : new String[][] {{"server", "sslserver"}, {"server", "sslclient"}, {"peer", "sslserver"},
                {"peer", "sslclient"}, {"admin", "sslclient"}}) {
            String output = openssl("verify", "-x509_strict", "-attime", at, "-purpose", check[1],
                    "-CAfile", dir.resolve("ca.crt").toString(), dir.resolve(check[0] + ".crt").toString());
            assertEquals(dir.resolve(check[0] + ".crt") + ": OK", output.strip(), String.join(" ", check));
        }
        Result refused = run("verify", "-attime", at, "-purpose", "sslserver", "-CAfile", dir.resolve("ca.crt").toString(),
                dir.resolve("admin.crt").toString());
        assertTrue(refused.exitCode != 0, "a client certificate must not pass as a server: " + refused.output);

        String extensions = openssl("x509", "-noout", "-ext", "subjectAltName,extendedKeyUsage,basicConstraints",
                "-in", dir.resolve("server.crt").toString());
        assertTrue(extensions.contains("DNS:h1.etcd.example, IP Address:10.77.0.11, IP Address:FD00:0:0:0:0:0:0:11"), extensions);
        assertTrue(extensions.contains("TLS Web Server Authentication, TLS Web Client Authentication"), extensions);
        assertTrue(extensions.contains("CA:FALSE"), extensions);
    }

    @Test
    void opensslReadsTheKeysAndAgreesOnSerialAndFingerprint() throws Exception {
        CertificateAuthority ca = CertificateAuthority.generate("etcd-ca demo", KeyAlgorithm.RSA_2048, YEAR, CLOCK);
        for (KeyAlgorithm algorithm : List.of(KeyAlgorithm.ECDSA_P256, KeyAlgorithm.RSA_2048)) {
            IssuedCertificate issued = ca.issue(new CertificateRequest(Purpose.SERVER, "h1", List.of(), List.of("h1"),
                    List.of(), algorithm, YEAR), CLOCK);
            write(issued, "server");
            String fromKey = openssl("pkey", "-pubout", "-in", dir.resolve("server.key").toString());
            String fromCertificate = openssl("x509", "-noout", "-pubkey", "-in", dir.resolve("server.crt").toString());
            assertEquals(fromCertificate, fromKey, algorithm + ": the key written is the certificate's");

            CertificateInfo info = issued.info();
            String identity = openssl("x509", "-noout", "-serial", "-fingerprint", "-sha256", "-in", dir.resolve("server.crt").toString());
            assertEquals("serial=" + info.serialHex() + "\nsha256 Fingerprint=" + info.sha256Fingerprint(), identity.strip());
        }
    }

    @Test
    void loadsCasThatOpensslMade() throws Exception {
        // Real clock: openssl stamps its certificates with the time now.
        Clock now = Clock.systemUTC();
        Path ecKey = dir.resolve("ec-ca.key");
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-out", ecKey.toString());
        assertTrue(Files.readString(ecKey).startsWith("-----BEGIN EC PARAMETERS-----"), "SEC1 after a parameters block");
        Path rsaKey = dir.resolve("rsa-ca.key");
        openssl("genrsa", "-traditional", "-out", rsaKey.toString(), "2048");
        assertTrue(Files.readString(rsaKey).startsWith("-----BEGIN RSA PRIVATE KEY-----"), "PKCS#1");
        Path pkcs8Key = dir.resolve("pkcs8-ca.key");
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", pkcs8Key.toString());
        assertTrue(Files.readString(pkcs8Key).startsWith("-----BEGIN PRIVATE KEY-----"), "PKCS#8");

        for (Path key : List.of(ecKey, rsaKey, pkcs8Key)) {
            Path certificate = dir.resolve(key.getFileName() + ".crt");
            openssl("req", "-x509", "-new", "-key", key.toString(), "-subj", "/O=Corp/CN=corp etcd CA", "-days", "30",
                    "-out", certificate.toString());
            CertificateAuthority ca = CertificateAuthority.load(certificate, key, now);
            write(ca.issue(new CertificateRequest(Purpose.PEER, "h2", List.of(), List.of("h2.etcd.example"),
                    List.of("10.77.0.12"), KeyAlgorithm.ECDSA_P256, YEAR), now), "peer");
            String output = openssl("verify", "-purpose", "sslserver", "-CAfile", certificate.toString(),
                    dir.resolve("peer.crt").toString());
            assertEquals(dir.resolve("peer.crt") + ": OK", output.strip(), key.getFileName().toString());
        }
    }

    @Test
    void theTraditionalKeyFixturesAreWhatOpensslWrites() throws Exception {
        Path sec1 = Files.writeString(dir.resolve("sec1.key"), Fixtures.sec1Pem(KeyAlgorithm.ECDSA_P256.generateKeyPair()));
        Path pkcs1 = Files.writeString(dir.resolve("pkcs1.key"), Fixtures.pkcs1Pem(KeyAlgorithm.RSA_2048.generateKeyPair()));
        openssl("ec", "-check", "-noout", "-in", sec1.toString());
        openssl("rsa", "-check", "-noout", "-in", pkcs1.toString());
    }

    private void write(IssuedCertificate issued, String name) {
        issued.writeTo(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
    }

    private record Result(int exitCode, String output) {
    }

    private static String openssl(String... arguments) throws Exception {
        Result result = run(arguments);
        assertEquals(0, result.exitCode, "openssl " + String.join(" ", arguments) + "\n" + result.output);
        return result.output;
    }

    private static Result run(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(OPENSSL));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("openssl " + String.join(" ", arguments) + " did not finish");
        }
        return new Result(process.exitValue(), output);
    }
}
