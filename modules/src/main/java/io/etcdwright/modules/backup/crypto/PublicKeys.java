package io.etcdwright.modules.backup.crypto;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import org.bouncycastle.jcajce.provider.asymmetric.util.EC5Util;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The public half of a private key. Decryption needs it to find which of a backup's recipients
 * the key is (by subject key identifier) without trying every one.
 */
final class PublicKeys {
    private PublicKeys() {
    }

    static PublicKey of(PrivateKey key) throws GeneralSecurityException {
        if (key instanceof RSAPrivateCrtKey rsa) {
            return KeyFactory.getInstance("RSA")
                    .generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent()));
        }
        if (key instanceof ECPrivateKey ec) {
            ECPoint q = EC5Util.convertSpec(ec.getParams()).getG().multiply(ec.getS()).normalize();
            return KeyFactory.getInstance("EC")
                    .generatePublic(new ECPublicKeySpec(EC5Util.convertPoint(q), ec.getParams()));
        }
        throw new GeneralSecurityException("a " + key.getAlgorithm() + " private key without its public"
                + " parameters; use an RSA or EC key in PKCS#8 or traditional PEM");
    }
}
