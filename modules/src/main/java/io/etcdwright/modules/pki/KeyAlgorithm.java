package io.etcdwright.modules.pki;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The key types etcdwright issues; the names are the values of {@code tls.pki.keyAlgorithm}. */
public enum KeyAlgorithm {
    /** The default: keys in about a millisecond and short handshakes; every etcd release accepts them. */
    ECDSA_P256("ecdsa-p256", "EC", 256),
    RSA_2048("rsa-2048", "RSA", 2048),
    RSA_4096("rsa-4096", "RSA", 4096);

    public static final KeyAlgorithm DEFAULT = ECDSA_P256;

    private final String configName;
    private final String keyType;
    private final int keyBits;

    KeyAlgorithm(String configName, String keyType, int keyBits) {
        this.configName = configName;
        this.keyType = keyType;
        this.keyBits = keyBits;
    }

    /** Accepts the names the desired-state file uses, e.g. {@code ecdsa-p256}; case does not matter. */
    public static KeyAlgorithm fromName(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (KeyAlgorithm algorithm : values()) {
            if (algorithm.configName.equals(wanted)) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("unknown key algorithm '" + name + "': use one of "
                + Arrays.stream(values()).map(KeyAlgorithm::configName).collect(Collectors.joining(", ")));
    }

    public String configName() {
        return configName;
    }

    /** The JCA key algorithm name ({@code EC} or {@code RSA}), as {@link PublicKey#getAlgorithm()} reports it. */
    public String keyType() {
        return keyType;
    }

    /** RSA modulus length or EC field size. */
    public int keyBits() {
        return keyBits;
    }

    public KeyPair generateKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(keyType);
            generator.initialize(parameters(), Randomness.SHARED);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            // Only a JRE stripped of SunEC/SunRsaSign gets here; nothing the operator can fix in the config.
            throw new IllegalStateException("this Java runtime cannot generate " + configName + " keys", e);
        }
    }

    private AlgorithmParameterSpec parameters() {
        return keyType.equals("EC")
                ? new ECGenParameterSpec("secp256r1")
                : new RSAKeyGenParameterSpec(keyBits, RSAKeyGenParameterSpec.F4);
    }

    /** The bit size comparable with {@link #keyBits()}, or 0 for a key type this package does not issue. */
    static int keyBitsOf(PublicKey key) {
        if (key instanceof RSAPublicKey rsa) {
            return rsa.getModulus().bitLength();
        }
        if (key instanceof ECPublicKey ec) {
            return ec.getParams().getCurve().getField().getFieldSize();
        }
        return 0;
    }
}
