package io.etcdwright.modules.backup.crypto;

import java.security.Provider;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/** The one BouncyCastle provider this package hands to BC's CMS classes. */
final class Providers {
    /**
     * Passed explicitly, never registered with {@code Security.addProvider}: the rest of the JVM
     * (TLS to etcd, SSH) keeps its own providers. BouncyCastle is needed twice over: the key
     * agreement schemes CMS uses with EC keys (ECDH with an X9.63 KDF) are not in the JDK, and the
     * JDK's AES/GCM decryption holds the whole ciphertext until the tag is checked, so a multi-GiB
     * backup would not fit in the heap; BouncyCastle's GCM hands out plaintext as it goes.
     */
    static final Provider BC = new BouncyCastleProvider();

    private Providers() {
    }
}
