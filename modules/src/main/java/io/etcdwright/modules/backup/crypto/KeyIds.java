package io.etcdwright.modules.backup.crypto;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/** Subject key identifiers: how a backup names a recipient that has no certificate. */
final class KeyIds {
    private KeyIds() {
    }

    /**
     * RFC 5280 section 4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's bits (not of
     * the whole SubjectPublicKeyInfo). It is what openssl puts in certificates by default, so a
     * certificate made later for the same key carries the same identifier.
     */
    static byte[] subjectKeyId(PublicKey key) {
        byte[] bits = SubjectPublicKeyInfo.getInstance(key.getEncoded()).getPublicKeyData().getBytes();
        try {
            return MessageDigest.getInstance("SHA-1").digest(bits);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }
}
