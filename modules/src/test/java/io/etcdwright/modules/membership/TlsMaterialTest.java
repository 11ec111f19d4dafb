package io.etcdwright.modules.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.time.Duration;
import java.util.List;

import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading certificates and keys, and checking endpoints: what connect() refuses, and how it says so. */
class TlsMaterialTest {
    @TempDir
    static Path dir;

    private static TestPki.Issued ca;
    private static Path caFile;

    @BeforeAll
    static void makeCa() throws Exception {
        ca = TestPki.ca("unit test CA");
        caFile = dir.resolve("ca.crt");
        TestPki.writePem(caFile, ca.certificate());
    }

    @Test
    void readsPkcs8EcAndRsaKeys() throws Exception {
        for (KeyPair kp : List.of(TestPki.ecKey(), TestPki.rsaKey())) {
            TestPki.Issued client = TestPki.client(ca, "admin", kp);
            Path cert = dir.resolve("c-" + kp.getPrivate().getAlgorithm() + ".crt");
            Path key = dir.resolve("c-" + kp.getPrivate().getAlgorithm() + ".key");
            client.write(cert, key);
            assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----"));
            TlsMaterial tls = TlsMaterial.read(caFile, cert, key);
            assertEquals(kp.getPrivate(), tls.clientKey());
            tls.clientContext();
        }
    }

    @Test
    void readsTraditionalOpenSslKeysToo() throws Exception {
        KeyPair kp = TestPki.ecKey();
        TestPki.Issued client = TestPki.client(ca, "admin", kp);
        Path cert = dir.resolve("sec1.crt");
        Path key = dir.resolve("sec1.key");
        TestPki.writePem(cert, client.certificate());
        // SEC1 with the curve and the public key in it, as openssl ecparam -genkey and cfssl write it.
        org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256,
                ((ECPrivateKey) kp.getPrivate()).getS(),
                SubjectPublicKeyInfo.getInstance(kp.getPublic().getEncoded()).getPublicKeyData(),
                SECObjectIdentifiers.secp256r1);
        try (Writer w = Files.newBufferedWriter(key, StandardCharsets.US_ASCII); JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(new PemObject("EC PRIVATE KEY", sec1.getEncoded()));
        }
        assertTrue(Files.readString(key).contains("-----BEGIN EC PRIVATE KEY-----"));
        ECPrivateKey read = (ECPrivateKey) TlsMaterial.read(caFile, cert, key).clientKey();
        assertEquals(((ECPrivateKey) kp.getPrivate()).getS(), read.getS());
    }

    @Test
    void tellsWhetherTheKeyIsTheCertificates() throws Exception {
        for (KeyPair kp : List.of(TestPki.ecKey(), TestPki.rsaKey())) {
            TestPki.Issued client = TestPki.client(ca, "admin", kp);
            assertTrue(TlsMaterial.matches(client.key(), client.certificate()));
            KeyPair other = kp.getPrivate().getAlgorithm().equals("EC") ? TestPki.ecKey() : TestPki.rsaKey();
            assertFalse(TlsMaterial.matches(other.getPrivate(), client.certificate()));
            assertFalse(TlsMaterial.matches(kp.getPrivate().getAlgorithm().equals("EC")
                    ? TestPki.rsaKey().getPrivate() : TestPki.ecKey().getPrivate(), client.certificate()));
        }
    }

    @Test
    void refusesAnEncryptedKeyWithAHint() throws Exception {
        TestPki.Issued client = TestPki.client(ca, "admin", TestPki.ecKey());
        Path cert = dir.resolve("enc.crt");
        Path key = dir.resolve("enc.key");
        TestPki.writePem(cert, client.certificate());
        try (Writer w = Files.newBufferedWriter(key, StandardCharsets.US_ASCII); JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(new JcaPKCS8Generator(client.key(),
                    new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC)
                            .setProvider(new BouncyCastleProvider())
                            .setPassword("secret".toCharArray()).build()));
        }
        EtcdAdminException e = assertThrows(EtcdAdminException.class, () -> TlsMaterial.read(caFile, cert, key));
        assertTrue(e.getMessage().contains("is encrypted") && e.getMessage().contains("-nocrypt"), e.getMessage());
    }

    @Test
    void namesTheMissingOrWrongFile() throws Exception {
        Path missing = dir.resolve("nope.crt");
        EtcdAdminException e = assertThrows(EtcdAdminException.class,
                () -> TlsMaterial.read(caFile, missing, missing));
        assertEquals("client certificate " + missing + " does not exist", e.getMessage());

        Path keyAsCa = dir.resolve("key-as-ca.pem");
        TestPki.writeKey(keyAsCa, TestPki.ecKey().getPrivate());
        e = assertThrows(EtcdAdminException.class, () -> TlsMaterial.read(keyAsCa, keyAsCa, keyAsCa));
        assertTrue(e.getMessage().startsWith("CA certificate " + keyAsCa + " holds no PEM certificate"), e.getMessage());

        e = assertThrows(EtcdAdminException.class, () -> TlsMaterial.read(caFile, caFile, caFile));
        assertTrue(e.getMessage().startsWith("client key " + caFile + " holds no PEM private key"), e.getMessage());
    }

    @Test
    void endpointsAreHttpsUrlsOrAllPlainHttp() {
        assertEquals(List.of("https://10.77.0.11:2379", "https://etcd-2:2379"),
                EtcdAdminClient.parseEndpoints(List.of("https://10.77.0.11:2379/", "HTTPS://Etcd-2",
                        "https://10.77.0.11:2379")).stream().map(Object::toString).collect(java.util.stream.Collectors.toList()));
        // A plaintext cluster (tls.transport.clients plaintext): every endpoint http://, never a mix.
        assertEquals(List.of("http://10.77.0.11:2379"), EtcdAdminClient.parseEndpoints(List.of("HTTP://10.77.0.11"))
                .stream().map(Object::toString).toList());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EtcdAdminClient.parseEndpoints(List.of("http://10.77.0.11:2379", "https://10.77.0.12:2379")));
        assertTrue(e.getMessage().contains("mix http:// and https://"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> EtcdAdminClient.parseEndpoints(List.of("unix://10.77.0.11:2379")));
        assertTrue(e.getMessage().contains("must be https://"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> EtcdAdminClient.parseEndpoints(List.of("10.77.0.11:2379")));
        assertTrue(e.getMessage().contains("is not a URL like https://10.0.0.1:2379"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> EtcdAdminClient.parseEndpoints(List.of("https://10.77.0.11:2379/v3")));
        assertTrue(e.getMessage().contains("must be just https://HOST:PORT"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EtcdAdminClient.parseEndpoints(List.of()));
    }

    @Test
    void timeoutsReadAsAPersonWritesThem() {
        assertEquals("2 s", Failures.seconds(Duration.ofSeconds(2)));
        assertEquals("1.5 s", Failures.seconds(Duration.ofMillis(1500)));
        assertEquals("500 ms", Failures.seconds(Duration.ofMillis(500)));
    }
}
