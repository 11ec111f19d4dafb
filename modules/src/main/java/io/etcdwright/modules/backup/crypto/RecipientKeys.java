package io.etcdwright.modules.backup.crypto;

import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X962Parameters;

/** Which public keys backups may be encrypted to. */
final class RecipientKeys {
    static final int MIN_RSA_BITS = 2048;

    private RecipientKeys() {
    }

    /** Why {@code key} is unfit as a recipient, or null when it is fine. */
    static String problem(PublicKey key) {
        if (key instanceof RSAPublicKey rsa) {
            int bits = rsa.getModulus().bitLength();
            return bits < MIN_RSA_BITS ? "it is a " + bits + "-bit RSA key; at least " + MIN_RSA_BITS
                    + " bits are needed (3072 recommended)" : null;
        }
        if (key instanceof ECPublicKey) {
            ASN1ObjectIdentifier curve = namedCurve(key);
            if (SECObjectIdentifiers.secp256r1.equals(curve) || SECObjectIdentifiers.secp384r1.equals(curve)) {
                return null;
            }
            return "it is an EC key on " + (curve == null ? "explicit curve parameters" : "curve " + curve.getId())
                    + "; only P-256 (prime256v1) and P-384 (secp384r1) are supported";
        }
        return "it is a " + key.getAlgorithm() + " key; only RSA and EC (P-256, P-384) keys are supported";
    }

    private static ASN1ObjectIdentifier namedCurve(PublicKey key) {
        SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(key.getEncoded());
        X962Parameters parameters = X962Parameters.getInstance(info.getAlgorithm().getParameters());
        return parameters.isNamedCurve() ? ASN1ObjectIdentifier.getInstance(parameters.getParameters()) : null;
    }
}
