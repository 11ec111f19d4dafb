package io.etcdwright.engine.ssh;

import com.jcraft.jsch.HASH;
import org.bouncycastle.crypto.digests.SHA256Digest;

/**
 * SHA-256 for jsch's key exchange (the exchange hash over both sides' algorithm lists, and the
 * session keys derived from it) on BouncyCastle instead of the JDK's MessageDigest. The JDK's
 * SHA-256 reads its input through VarHandles, which the interpreter and the quick JIT tier run
 * slowly: a connection's exchange hash showed in a no-op plan's profile about as often as the
 * X25519 key agreement itself. Same algorithm, same bytes out (SshAlgorithmsTest).
 */
public final class BouncyCastleSha256 implements HASH {
    private final SHA256Digest digest = new SHA256Digest();

    @Override
    public void init() {
        digest.reset();
    }

    @Override
    public int getBlockSize() {
        return digest.getDigestSize();
    }

    @Override
    public void update(byte[] data, int start, int length) {
        digest.update(data, start, length);
    }

    @Override
    public byte[] digest() {
        byte[] out = new byte[digest.getDigestSize()];
        digest.doFinal(out, 0);
        return out;
    }

    @Override
    public String name() {
        return "SHA256"; // as jsch's own names it
    }
}
