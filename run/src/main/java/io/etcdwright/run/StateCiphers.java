package io.etcdwright.run;

import io.etcdwright.engine.spec.StateSettings;
import io.etcdwright.modules.backup.crypto.PrivateKeys;
import io.etcdwright.modules.backup.crypto.Recipient;
import io.etcdwright.modules.backup.crypto.Recipients;
import io.etcdwright.modules.backup.crypto.SharedKey;
import io.etcdwright.modules.pki.Pem;
import io.etcdwright.modules.pki.PkiException;
import io.etcdwright.modules.state.StateCipher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The keys of {@code state.encryption} as this workstation has them (or why it has not). */
public final class StateCiphers {
    private StateCiphers() {
    }

    public static StateCipher load(StateSettings.Encryption encryption) {
        Optional<SharedKey> shared = Optional.empty();
        Optional<String> sharedProblem = Optional.empty();
        String sharedSource = encryption.key().map(StateSettings.Secret::describe).orElse("");
        if (encryption.key().isPresent()) {
            try {
                shared = Optional.of(sharedKey(encryption.key().get()));
            } catch (IllegalArgumentException e) {
                sharedProblem = Optional.of(e.getMessage());
            }
        }
        List<Recipient> recipients = new ArrayList<>();
        encryption.recipients().forEach(file -> recipients.addAll(Recipients.read(file)));
        Optional<PrivateKey> privateKey = Optional.empty();
        Optional<X509Certificate> certificate = Optional.empty();
        Optional<String> privateProblem = Optional.empty();
        if (encryption.privateKey().isPresent()) {
            try {
                // Decryption finds its recipient by the key's own identifier, or by trying the key on each.
                privateKey = Optional.of(privateKey(encryption.privateKey().get()));
            } catch (IllegalArgumentException | PkiException e) {
                privateProblem = Optional.of(e.getMessage());
            }
        }
        return new StateCipher(shared, sharedSource, sharedProblem, recipients, privateKey, certificate, privateProblem,
                encryption.key().isPresent());
    }

    /** The shared key from its variable or file; the message never holds the key. */
    public static SharedKey sharedKey(StateSettings.Secret secret) {
        if (secret instanceof StateSettings.Secret.Env env) {
            String value = System.getenv(env.variable());
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(env.describe() + " is not set (it holds the state's key, base64)");
            }
            return SharedKey.parse(value, env.describe());
        }
        Path file = ((StateSettings.Secret.File) secret).path();
        return SharedKey.parse(readPrivateFile(file, "the state's key"), secret.describe());
    }

    private static PrivateKey privateKey(StateSettings.Secret secret) {
        if (secret instanceof StateSettings.Secret.Env env) {
            String value = System.getenv(env.variable());
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(env.describe() + " is not set (it holds this workstation's state private key, PEM)");
            }
            return Pem.readPrivateKey(value, env.describe());
        }
        Path file = ((StateSettings.Secret.File) secret).path();
        readPrivateFile(file, "the state's private key");
        return PrivateKeys.read(file);
    }

    /** A key file must be this user's alone: readable by others, it is refused before it is used. */
    private static String readPrivateFile(Path file, String what) {
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.contains(PosixFilePermission.OTHERS_READ) || mode.contains(PosixFilePermission.GROUP_READ)) {
                throw new IllegalArgumentException(file + " (" + what + ") can be read by other users: make it private"
                        + " with 'chmod 600 " + file + "' (and make a new key if others may have read it)");
            }
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("the file " + file + " (" + what + ") does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + " (" + what + "): " + e.getMessage());
        }
    }
}
