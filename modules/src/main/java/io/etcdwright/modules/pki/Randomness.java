package io.etcdwright.modules.pki;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/** The one SecureRandom behind every key and serial number this package makes. */
final class Randomness {
    /**
     * NativePRNGNonBlocking reads /dev/urandom only, so a freshly booted CI box or container
     * with little entropy never stalls key generation; SecureRandom is thread-safe, so one
     * instance is shared instead of seeding a new one per key.
     */
    static final SecureRandom SHARED = create();

    private Randomness() {
    }

    private static SecureRandom create() {
        try {
            return SecureRandom.getInstance("NativePRNGNonBlocking");
        } catch (NoSuchAlgorithmException notOnThisPlatform) {
            // Windows has no NativePRNG; its default (DRBG/SHA1PRNG seeded by the OS) does not block.
            return new SecureRandom();
        }
    }
}
