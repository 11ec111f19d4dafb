package io.etcdwright.modules.backup.crypto;

import io.etcdwright.modules.pki.Pem;
import io.etcdwright.modules.pki.PkiException;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Everyone a backup is encrypted to ({@code backup.encryption.recipients}): at least one, each
 * an RSA (2048 bits or more) or EC P-256/P-384 key. Only public halves: whoever holds one of the
 * matching private keys can restore, and that private key is never needed to make a backup.
 */
public record Recipients(List<Recipient> all) {
    public Recipients {
        all = List.copyOf(all);
        if (all.isEmpty()) {
            throw new IllegalArgumentException("a backup needs at least one recipient");
        }
    }

    /** Every certificate and public key in {@code files}, in order; a file may hold several. */
    public static Recipients load(List<Path> files) {
        List<Recipient> recipients = new ArrayList<>();
        for (Path file : files) {
            recipients.addAll(read(file));
        }
        if (recipients.isEmpty()) {
            throw new PkiException("backup.encryption.recipients is empty: name at least one certificate"
                    + " or public key file (see docs/backup-encryption.md)");
        }
        return new Recipients(recipients);
    }

    /** The certificates and public keys in one PEM file. */
    public static List<Recipient> read(Path file) {
        String source = file.toString();
        String pem = Pem.readFile(file, "backup recipient file");
        List<Recipient> found = new ArrayList<>();
        for (Object object : Pem.parseAll(pem, source)) {
            if (object instanceof X509CertificateHolder holder) {
                X509Certificate certificate = Pem.toCertificate(holder, source);
                found.add(new Recipient(source, checked(certificate.getPublicKey(), source), certificate));
            } else if (object instanceof SubjectPublicKeyInfo info) {
                found.add(new Recipient(source, checked(toPublicKey(info, source), source), null));
            } else if (Pem.isPrivateKey(object)) {
                throw new PkiException(source + " holds a PRIVATE key. Backups are encrypted to public keys only;"
                        + " the private key must stay offline and never be given to etcdwright for backing up."
                        + " Name the certificate (or 'openssl pkey -pubout' output) in backup.encryption.recipients,"
                        + " and if this key file was copied anywhere it should not be, make a new key pair.");
            }
        }
        if (found.isEmpty()) {
            throw new PkiException("no certificate or public key in " + source + ": expected a block starting"
                    + " '-----BEGIN CERTIFICATE-----' or '-----BEGIN PUBLIC KEY-----'");
        }
        return found;
    }

    private static PublicKey toPublicKey(SubjectPublicKeyInfo info, String source) {
        try {
            return new JcaPEMKeyConverter().getPublicKey(info);
        } catch (IOException | RuntimeException e) {
            throw new PkiException("public key in " + source + " is damaged or of a type etcdwright does not"
                    + " support (" + e.getMessage() + "): use an RSA (3072 bits) or EC P-256 key", e);
        }
    }

    private static PublicKey checked(PublicKey key, String source) {
        String problem = RecipientKeys.problem(key);
        if (problem != null) {
            throw new PkiException("cannot encrypt backups to the key in " + source + ": " + problem
                    + "; make a new recipient key pair as docs/backup-encryption.md shows");
        }
        return key;
    }
}
