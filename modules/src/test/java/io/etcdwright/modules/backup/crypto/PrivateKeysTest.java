package io.etcdwright.modules.backup.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.modules.backup.crypto.Openssl.KeyFiles;
import io.etcdwright.modules.pki.PkiException;
import java.nio.file.Path;
import java.security.PrivateKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateKeysTest {
    @TempDir
    Path dir;

    @Test
    void readsPkcs8AndTraditionalKeys() throws Exception {
        KeyFiles ec = Openssl.ecKeyPair(dir, "ec");
        PrivateKey pkcs8 = PrivateKeys.read(ec.key(), null);
        Path traditional = dir.resolve("ec-traditional.key");
        Openssl.run("ec", "-in", ec.key().toString(), "-out", traditional.toString());
        assertSameKey(pkcs8, PrivateKeys.read(traditional, null));
        KeyFiles rsa = Openssl.rsaKeyPair(dir, "rsa");
        Path pkcs1 = dir.resolve("rsa-traditional.key");
        Openssl.run("rsa", "-in", rsa.key().toString(), "-traditional", "-out", pkcs1.toString());
        assertSameKey(PrivateKeys.read(rsa.key(), null), PrivateKeys.read(pkcs1, null));
    }

    @Test
    void anEncryptedKeyNeedsThePassphrase() throws Exception {
        KeyFiles ec = Openssl.ecKeyPair(dir, "ec");
        Path encrypted = dir.resolve("encrypted.key");
        Openssl.run("pkey", "-in", ec.key().toString(), "-aes256", "-passout", "pass:correct horse", "-out", encrypted.toString());
        PkiException missing = assertThrows(PkiException.class, () -> PrivateKeys.read(encrypted, null));
        assertTrue(missing.getMessage().contains("is encrypted: set ETCDWRIGHT_BACKUP_KEY_PASSPHRASE"), missing.getMessage());
        PkiException wrong = assertThrows(PkiException.class, () -> PrivateKeys.read(encrypted, "wrong".toCharArray()));
        assertTrue(wrong.getMessage().contains("wrong passphrase?"), wrong.getMessage());
        assertTrue(!wrong.getMessage().contains("wrong\"") && !wrong.getMessage().contains("correct horse"));
        assertSameKey(PrivateKeys.read(ec.key(), null), PrivateKeys.read(encrypted, "correct horse".toCharArray()));
        Path traditional = dir.resolve("traditional-encrypted.key");
        Openssl.run("ec", "-in", ec.key().toString(), "-aes256", "-passout", "pass:correct horse", "-out", traditional.toString());
        assertSameKey(PrivateKeys.read(ec.key(), null), PrivateKeys.read(traditional, "correct horse".toCharArray()));
    }

    @Test
    void aCertificateIsNotAPrivateKey() throws Exception {
        KeyFiles ec = Openssl.ecKeyPair(dir, "ec");
        PkiException e = assertThrows(PkiException.class, () -> PrivateKeys.read(ec.certificate(), null));
        assertTrue(e.getMessage().contains("holds a certificate, not a private key"), e.getMessage());
    }

    /** The same key whatever the encoding (SEC1 and PKCS#8 differ in the optional public key). */
    private static void assertSameKey(PrivateKey expected, PrivateKey actual) throws Exception {
        assertArrayEquals(PublicKeys.of(expected).getEncoded(), PublicKeys.of(actual).getEncoded());
    }
}
