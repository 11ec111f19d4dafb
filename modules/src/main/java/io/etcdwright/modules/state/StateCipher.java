package io.etcdwright.modules.state;

import io.etcdwright.modules.backup.crypto.BackupEncryption;
import io.etcdwright.modules.backup.crypto.Recipient;
import io.etcdwright.modules.backup.crypto.SharedKey;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the state is encrypted before it leaves the workstation, and how this workstation opens it:
 * CMS AuthEnvelopedData with AES-256-GCM (backup/crypto, as backups are), the content key wrapped
 * with the team's shared key and/or to each X.509 recipient. Any one of them opens it. A key that
 * is not at hand here (no variable, no file) is {@link Optional#empty()}, and the error says which.
 *
 * @param sharedKey        the shared key, when the spec names one and this workstation has it
 * @param sharedKeySource  where the spec says the shared key is ("ETCDWRIGHT_STATE_KEY", a file): for messages
 * @param sharedKeyProblem why the shared key named in the spec could not be had here, if it could not
 * @param recipients       the public keys the state is also encrypted to
 * @param privateKey       this workstation's recipient key, to open the state with when no shared key is at hand
 * @param privateKeyProblem why the private key the spec names could not be had here, if it could not
 */
public record StateCipher(Optional<SharedKey> sharedKey, String sharedKeySource, Optional<String> sharedKeyProblem,
                          List<Recipient> recipients, Optional<PrivateKey> privateKey, Optional<X509Certificate> privateKeyCertificate,
                          Optional<String> privateKeyProblem, boolean sharedKeyNamed) {
    public StateCipher {
        Objects.requireNonNull(sharedKey, "sharedKey");
        recipients = List.copyOf(recipients);
    }

    /** Whether this workstation can write the state: every key the spec names must be wrapped, so the shared key must be here. */
    public Optional<String> cannotWrite() {
        if (sharedKeyNamed && sharedKey.isEmpty()) {
            return Optional.of("the state's shared key is not at hand: " + sharedKeyProblem.orElse(sharedKeySource + " is not set"));
        }
        if (!sharedKeyNamed && recipients.isEmpty()) {
            return Optional.of("the spec names no key and no recipient for state.encryption");
        }
        return Optional.empty();
    }

    /** Whether this workstation can read the state (and why not). */
    public Optional<String> cannotRead() {
        if (sharedKey.isPresent() || privateKey.isPresent()) {
            return Optional.empty();
        }
        StringBuilder why = new StringBuilder("no key to decrypt the state store with: ");
        if (sharedKeyNamed) {
            why.append(sharedKeyProblem.orElse(sharedKeySource + " is not set"));
        }
        if (!recipients.isEmpty()) {
            why.append(sharedKeyNamed ? "; and " : "").append(privateKeyProblem.orElse(
                    "no private key of a recipient is named (state.encryption.privateKey)"));
        }
        return Optional.of(why.toString());
    }

    byte[] encrypt(byte[] plaintext) throws IOException {
        Optional<String> problem = cannotWrite();
        if (problem.isPresent()) {
            throw new IOException(problem.get());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(plaintext.length + 1024);
        try (OutputStream encrypting = BackupEncryption.encrypting(out, recipients, sharedKey.stream().toList())) {
            encrypting.write(plaintext);
        }
        return out.toByteArray();
    }

    /** The plaintext, read to its end (so the GCM tag was checked) before any of it is returned. */
    byte[] decrypt(byte[] cms) throws IOException {
        Optional<String> problem = cannotRead();
        if (problem.isPresent()) {
            throw new IOException(problem.get());
        }
        IOException first = null;
        if (sharedKey.isPresent()) {
            try (InputStream in = BackupEncryption.decrypting(new ByteArrayInputStream(cms), sharedKey.get())) {
                return in.readAllBytes();
            } catch (IOException e) {
                first = e;
            }
        }
        if (privateKey.isPresent()) {
            try (InputStream in = BackupEncryption.decrypting(new ByteArrayInputStream(cms), privateKey.get(),
                    privateKeyCertificate.orElse(null))) {
                return in.readAllBytes();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        throw first;
    }
}
