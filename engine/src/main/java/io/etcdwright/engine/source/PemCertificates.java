package io.etcdwright.engine.source;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Optional;

/**
 * A certificate file on the workstation read as etcd reads its CA file (trusted-ca-file): PEM
 * blocks of X.509 certificates. Checked when the input is validated, so a key, a DER file or a
 * truncated copy named as a certificate fails at the line that names it, not at a member's start.
 * Whether the file exists and can be read is {@link WorkstationFiles}'s to say, before this.
 */
public final class PemCertificates {

    private static final String BEGIN = "-----BEGIN CERTIFICATE-----";
    private static final String END = "-----END CERTIFICATE-----";
    /** Far above any certificate chain; a bigger file is not one, and is not read into memory whole. */
    private static final int MAX_BYTES = 1024 * 1024;
    /** The tag a DER-encoded certificate starts with (an ASN.1 SEQUENCE). */
    private static final int DER_SEQUENCE = 0x30;
    private static final String EXPECTED = "; etcd and etcdwright read it as PEM, one or more blocks starting '" + BEGIN + "'";

    private PemCertificates() {}

    /**
     * Why {@code path} is not a PEM certificate file; empty when every block in it is a certificate.
     *
     * @param what    what the file is, for the message ("CA certificate")
     * @param written the path as the operator wrote it
     */
    public static Optional<String> problem(Path path, String what, String written) {
        String shown = what + " " + Quoted.of(written);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(path)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (IOException e) {
            return Optional.of(shown + " cannot be read: " + e.getMessage());
        }
        if (bytes.length > MAX_BYTES) {
            return Optional.of(shown + " is larger than " + MAX_BYTES / 1024 + " KiB, which no certificate is" + EXPECTED);
        }
        // PEM is ASCII: Latin-1 maps every byte to one character, so a binary file is read without failing.
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int begin = text.indexOf(BEGIN);
        if (begin < 0) {
            if (text.contains("PRIVATE KEY-----")) {
                return Optional.of(shown + " holds a private key, not a certificate (are the certificate and key paths swapped?)"
                        + EXPECTED);
            }
            if (bytes.length > 0 && (bytes[0] & 0xff) == DER_SEQUENCE) {
                return Optional.of(shown + " is binary (DER, it seems), not PEM" + EXPECTED + "; convert it with"
                        + " openssl x509 -inform der -in " + written + " -out ca.pem");
            }
            return Optional.of(shown + " holds no certificate" + EXPECTED);
        }
        int blocks = 0;
        while (begin >= 0) {
            blocks++;
            int end = text.indexOf(END, begin);
            if (end < 0) {
                return Optional.of(shown + ": certificate " + blocks + " has no '" + END + "' line (a truncated copy?)");
            }
            String base64 = text.substring(begin + BEGIN.length(), end);
            try {
                CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(Base64.getMimeDecoder().decode(base64)));
            } catch (IllegalArgumentException | CertificateException e) {
                // Not the JDK's words: they name Java exception classes, which tell an operator nothing.
                return Optional.of(shown + ": certificate " + blocks + " is damaged: its block is not a valid X.509 certificate"
                        + " (cut short or altered); copy the file again from where the CA was made");
            }
            begin = text.indexOf(BEGIN, end);
        }
        return Optional.empty();
    }
}
