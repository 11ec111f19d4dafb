package io.etcdwright.modules.backup.crypto;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import javax.crypto.AEADBadTagException;
import org.bouncycastle.crypto.io.InvalidCipherTextIOException;

/**
 * The plaintext of a backup, with BouncyCastle's assorted failures turned into messages an
 * operator can act on. Closing it closes the encrypted stream too.
 */
final class DecryptingStream extends FilterInputStream {
    static final String TAMPERED =
            "the backup was changed or damaged: its authentication tag does not match (do not use any data read from it)";
    static final String TRUNCATED =
            "the backup is incomplete or damaged: it ends before its encrypted content does (was the upload cut short?)";

    private final InputStream encrypted;

    DecryptingStream(InputStream plaintext, InputStream encrypted) {
        super(plaintext);
        this.encrypted = encrypted;
    }

    @Override
    public int read() throws IOException {
        try {
            return super.read();
        } catch (IOException | RuntimeException e) {
            throw translated(e);
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            return super.read(b, off, len);
        } catch (IOException | RuntimeException e) {
            throw translated(e);
        }
    }

    @Override
    public long skip(long n) throws IOException {
        try {
            return super.skip(n);
        } catch (IOException | RuntimeException e) {
            throw translated(e);
        }
    }

    @Override
    public void close() throws IOException {
        try (encrypted) {
            super.close();
        }
    }

    private static IOException translated(Exception e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof AEADBadTagException
                    || cause instanceof InvalidCipherTextIOException) {
                return new IOException(TAMPERED, e);
            }
            if (cause instanceof EOFException || String.valueOf(cause.getMessage()).contains("EOF")) {
                return new IOException(TRUNCATED, e);
            }
        }
        return new IOException("the backup is damaged: " + e.getMessage(), e);
    }
}
