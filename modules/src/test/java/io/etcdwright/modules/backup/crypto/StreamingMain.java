package io.etcdwright.modules.backup.crypto;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Run in a JVM with a small heap by {@link StreamingMemoryTest}: encrypts {@code MiB} of generated
 * data to a file and decrypts it again, printing the SHA-256 of what went in and what came out.
 * Arguments: recipient certificate, private key, work directory, MiB.
 */
public final class StreamingMain {
    private StreamingMain() {
    }

    public static void main(String[] args) throws Exception {
        Path certificate = Path.of(args[0]);
        Path key = Path.of(args[1]);
        Path encrypted = Path.of(args[2]).resolve("big.p7m");
        long mib = Long.parseLong(args[3]);
        MessageDigest in = MessageDigest.getInstance("SHA-256");
        byte[] block = new byte[64 * 1024];
        long seed = 0x9E3779B97F4A7C15L;
        long started = System.nanoTime();
        try (OutputStream out = BackupEncryption.encrypting(
                new java.io.BufferedOutputStream(Files.newOutputStream(encrypted), 64 * 1024),
                Recipients.load(List.of(certificate)))) {
            for (long written = 0; written < mib * 1024 * 1024; written += block.length) {
                for (int i = 0; i < block.length; i += 8) {
                    seed ^= seed << 13;
                    seed ^= seed >>> 7;
                    seed ^= seed << 17;
                    for (int j = 0; j < 8; j++) {
                        block[i + j] = (byte) (seed >>> (8 * j));
                    }
                }
                in.update(block);
                out.write(block);
            }
        }
        long encryptedAt = System.nanoTime();
        MessageDigest out = MessageDigest.getInstance("SHA-256");
        try (InputStream plain = BackupEncryption.decrypting(Files.newInputStream(encrypted), PrivateKeys.read(key), null)) {
            for (int n = plain.read(block); n >= 0; n = plain.read(block)) {
                out.update(block, 0, n);
            }
        }
        long decryptedAt = System.nanoTime();
        System.out.println("in " + HexFormat.of().formatHex(in.digest()));
        System.out.println("out " + HexFormat.of().formatHex(out.digest()));
        System.out.println("encrypted bytes " + Files.size(encrypted));
        System.out.println("encrypt ms " + (encryptedAt - started) / 1_000_000 + " decrypt ms " + (decryptedAt - encryptedAt) / 1_000_000);
    }
}
