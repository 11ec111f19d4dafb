package io.etcdwright.modules.backup.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.modules.backup.crypto.Openssl.KeyFiles;
import io.etcdwright.modules.pki.Pem;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackupEncryptionTest {
    @TempDir
    static Path keys;
    static KeyFiles ec;
    static KeyFiles rsa;
    static KeyFiles other;

    @TempDir
    Path dir;

    @BeforeAll
    static void makeKeys() throws Exception {
        ec = Openssl.ecKeyPair(keys, "ec");
        rsa = Openssl.rsaKeyPair(keys, "rsa");
        other = Openssl.ecKeyPair(keys, "other");
    }

    @Test
    void roundTripToAnEcCertificate() throws Exception {
        byte[] plain = random(300_000);
        byte[] encrypted = encrypt(plain, ec.certificate());
        assertTrue(BackupEncryption.isCms(head(encrypted)));
        assertEquals(-1, indexOf(encrypted, Arrays.copyOfRange(plain, 1000, 1032)), "plaintext shows through");
        assertArrayEquals(plain, decrypt(encrypted, ec, true));
        assertArrayEquals(plain, decrypt(encrypted, ec, false));
    }

    @Test
    void roundTripToAnRsaCertificate() throws Exception {
        byte[] plain = random(300_000);
        byte[] encrypted = encrypt(plain, rsa.certificate());
        assertArrayEquals(plain, decrypt(encrypted, rsa, true));
        assertArrayEquals(plain, decrypt(encrypted, rsa, false));
    }

    @Test
    void roundTripToBarePublicKeysNamedBySubjectKeyId() throws Exception {
        byte[] plain = random(70_000);
        byte[] encrypted = encrypt(plain, ec.publicKey(), rsa.publicKey());
        assertArrayEquals(plain, decrypt(encrypted, ec, false));
        assertArrayEquals(plain, decrypt(encrypted, rsa, false));
        // openssl puts the same RFC 5280 method-1 identifier in its certificates.
        assertTrue(Openssl.run("x509", "-in", ec.certificate().toString(), "-noout", "-ext", "subjectKeyIdentifier")
                .toUpperCase().contains(java.util.HexFormat.ofDelimiter(":").withUpperCase()
                        .formatHex(Recipients.read(ec.publicKey()).get(0).subjectKeyId())));
    }

    @Test
    void eachOfTwoRecipientsCanDecrypt() throws Exception {
        byte[] plain = random(123_457);
        byte[] encrypted = encrypt(plain, ec.certificate(), rsa.certificate());
        assertArrayEquals(plain, decrypt(encrypted, ec, false));
        assertArrayEquals(plain, decrypt(encrypted, rsa, true));
    }

    @Test
    void emptyBackupRoundTrips() throws Exception {
        assertArrayEquals(new byte[0], decrypt(encrypt(new byte[0], ec.certificate()), ec, false));
    }

    @Test
    void aKeyTheBackupIsNotEncryptedToIsRefused() throws Exception {
        byte[] encrypted = encrypt(random(1000), ec.certificate(), rsa.publicKey());
        IOException e = assertThrows(IOException.class, () -> decrypt(encrypted, other, false));
        assertTrue(e.getMessage().contains("cannot open this backup") || e.getMessage().contains("not encrypted to"),
                e.getMessage());
        assertTrue(e.getMessage().contains("2 recipient(s)"), e.getMessage());
        IOException named = assertThrows(IOException.class, () -> decrypt(encrypted, other, true));
        assertTrue(named.getMessage().startsWith("this backup is not encrypted to the given private key"),
                named.getMessage());
    }

    @Test
    void aCertificateOfAnotherKeyIsRefused() throws Exception {
        byte[] encrypted = encrypt(random(1000), ec.certificate());
        X509Certificate wrong = Pem.readCertificate(Files.readString(other.certificate()), "other");
        IOException e = assertThrows(IOException.class, () -> BackupEncryption.decrypting(
                new ByteArrayInputStream(encrypted), PrivateKeys.read(ec.key()), wrong));
        assertTrue(e.getMessage().contains("does not belong to the given private key"), e.getMessage());
    }

    @Test
    void aFlippedByteIsRefusedAtTheEnd() throws Exception {
        byte[] plain = random(200_000);
        byte[] encrypted = encrypt(plain, ec.certificate());
        encrypted[encrypted.length / 2] ^= 0x01;
        IOException e = assertThrows(IOException.class, () -> decrypt(encrypted, ec, false));
        assertEquals(DecryptingStream.TAMPERED, e.getMessage());
    }

    @Test
    void aChangedTagIsRefused() throws Exception {
        byte[] encrypted = encrypt(random(5_000), ec.certificate());
        // The 16-byte mac is near the end, before the BER end-of-contents octets.
        encrypted[encrypted.length - 10] ^= 0x40;
        IOException e = assertThrows(IOException.class, () -> decrypt(encrypted, ec, false));
        assertEquals(DecryptingStream.TAMPERED, e.getMessage());
    }

    @Test
    void aTruncatedBackupIsRefused() throws Exception {
        byte[] plain = random(200_000);
        byte[] encrypted = encrypt(plain, rsa.certificate());
        for (int cut : new int[] {encrypted.length / 2, encrypted.length - 20, encrypted.length - 1}) {
            byte[] truncated = Arrays.copyOf(encrypted, cut);
            IOException e = assertThrows(IOException.class, () -> decrypt(truncated, rsa, false), "cut at " + cut);
            assertTrue(e.getMessage().startsWith("the backup"), e.getMessage());
        }
    }

    @Test
    void openSslDecryptsWhatEtcdwrightEncrypts() throws Exception {
        byte[] plain = random(1_000_003);
        Path input = Files.write(dir.resolve("plain"), plain);
        Path encrypted = dir.resolve("etcd.backup.gz.p7m");
        try (InputStream in = Files.newInputStream(input);
                OutputStream out = BackupEncryption.encrypting(Files.newOutputStream(encrypted),
                        Recipients.load(List.of(ec.certificate(), rsa.certificate(), other.publicKey())))) {
            in.transferTo(out);
        }
        for (KeyFiles holder : List.of(ec, rsa)) {
            Path output = dir.resolve("out-" + holder.key().getFileName());
            Openssl.run("cms", "-decrypt", "-inform", "DER", "-binary", "-in", encrypted.toString(),
                    "-inkey", holder.key().toString(), "-recip", holder.certificate().toString(), "-out", output.toString());
            assertArrayEquals(plain, Files.readAllBytes(output));
        }
        // A recipient named by key id: openssl finds it with the key alone.
        Path output = dir.resolve("out-keyid");
        Openssl.run("cms", "-decrypt", "-inform", "DER", "-binary", "-in", encrypted.toString(),
                "-inkey", other.key().toString(), "-out", output.toString());
        assertArrayEquals(plain, Files.readAllBytes(output));
        assertTrue(Openssl.run("cms", "-cmsout", "-print", "-inform", "DER", "-in", encrypted.toString())
                .contains("id-smime-ct-authEnvelopedData"));
    }

    @Test
    void etcdwrightDecryptsWhatOpenSslEncrypts() throws Exception {
        byte[] plain = random(1_000_003);
        Path input = Files.write(dir.resolve("plain"), plain);
        for (KeyFiles holder : List.of(ec, rsa)) {
            Path encrypted = dir.resolve("openssl-" + holder.key().getFileName() + ".p7m");
            Openssl.run("cms", "-encrypt", "-aes-256-gcm", "-binary", "-stream", "-outform", "DER",
                    "-in", input.toString(), "-out", encrypted.toString(), holder.certificate().toString());
            byte[] bytes = Files.readAllBytes(encrypted);
            assertTrue(BackupEncryption.isCms(head(bytes)));
            assertArrayEquals(plain, decrypt(bytes, holder, true));
            assertArrayEquals(plain, decrypt(bytes, holder, false));
        }
    }

    @Test
    void aWrongRsaKeyIsRefusedOnAnOpenSslPkcs1Backup() throws Exception {
        // openssl wraps to RSA with PKCS#1 v1.5 by default; a wrong key must not pass as "damaged".
        Path input = Files.write(dir.resolve("plain"), random(10_000));
        Path encrypted = dir.resolve("pkcs1.p7m");
        Openssl.run("cms", "-encrypt", "-aes-256-gcm", "-binary", "-outform", "DER",
                "-in", input.toString(), "-out", encrypted.toString(), rsa.certificate().toString());
        KeyFiles wrong = Openssl.rsaKeyPair(dir, "wrong");
        IOException e = assertThrows(IOException.class, () -> decrypt(Files.readAllBytes(encrypted), wrong, false));
        assertTrue(e.getMessage().startsWith("the given private key cannot open this backup"), e.getMessage());
    }

    @Test
    void etcdwrightDecryptsOpenSslKeyIdRecipients() throws Exception {
        byte[] plain = random(10_000);
        Path input = Files.write(dir.resolve("plain"), plain);
        Path encrypted = dir.resolve("keyid.p7m");
        Openssl.run("cms", "-encrypt", "-aes-256-gcm", "-binary", "-outform", "DER", "-keyid",
                "-in", input.toString(), "-out", encrypted.toString(), ec.certificate().toString(), rsa.certificate().toString());
        assertArrayEquals(plain, decrypt(Files.readAllBytes(encrypted), ec, false));
        assertArrayEquals(plain, decrypt(Files.readAllBytes(encrypted), rsa, false));
    }

    @Test
    void unauthenticatedEnvelopedDataIsRefused() throws Exception {
        Path input = Files.write(dir.resolve("plain"), random(1000));
        Path encrypted = dir.resolve("cbc.p7m");
        Openssl.run("cms", "-encrypt", "-aes-256-cbc", "-binary", "-outform", "DER",
                "-in", input.toString(), "-out", encrypted.toString(), ec.certificate().toString());
        byte[] bytes = Files.readAllBytes(encrypted);
        assertTrue(BackupEncryption.isCms(head(bytes)));
        IOException e = assertThrows(IOException.class, () -> decrypt(bytes, ec, false));
        assertTrue(e.getMessage().contains("EnvelopedData (encrypted without authentication"), e.getMessage());
    }

    @Test
    void tellsGzipFromCms() throws Exception {
        byte[] gzip = {0x1f, (byte) 0x8b, 0x08, 0x00};
        assertTrue(BackupEncryption.isGzip(gzip));
        assertFalse(BackupEncryption.isCms(gzip));
        byte[] cms = encrypt(random(10), ec.certificate());
        assertTrue(BackupEncryption.isCms(head(cms)));
        assertFalse(BackupEncryption.isGzip(head(cms)));
        assertFalse(BackupEncryption.isCms(new byte[0]));
        assertFalse(BackupEncryption.isCms(new byte[] {0x30}));
        assertFalse(BackupEncryption.isCms(new byte[] {0x30, (byte) 0x82, 0x01, 0x00, 0x06, 0x03, 0x55, 0x04, 0x03}));
        IOException e = assertThrows(IOException.class, () -> BackupEncryption.decrypting(
                new ByteArrayInputStream(gzip), PrivateKeys.read(ec.key()), null));
        assertTrue(e.getMessage().startsWith("this is not an encrypted backup"), e.getMessage());
    }

    @Test
    void twoEncryptionsOfTheSameDataDiffer() throws Exception {
        byte[] plain = random(1000);
        assertNotEquals(Arrays.toString(encrypt(plain, ec.certificate())), Arrays.toString(encrypt(plain, ec.certificate())));
    }

    static byte[] encrypt(byte[] plain, Path... recipients) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (OutputStream out = BackupEncryption.encrypting(sink, Recipients.load(List.of(recipients)))) {
            // Odd-sized writes, as a gzip stream makes them.
            for (int at = 0; at < plain.length; at += 7_919) {
                out.write(plain, at, Math.min(7_919, plain.length - at));
            }
        }
        return sink.toByteArray();
    }

    static byte[] decrypt(byte[] encrypted, KeyFiles holder, boolean withCertificate) throws IOException {
        X509Certificate certificate = withCertificate
                ? Pem.readCertificate(Files.readString(holder.certificate()), holder.certificate().toString()) : null;
        try (InputStream in = BackupEncryption.decrypting(
                new ByteArrayInputStream(encrypted), PrivateKeys.read(holder.key()), certificate)) {
            return in.readAllBytes();
        }
    }

    static byte[] random(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    static byte[] head(byte[] bytes) {
        return Arrays.copyOf(bytes, Math.min(bytes.length, BackupEncryption.headerLength()));
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
