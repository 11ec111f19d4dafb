package io.etcdwright.modules.pki;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PemTest {
    @TempDir
    Path dir;

    @Test
    void writesPkcs8AndReadsItBack() {
        for (KeyAlgorithm algorithm : new KeyAlgorithm[] {KeyAlgorithm.ECDSA_P256, KeyAlgorithm.RSA_2048}) {
            PrivateKey key = algorithm.generateKeyPair().getPrivate();
            String pem = Pem.privateKey(key);
            assertTrue(pem.startsWith("-----BEGIN PRIVATE KEY-----\n"), pem);
            assertTrue(pem.endsWith("\n-----END PRIVATE KEY-----\n"), pem);
            assertTrue(pem.lines().allMatch(line -> line.length() <= 64), "lines of at most 64 characters");
            assertArrayEquals(key.getEncoded(), Pem.readPrivateKey(pem, "test.key").getEncoded());
        }
    }

    @Test
    void readsTraditionalRsaAndEcKeys() throws Exception {
        KeyPair rsa = KeyAlgorithm.RSA_2048.generateKeyPair();
        String pkcs1 = Fixtures.pkcs1Pem(rsa);
        assertTrue(pkcs1.startsWith("-----BEGIN RSA PRIVATE KEY-----"), pkcs1);
        assertArrayEquals(rsa.getPrivate().getEncoded(), Pem.readPrivateKey(pkcs1, "rsa.key").getEncoded());

        KeyPair ec = KeyAlgorithm.ECDSA_P256.generateKeyPair();
        String sec1 = Fixtures.sec1Pem(ec);
        assertTrue(sec1.startsWith("-----BEGIN EC PRIVATE KEY-----"), sec1);
        PrivateKey read = Pem.readPrivateKey("some comment\n" + sec1, "ec.key");
        assertEquals(((java.security.interfaces.ECPrivateKey) ec.getPrivate()).getS(),
                ((java.security.interfaces.ECPrivateKey) read).getS());
    }

    @Test
    void refusesAnEncryptedKeyAndSaysHowToDecryptIt() throws Exception {
        PrivateKey key = KeyAlgorithm.ECDSA_P256.generateKeyPair().getPrivate();
        var encryptor = new JceOpenSSLPKCS8EncryptorBuilder(PKCSObjectIdentifiers.pbeWithSHAAnd3_KeyTripleDES_CBC)
                .setPassword("pw".toCharArray()).build();
        String encrypted = Fixtures.write(new JcaPKCS8Generator(key, encryptor));
        PkiException e = assertThrows(PkiException.class, () -> Pem.readPrivateKey(encrypted, "/pki/ca.key"));
        assertEquals("private key /pki/ca.key is encrypted; etcdwright needs it unencrypted (decrypt a copy with"
                + " 'openssl pkey -in /pki/ca.key -out DECRYPTED.key' and keep it 0600)", e.getMessage());
    }

    @Test
    void garbageGivesAMessageNamingTheSource() {
        PkiException none = assertThrows(PkiException.class, () -> Pem.readCertificate("hello", "h1:/etc/etcd/pki/server.crt"));
        assertTrue(none.getMessage().startsWith("no PEM data in h1:/etc/etcd/pki/server.crt"), none.getMessage());

        PkiException damaged = assertThrows(PkiException.class, () -> Pem.readCertificate(
                "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n", "server.crt"));
        assertTrue(damaged.getMessage().startsWith("damaged PEM in server.crt: "), damaged.getMessage());

        PkiException truncated = assertThrows(PkiException.class, () -> Pem.readCertificate(
                "-----BEGIN CERTIFICATE-----\nMIIB\n", "server.crt"));
        assertTrue(truncated.getMessage().startsWith("damaged PEM in server.crt: "), truncated.getMessage());

        String publicKey = "-----BEGIN PUBLIC KEY-----\n" + java.util.Base64.getMimeEncoder().encodeToString(
                KeyAlgorithm.ECDSA_P256.generateKeyPair().getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
        PkiException noKey = assertThrows(PkiException.class, () -> Pem.readPrivateKey(publicKey, "ca.key"));
        assertTrue(noKey.getMessage().startsWith("no private key in ca.key: expected a block starting"), noKey.getMessage());
    }

    @Test
    void swappedCertificateAndKeyAreNamedAsSuch() {
        String key = Pem.privateKey(KeyAlgorithm.ECDSA_P256.generateKeyPair().getPrivate());
        PkiException e = assertThrows(PkiException.class, () -> Pem.readCertificate(key, "ca.crt"));
        assertEquals("ca.crt holds a private key, not a certificate (are the certificate and key paths swapped?)", e.getMessage());
    }

    @Test
    void readFileNamesAMissingFileAndRefusesDer() throws Exception {
        Path missing = dir.resolve("nope.crt");
        PkiException e = assertThrows(PkiException.class, () -> Pem.readFile(missing, "CA certificate"));
        assertEquals("CA certificate " + missing + " does not exist", e.getMessage());

        Path der = dir.resolve("ca.der");
        Files.write(der, new byte[] {0x30, (byte) 0x82, 0x01, 0x0a, (byte) 0xff});
        PkiException derError = assertThrows(PkiException.class,
                () -> Pem.readCertificate(Pem.readFile(der, "CA certificate"), der.toString()));
        assertTrue(derError.getMessage().contains("openssl x509 -inform der"), derError.getMessage());
    }
}
