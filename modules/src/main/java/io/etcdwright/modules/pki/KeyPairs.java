package io.etcdwright.modules.pki;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECKey;

/** Questions about keys that do not belong to one class. */
final class KeyPairs {
    private KeyPairs() {
    }

    /**
     * Whether {@code privateKey} is the other half of {@code publicKey}: it signs a challenge that
     * the public key verifies. That works for every key type without deriving public keys by hand.
     */
    static boolean matches(PrivateKey privateKey, PublicKey publicKey) {
        if (!privateKey.getAlgorithm().equals(publicKey.getAlgorithm())) {
            return false;
        }
        try {
            byte[] challenge = "etcdwright key pair check".getBytes(StandardCharsets.US_ASCII);
            String algorithm = signatureAlgorithm(privateKey);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(privateKey, Randomness.SHARED);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            // Keys on different curves, say: not a pair.
            return false;
        }
    }

    /** The signature a key makes: SHA-256 with RSA, and with ECDSA a hash as strong as the curve. */
    static String signatureAlgorithm(PrivateKey key) {
        switch (key.getAlgorithm()) {
            case "RSA":
                return "SHA256withRSA";
            case "EC": {
                int bits = ((ECKey) key).getParams().getCurve().getField().getFieldSize();
                return bits <= 256 ? "SHA256withECDSA" : bits <= 384 ? "SHA384withECDSA" : "SHA512withECDSA";
            }
            default:
                throw new IllegalArgumentException("etcdwright signs with RSA or ECDSA keys, not " + key.getAlgorithm());
        }
    }
}
