package io.etcdwright.modules.backup.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.modules.backup.crypto.Openssl.KeyFiles;
import io.etcdwright.modules.pki.PkiException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecipientsTest {
    @TempDir
    Path dir;

    @Test
    void readsSeveralCertificatesFromOneFileAndBarePublicKeys() throws Exception {
        KeyFiles a = Openssl.ecKeyPair(dir, "a");
        KeyFiles b = Openssl.rsaKeyPair(dir, "b");
        Path bundle = dir.resolve("bundle.crt");
        Files.writeString(bundle, Files.readString(a.certificate()) + Files.readString(b.certificate()));
        Recipients recipients = Recipients.load(List.of(bundle, a.publicKey()));
        assertEquals(3, recipients.all().size());
        assertNotNull(recipients.all().get(0).certificate());
        assertEquals("RSA", recipients.all().get(1).publicKey().getAlgorithm());
        assertNull(recipients.all().get(2).certificate());
        assertArrayEquals(recipients.all().get(0).subjectKeyId(), recipients.all().get(2).subjectKeyId());
    }

    @Test
    void acceptsP384() throws Exception {
        Path key = dir.resolve("p384.key");
        Path pub = dir.resolve("p384.pub");
        Openssl.run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", key.toString());
        Openssl.run("pkey", "-in", key.toString(), "-pubout", "-out", pub.toString());
        Recipients recipients = Recipients.load(List.of(pub));
        byte[] plain = BackupEncryptionTest.random(50_000);
        java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
        try (var out = BackupEncryption.encrypting(sink, recipients)) {
            out.write(plain);
        }
        try (InputStream in = BackupEncryption.decrypting(
                new ByteArrayInputStream(sink.toByteArray()), PrivateKeys.read(key), null)) {
            assertArrayEquals(plain, in.readAllBytes());
        }
    }

    @Test
    void refusesAPrivateKey() throws Exception {
        KeyFiles a = Openssl.ecKeyPair(dir, "a");
        Path both = dir.resolve("both.pem");
        Files.writeString(both, Files.readString(a.certificate()) + Files.readString(a.key()));
        for (Path file : List.of(a.key(), both)) {
            PkiException e = assertThrows(PkiException.class, () -> Recipients.load(List.of(file)));
            assertTrue(e.getMessage().startsWith(file + " holds a PRIVATE key"), e.getMessage());
            assertTrue(e.getMessage().contains("must stay offline"), e.getMessage());
        }
    }

    @Test
    void refusesWeakOrUnsupportedKeys() throws Exception {
        assertRefused("rsa1024", List.of("-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"),
                "1024-bit RSA key; at least 2048 bits");
        assertRefused("p521", List.of("-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"),
                "only P-256 (prime256v1) and P-384 (secp384r1)");
        assertRefused("ed25519", List.of("-algorithm", "ED25519"), "only RSA and EC");
    }

    @Test
    void explainsFilesWithoutKeys() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.pem"), "hello\n");
        PkiException e = assertThrows(PkiException.class, () -> Recipients.load(List.of(empty)));
        assertTrue(e.getMessage().startsWith("no PEM data in " + empty), e.getMessage());
        Path missing = dir.resolve("missing.crt");
        e = assertThrows(PkiException.class, () -> Recipients.load(List.of(missing)));
        assertTrue(e.getMessage().contains(missing + " does not exist"), e.getMessage());
        e = assertThrows(PkiException.class, () -> Recipients.load(List.of()));
        assertTrue(e.getMessage().contains("backup.encryption.recipients is empty"), e.getMessage());
    }

    private void assertRefused(String name, List<String> genpkey, String expected) throws Exception {
        Path key = dir.resolve(name + ".key");
        Path pub = dir.resolve(name + ".pub");
        List<String> args = new java.util.ArrayList<>(List.of("genpkey"));
        args.addAll(genpkey);
        args.addAll(List.of("-out", key.toString()));
        Openssl.run(args.toArray(String[]::new));
        Openssl.run("pkey", "-in", key.toString(), "-pubout", "-out", pub.toString());
        PkiException e = assertThrows(PkiException.class, () -> Recipients.load(List.of(pub)));
        assertTrue(e.getMessage().startsWith("cannot encrypt backups to the key in " + pub), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
