package io.etcdwright.modules.backup.crypto;

import java.io.BufferedInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import org.bouncycastle.cms.CMSAlgorithm;
import org.bouncycastle.cms.CMSAuthEnvelopedDataStreamGenerator;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.jcajce.JceCMSContentEncryptorBuilder;
import org.bouncycastle.operator.OutputAEADEncryptor;

/**
 * Backups encrypted to public keys: CMS AuthEnvelopedData (RFC 5083) with AES-256-GCM (RFC 5084),
 * the content key wrapped to each recipient (RSA-OAEP for RSA keys, ECDH for EC keys). It is what
 * {@code openssl cms -encrypt -aes-256-gcm} writes and {@code openssl cms -decrypt} reads, so a
 * backup can be restored by hand without etcdwright. Both directions stream: memory stays a few
 * buffers whatever the size of the backup.
 */
public final class BackupEncryption {
    /** The BER octet-string chunk size: 64 KiB chunks keep the framing overhead negligible. */
    private static final int CHUNK = 64 * 1024;
    private static final int HEAD = 32;

    private BackupEncryption() {
    }

    /**
     * An OutputStream whose plaintext is written to {@code out} encrypted to every recipient.
     * Closing it writes the authentication tag and closes {@code out}; a backup whose stream was
     * not closed has no tag and will not decrypt.
     */
    public static OutputStream encrypting(OutputStream out, Recipients recipients) throws IOException {
        return encrypting(out, recipients.all(), java.util.List.of());
    }

    /**
     * As {@link #encrypting(OutputStream, Recipients)}, the content key wrapped to every public key
     * recipient and with every shared key (any one of all of them decrypts); at least one of either.
     */
    public static OutputStream encrypting(OutputStream out, java.util.List<Recipient> recipients,
                                          java.util.List<SharedKey> sharedKeys) throws IOException {
        if (recipients.isEmpty() && sharedKeys.isEmpty()) {
            throw new IllegalArgumentException("nothing to encrypt to: give a recipient or a shared key");
        }
        CMSAuthEnvelopedDataStreamGenerator generator = new CMSAuthEnvelopedDataStreamGenerator();
        generator.setBufferSize(CHUNK);
        for (Recipient recipient : recipients) {
            generator.addRecipientInfoGenerator(RecipientInfos.generator(recipient));
        }
        for (SharedKey key : sharedKeys) {
            generator.addRecipientInfoGenerator(new org.bouncycastle.cms.jcajce.JceKEKRecipientInfoGenerator(key.id(),
                    key.secretKey()).setProvider(Providers.BC));
        }
        try {
            // The JDK's own AES-GCM (with AES-NI) for the content: encryption streams in every
            // provider, and the JDK's is several times faster than BouncyCastle's pure-Java GCM.
            OutputAEADEncryptor encryptor = (OutputAEADEncryptor)
                    new JceCMSContentEncryptorBuilder(CMSAlgorithm.AES256_GCM).build();
            OutputStream target = out;
            OutputStream cms = generator.open(target, encryptor);
            return new FilterOutputStream(cms) {
                private boolean closed;

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    cms.write(b, off, len);
                }

                @Override
                public void close() throws IOException {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    // BC finishes the CMS structure but leaves the target open; the caller gave
                    // us the stream to write a whole backup to, so it is ours to close.
                    try (target) {
                        cms.close();
                    }
                }
            };
        } catch (CMSException e) {
            throw new IOException("cannot start encrypting the backup: " + e.getMessage(), e);
        }
    }

    /**
     * The plaintext of a backup encrypted to {@code key}'s public half. {@code certificate} (may be
     * null) is that key's certificate: needed only when the backup names its recipients by
     * certificate and this key must be told apart from the others without trial decryption.
     *
     * <p>Streaming GCM can only check the authentication tag at the very end: bytes read before
     * EOF are not yet proven genuine. Callers must treat the data as untrusted until {@code read}
     * has returned -1 without an exception (restore writes to a temporary file and uses it only
     * then). A changed, damaged or cut short backup ends in an {@link IOException} saying so.
     */
    public static InputStream decrypting(InputStream in, PrivateKey key, X509Certificate certificate)
            throws IOException {
        InputStream buffered = in.markSupported() ? in : new BufferedInputStream(in, CHUNK);
        buffered.mark(HEAD);
        byte[] head = buffered.readNBytes(HEAD);
        buffered.reset();
        return Decryption.open(buffered, CmsHeader.contentType(head), key, certificate);
    }

    /**
     * The plaintext of a message whose content key was wrapped with {@code key}; the same rules as
     * {@link #decrypting(InputStream, PrivateKey, X509Certificate)}: trust it only once read to its end.
     */
    public static InputStream decrypting(InputStream in, SharedKey key) throws IOException {
        InputStream buffered = in.markSupported() ? in : new BufferedInputStream(in, CHUNK);
        buffered.mark(HEAD);
        byte[] head = buffered.readNBytes(HEAD);
        buffered.reset();
        return Decryption.open(buffered, CmsHeader.contentType(head), key);
    }

    /** Whether a file starting with {@code firstBytes} is CMS (DER/BER ContentInfo of a PKCS#7 / S/MIME type). */
    public static boolean isCms(byte[] firstBytes) {
        return CmsHeader.contentType(firstBytes) != null;
    }

    /** Whether a file starting with {@code firstBytes} is gzip (magic 1f 8b). */
    public static boolean isGzip(byte[] firstBytes) {
        return firstBytes.length >= 2 && (firstBytes[0] & 0xff) == 0x1f && (firstBytes[1] & 0xff) == 0x8b;
    }

    /** How many leading bytes {@link #isCms} and {@link #isGzip} need to decide. */
    public static int headerLength() {
        return HEAD;
    }
}
