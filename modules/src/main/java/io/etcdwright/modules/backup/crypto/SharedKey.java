package io.etcdwright.modules.backup.crypto;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * A symmetric AES-256 key shared by everyone who may read (a team, its CI): the content key of a
 * CMS message is wrapped with it (a KEKRecipientInfo, AES key wrap, RFC 3370), named by an id
 * derived from the key, so a wrong key is told apart from a damaged message before anything is
 * decrypted. Written as the base64 of 32 random bytes ({@code openssl rand -base64 32}). The key
 * is never printed: {@link #toString} shows its id only.
 */
public final class SharedKey {
    public static final int BYTES = 32;

    private final byte[] key;
    private final byte[] id;

    private SharedKey(byte[] key) {
        this.key = key.clone();
        this.id = idOf(key);
    }

    /**
     * The key written as base64 (surrounding white space ignored).
     *
     * @param source where it came from, for messages ("the environment variable X", "the file Y")
     * @throws IllegalArgumentException saying what is wrong, never echoing the value
     */
    public static SharedKey parse(String text, String source) {
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + " does not hold a base64 key (make one with 'openssl rand -base64 32')");
        }
        if (decoded.length != BYTES) {
            throw new IllegalArgumentException(source + " holds a key of " + decoded.length + " bytes; an AES-256 key is "
                    + BYTES + " bytes, base64 encoded (make one with 'openssl rand -base64 32')");
        }
        return new SharedKey(decoded);
    }

    /** Eight bytes naming the key in a message: a digest of it under a label of its own, so it reveals nothing of the key. */
    private static byte[] idOf(byte[] key) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update("etcdwright shared key id\0".getBytes(StandardCharsets.US_ASCII));
            return Arrays.copyOf(d.digest(key), 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    public byte[] id() {
        return id.clone();
    }

    public String idHex() {
        return HexFormat.of().formatHex(id);
    }

    SecretKey secretKey() {
        return new SecretKeySpec(key, "AES");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SharedKey other && MessageDigest.isEqual(key, other.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(id);
    }

    @Override
    public String toString() {
        return "shared key id " + idHex();
    }
}
