package io.etcdwright.modules.backup.crypto;

import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.cms.CMSObjectIdentifiers;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cms.CMSAuthEnvelopedDataParser;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.KeyAgreeRecipientId;
import org.bouncycastle.cms.KeyAgreeRecipientInformation;
import org.bouncycastle.cms.KeyTransRecipientId;
import org.bouncycastle.cms.KeyTransRecipientInformation;
import org.bouncycastle.cms.Recipient;
import org.bouncycastle.cms.RecipientId;
import org.bouncycastle.cms.RecipientInformation;
import org.bouncycastle.cms.jcajce.JceKeyAgreeAuthEnvelopedRecipient;
import org.bouncycastle.cms.jcajce.JceKeyTransAuthEnvelopedRecipient;

/** Opening an AuthEnvelopedData backup with one private key. */
final class Decryption {
    /** AES-GCM only: anything else in an AuthEnvelopedData backup was not written by us or openssl -aes-*-gcm. */
    private static final Set<ASN1ObjectIdentifier> GCM = Set.of(
            NISTObjectIdentifiers.id_aes128_GCM, NISTObjectIdentifiers.id_aes192_GCM, NISTObjectIdentifiers.id_aes256_GCM);

    private Decryption() {
    }

    static InputStream open(InputStream in, ASN1ObjectIdentifier contentType, PrivateKey key,
            X509Certificate certificate) throws IOException {
        refuseUnlessAuthEnveloped(contentType);
        CMSAuthEnvelopedDataParser parser;
        try {
            parser = new CMSAuthEnvelopedDataParser(in);
        } catch (CMSException | RuntimeException e) {
            throw new IOException("the backup is damaged: its CMS header cannot be read (" + e.getMessage() + ")", e);
        }
        if (!GCM.contains(parser.getEncryptionAlgOID().getAlgorithm())) {
            throw new IOException("the backup's content is encrypted with " + parser.getEncAlgOID()
                    + ", not AES-GCM; etcdwright only restores AES-GCM backups");
        }
        PublicKey publicKey = publicHalf(key, certificate);
        byte[] keyId = KeyIds.subjectKeyId(publicKey);
        List<RecipientInformation> all = new ArrayList<>(parser.getRecipientInfos().getRecipients());
        List<RecipientInformation> candidates = candidates(all, key, keyId, holder(certificate));
        Exception lastFailure = null;
        for (RecipientInformation candidate : candidates) {
            try {
                InputStream content = candidate.getContentStream(recipient(candidate, key)).getContentStream();
                return new DecryptingStream(content, in);
            } catch (CMSException | org.bouncycastle.crypto.DataLengthException e) {
                // Not this one (a recipient named by certificate could be anyone's): try the next.
                // Unwrapping PKCS#1 v1.5 with the wrong RSA key gives a random block: BouncyCastle
                // reports it as a CMSException or, when the block's length is off, as a
                // DataLengthException; both mean "not this key".
                lastFailure = e;
            }
        }
        String recipients = describe(all);
        throw new IOException(lastFailure == null
                ? "this backup is not encrypted to the given private key; it is encrypted to " + recipients
                : "the given private key cannot open this backup (" + lastFailure.getMessage()
                        + "); it is encrypted to " + recipients + ". Use the private key of one of those,"
                        + " and give its certificate too", lastFailure);
    }

    /** With a shared key: the recipient info of that key's id, unwrapped with it (AES key wrap checks the key). */
    static InputStream open(InputStream in, ASN1ObjectIdentifier contentType, SharedKey key) throws IOException {
        refuseUnlessAuthEnveloped(contentType);
        CMSAuthEnvelopedDataParser parser;
        try {
            parser = new CMSAuthEnvelopedDataParser(in);
        } catch (CMSException | RuntimeException e) {
            throw new IOException("the object is damaged: its CMS header cannot be read (" + e.getMessage() + ")", e);
        }
        if (!GCM.contains(parser.getEncryptionAlgOID().getAlgorithm())) {
            throw new IOException("the content is encrypted with " + parser.getEncAlgOID() + ", not AES-GCM; refused");
        }
        List<RecipientInformation> all = new ArrayList<>(parser.getRecipientInfos().getRecipients());
        for (RecipientInformation info : all) {
            if (info instanceof org.bouncycastle.cms.KEKRecipientInformation
                    && info.getRID() instanceof org.bouncycastle.cms.KEKRecipientId id
                    && Arrays.equals(id.getKeyIdentifier(), key.id())) {
                try {
                    InputStream content = info.getContentStream(new org.bouncycastle.cms.jcajce.JceKEKAuthEnvelopedRecipient(
                            key.secretKey()).setProvider(Providers.BC).setContentProvider(Providers.BC)).getContentStream();
                    return new DecryptingStream(content, in);
                } catch (CMSException e) {
                    throw new IOException("the shared key (" + key + ") does not unwrap the content key its id names: the"
                            + " object was changed or damaged (" + e.getMessage() + ")", e);
                }
            }
        }
        throw new IOException("not encrypted with this key (" + key + "); it is encrypted to " + describe(all));
    }

