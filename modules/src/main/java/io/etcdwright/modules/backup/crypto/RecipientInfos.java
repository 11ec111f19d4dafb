package io.etcdwright.modules.backup.crypto;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.interfaces.ECPublicKey;
import java.security.spec.MGF1ParameterSpec;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.cms.CMSAlgorithm;
import org.bouncycastle.cms.RecipientInfoGenerator;
import org.bouncycastle.cms.jcajce.JceKeyAgreeRecipientInfoGenerator;
import org.bouncycastle.cms.jcajce.JceKeyTransRecipientInfoGenerator;
import org.bouncycastle.operator.jcajce.JcaAlgorithmParametersConverter;

/** How the content key is wrapped to one recipient. */
final class RecipientInfos {
    private RecipientInfos() {
    }

    static RecipientInfoGenerator generator(Recipient recipient) throws IOException {
        try {
            PublicKey key = recipient.publicKey();
            if (key instanceof ECPublicKey ec) {
                return keyAgreement(recipient, ec);
            }
            return keyTransport(recipient);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot encrypt to the recipient in " + recipient.source() + ": " + e.getMessage(), e);
        }
    }

    /**
     * RSA-OAEP with SHA-256 rather than openssl's default PKCS#1 v1.5: OAEP is what RFC 8017
     * recommends for new uses, and openssl 3 decrypts it without being told.
     */
    private static RecipientInfoGenerator keyTransport(Recipient recipient) throws GeneralSecurityException {
        AlgorithmIdentifier oaep = new JcaAlgorithmParametersConverter().getAlgorithmIdentifier(
                PKCSObjectIdentifiers.id_RSAES_OAEP,
                new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT));
        JceKeyTransRecipientInfoGenerator generator = recipient.certificate() != null
                ? new JceKeyTransRecipientInfoGenerator(recipient.certificate(), oaep)
                : new JceKeyTransRecipientInfoGenerator(recipient.subjectKeyId(), oaep, recipient.publicKey());
        return generator.setProvider(Providers.BC);
    }

    /**
     * Ephemeral-static ECDH (RFC 5753) with the X9.63 KDF over SHA-256 and AES-256 key wrap: the
     * content key is as strong as the content cipher. A fresh ephemeral key per recipient, on
     * that recipient's curve.
     */
    private static RecipientInfoGenerator keyAgreement(Recipient recipient, ECPublicKey key)
            throws GeneralSecurityException {
        KeyPairGenerator pairs = KeyPairGenerator.getInstance("EC", Providers.BC);
        pairs.initialize(key.getParams());
        KeyPair ephemeral = pairs.generateKeyPair();
        JceKeyAgreeRecipientInfoGenerator generator = new JceKeyAgreeRecipientInfoGenerator(
                CMSAlgorithm.ECDH_SHA256KDF, ephemeral.getPrivate(), ephemeral.getPublic(), CMSAlgorithm.AES256_WRAP)
                .setProvider(Providers.BC);
        try {
            return recipient.certificate() != null
                    ? generator.addRecipient(recipient.certificate())
                    : generator.addRecipient(recipient.subjectKeyId(), key);
        } catch (CertificateEncodingException e) {
            throw new GeneralSecurityException("its certificate cannot be encoded: " + e.getMessage(), e);
        }
    }
}
