package io.etcdwright.modules.backup.crypto;

import io.etcdwright.modules.pki.Pem;
import io.etcdwright.modules.pki.PkiException;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.security.PrivateKey;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.pkcs.PKCSException;

/**
 * Reading the private key that restores a backup: PEM PKCS#8 ({@code BEGIN PRIVATE KEY}),
 * traditional RSA or EC, or any of those encrypted with a passphrase taken from
 * {@value #PASSPHRASE_VARIABLE} (an environment variable, so it is neither on a command line
 * nor in a file; it is never logged).
 */
public final class PrivateKeys {
    public static final String PASSPHRASE_VARIABLE = "ETCDWRIGHT_BACKUP_KEY_PASSPHRASE";

    private PrivateKeys() {
    }

    /** The private key in {@code file}; an encrypted one is opened with {@value #PASSPHRASE_VARIABLE}. */
    public static PrivateKey read(Path file) {
        String passphrase = System.getenv(PASSPHRASE_VARIABLE);
        return read(file, passphrase == null ? null : passphrase.toCharArray());
    }

    /** The private key in {@code file}, opened with {@code passphrase} (null: none) if it is encrypted. */
    public static PrivateKey read(Path file, char[] passphrase) {
        String source = file.toString();
        String pem = Pem.readFile(file, "backup private key");
        Object encrypted = firstEncrypted(pem, source);
        if (encrypted == null) {
            return Pem.readPrivateKey(pem, source);
        }
        if (passphrase == null || passphrase.length == 0) {
            throw new PkiException("private key " + source + " is encrypted: set " + PASSPHRASE_VARIABLE
                    + " to its passphrase, or decrypt a copy with 'openssl pkey -in " + source
                    + " -out DECRYPTED.key' (keep it 0600, offline, and delete it after the restore)");
        }
        return decrypt(encrypted, passphrase, source);
    }

    private static Object firstEncrypted(String pem, String source) {
        if (!pem.contains("-----BEGIN ")) {
            return null; // Pem.readPrivateKey explains what is wrong
        }
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
                    return object;
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            throw new PkiException("damaged PEM in " + source + ": " + e.getMessage(), e);
        }
    }

    private static PrivateKey decrypt(Object encrypted, char[] passphrase, String source) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try {
            if (encrypted instanceof PKCS8EncryptedPrivateKeyInfo info) {
                return converter.getPrivateKey(info.decryptPrivateKeyInfo(
                        new JceOpenSSLPKCS8DecryptorProviderBuilder().setProvider(Providers.BC).build(passphrase)));
            }
            PEMEncryptedKeyPair pair = (PEMEncryptedKeyPair) encrypted;
            return converter.getKeyPair(pair.decryptKeyPair(
                    new JcePEMDecryptorProviderBuilder().setProvider(Providers.BC).build(passphrase))).getPrivate();
        } catch (PKCSException | OperatorCreationException | IOException e) {
            throw new PkiException("cannot decrypt private key " + source + " with the passphrase in "
                    + PASSPHRASE_VARIABLE + " (wrong passphrase?)", e);
        }
    }
}