    private static void refuseUnlessAuthEnveloped(ASN1ObjectIdentifier contentType) throws IOException {
        if (contentType == null) {
            throw new IOException("this is not an encrypted backup: it does not start with a CMS header"
                    + " (a plain backup is gzip and needs no key)");
        }
        if (CMSObjectIdentifiers.envelopedData.equals(contentType)) {
            throw new IOException("this backup is CMS EnvelopedData (encrypted without authentication, as"
                    + " 'openssl cms -encrypt' does without '-aes-256-gcm'); etcdwright restores only"
                    + " AuthEnvelopedData (AES-GCM), which proves the backup was not changed");
        }
        if (!CmsHeader.isAuthEnveloped(contentType)) {
            throw new IOException("this backup is CMS of type " + contentType.getId()
                    + ", not AuthEnvelopedData (1.2.840.113549.1.9.16.1.23); it is not an encrypted backup");
        }
    }

    private static PublicKey publicHalf(PrivateKey key, X509Certificate certificate) throws IOException {
        PublicKey derived;
        try {
            derived = PublicKeys.of(key);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the private key: " + e.getMessage(), e);
        }
        if (certificate != null && !Arrays.equals(derived.getEncoded(), certificate.getPublicKey().getEncoded())) {
            throw new IOException("the certificate " + certificate.getSubjectX500Principal()
                    + " does not belong to the given private key (are two key pairs mixed up?)");
        }
        return derived;
    }

    /**
     * The recipient infos this key may open: those naming its subject key identifier or its
     * certificate. A recipient named by issuer and serial number cannot be matched to a bare key,
     * so without a certificate every such recipient of the key's type is a candidate: a wrong
     * one fails to unwrap the content key (OAEP and AES key wrap both check integrity).
     */
    private static List<RecipientInformation> candidates(List<RecipientInformation> all, PrivateKey key,
            byte[] keyId, X509CertificateHolder certificate) {
        List<RecipientInformation> named = new ArrayList<>();
        List<RecipientInformation> unknown = new ArrayList<>();
        for (RecipientInformation info : all) {
            if (!fits(info, key)) {
                continue;
            }
            RecipientId rid = info.getRID();
            byte[] ski = subjectKeyId(rid);
            if (ski != null) {
                if (Arrays.equals(ski, keyId)) {
                    named.add(info);
                }
            } else if (certificate != null) {
                if (rid.match(certificate)) {
                    named.add(info);
                }
            } else {
                unknown.add(info);
            }
        }
        return named.isEmpty() ? unknown : named;
    }

    private static X509CertificateHolder holder(X509Certificate certificate) throws IOException {
        try {
            // RecipientId.match wants BouncyCastle's holder; given a JDK certificate it says no.
            return certificate == null ? null : new JcaX509CertificateHolder(certificate);
        } catch (CertificateEncodingException e) {
            throw new IOException("the certificate " + certificate.getSubjectX500Principal() + " cannot be encoded", e);
        }
    }

    private static boolean fits(RecipientInformation info, PrivateKey key) {
        return ("RSA".equals(key.getAlgorithm()) && info instanceof KeyTransRecipientInformation)
                || ("EC".equals(key.getAlgorithm()) && info instanceof KeyAgreeRecipientInformation);
    }

    private static Recipient recipient(RecipientInformation info, PrivateKey key) {
        // BouncyCastle for the content too: the JDK's GCM decryption buffers all of it (see Providers).
        if (info instanceof KeyTransRecipientInformation) {
            return new JceKeyTransAuthEnvelopedRecipient(key).setProvider(Providers.BC).setContentProvider(Providers.BC);
        }
        return new JceKeyAgreeAuthEnvelopedRecipient(key).setProvider(Providers.BC).setContentProvider(Providers.BC);
    }

    private static byte[] subjectKeyId(RecipientId rid) {
        if (rid instanceof KeyTransRecipientId id) {
            return id.getSubjectKeyIdentifier();
        }
        if (rid instanceof KeyAgreeRecipientId id) {
            return id.getSubjectKeyIdentifier();
        }
        return null;
    }

    private static String describe(List<RecipientInformation> all) {
        List<String> names = new ArrayList<>();
        for (RecipientInformation info : all) {
            RecipientId rid = info.getRID();
            byte[] ski = subjectKeyId(rid);
            String kind = info instanceof KeyTransRecipientInformation ? "RSA" : info instanceof KeyAgreeRecipientInformation ? "EC" : "other";
            if (ski != null) {
                names.add(kind + " key id " + HexFormat.ofDelimiter(":").formatHex(ski));
            } else if (rid instanceof KeyTransRecipientId id) {
                names.add(kind + " certificate issuer '" + id.getIssuer() + "' serial " + id.getSerialNumber().toString(16));
            } else if (rid instanceof KeyAgreeRecipientId id) {
                names.add(kind + " certificate issuer '" + id.getIssuer() + "' serial " + id.getSerialNumber().toString(16));
            } else if (rid instanceof org.bouncycastle.cms.KEKRecipientId id) {
                names.add("shared key id " + HexFormat.of().formatHex(id.getKeyIdentifier()));
            } else {
                names.add(kind + " recipient");
            }
        }
        return all.size() + " recipient(s): " + String.join("; ", names);
    }
}
