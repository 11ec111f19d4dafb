package io.etcdwright.modules.backup.crypto;

import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.Objects;
import java.util.Optional;

/**
 * One key a backup is encrypted to: from a certificate (named in the backup by issuer and serial
 * number, as openssl does) or from a bare public key (named by its subject key identifier).
 *
 * @param source the file it came from, for messages
 * @param publicKey the RSA or EC key the content key is wrapped to
 * @param certificate the certificate, or null for a bare public key
 */
public record Recipient(String source, PublicKey publicKey, X509Certificate certificate) {
    public Recipient {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(publicKey, "publicKey");
    }

    public Optional<X509Certificate> optionalCertificate() {
        return Optional.ofNullable(certificate);
    }

    /** The RFC 5280 (method 1) subject key identifier of {@link #publicKey}. */
    public byte[] subjectKeyId() {
        return KeyIds.subjectKeyId(publicKey);
    }
}
