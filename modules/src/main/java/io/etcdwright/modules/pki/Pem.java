package io.etcdwright.modules.pki;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reading and writing PEM. Every reader takes a {@code source} (a path, or "h1:/etc/etcd/pki/server.crt")
 * so that its errors say which file is wrong.
 */
public final class Pem {
    private static final Base64.Encoder BASE64 = Base64.getMimeEncoder(64, new byte[] {'\n'});

    private Pem() {
    }

    public static String certificate(X509Certificate certificate) {
        try {
            return block("CERTIFICATE", certificate.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("cannot encode certificate " + certificate.getSubjectX500Principal(), e);
        }
    }

    /**
     * PKCS#8 ({@code BEGIN PRIVATE KEY}) whatever the key type: etcd, Go and OpenSSL all read it,
     * and it is one format to recognise when looking at a host.
     */
    public static String privateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("a " + key.getAlgorithm() + " key in format " + key.getFormat()
                    + " cannot be written as PKCS#8 PEM");
        }
        return block("PRIVATE KEY", key.getEncoded());
    }

    /** Reads a whole file as text, naming the file and {@code what} it should hold when that fails. */
    public static String readFile(Path file, String what) {
        try {
            // Latin-1 decodes any byte: a UTF-8 comment beside the PEM must not fail the read, and a
            // binary DER file is then reported by the PEM readers as "no PEM data".
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new PkiException(what + " " + file + " does not exist");
        } catch (IOException e) {
            throw new PkiException("cannot read " + what + " " + file + ": " + describe(e), e);
        }
    }

    /** The first certificate in {@code pem}; a bundle's later certificates are ignored. */
    public static X509Certificate readCertificate(String pem, String source) {
        return readCertificates(pem, source).get(0);
    }

    /**
     * Every certificate in {@code pem}, in order; at least one, or a {@link PkiException}. Each text
     * is parsed once a process (BouncyCastle's PEM reader, then the JDK's): a fleet's plan read
     * every cluster's CA for each host's checks, a tenth of its JVM's samples.
     */
    public static List<X509Certificate> readCertificates(String pem, String source) {
        return readParsed(pem, source).stream().map(ParsedCertificate::certificate).toList();
    }

    /** A certificate as both libraries read it: BouncyCastle's holder (its names, its extensions) and the JDK's. */
    record ParsedCertificate(X509CertificateHolder holder, X509Certificate certificate) {
    }

    /** The certificates of {@code pem} with BouncyCastle's holders, which {@link CertificateInfo} reads without a third parse. */
    static List<ParsedCertificate> readParsed(String pem, String source) {
        return CERTIFICATES.get(pem, () -> parseCertificates(pem, source));
    }

    private static final ReadOnce<List<ParsedCertificate>> CERTIFICATES = new ReadOnce<>();

    private static List<ParsedCertificate> parseCertificates(String pem, String source) {
        List<ParsedCertificate> certificates = new ArrayList<>();
        boolean sawPrivateKey = false;
        for (Object object : parseAll(pem, source)) {
            if (object instanceof X509CertificateHolder holder) {
                certificates.add(new ParsedCertificate(holder, toCertificate(holder, source)));
            } else if (isPrivateKey(object)) {
                sawPrivateKey = true;
            }
        }
        if (certificates.isEmpty()) {
            throw new PkiException(sawPrivateKey
                    ? source + " holds a private key, not a certificate (are the certificate and key paths swapped?)"
                    : "no certificate in " + source + ": expected a block starting '-----BEGIN CERTIFICATE-----'");
        }
        return List.copyOf(certificates);
    }

    /**
     * The private key in {@code pem}: PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 ({@code BEGIN RSA PRIVATE KEY})
     * or SEC1 ({@code BEGIN EC PRIVATE KEY}, with or without openssl's leading {@code EC PARAMETERS} block).
     */
    public static PrivateKey readPrivateKey(String pem, String source) {
        boolean sawCertificate = false;
        for (Object object : parseAll(pem, source)) {
            if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
                throw new PkiException("private key " + source + " is encrypted; etcdwright needs it unencrypted"
                        + " (decrypt a copy with 'openssl pkey -in " + source + " -out DECRYPTED.key' and keep it 0600)");
            }
            if (object instanceof PEMKeyPair pair) {
                return toPrivateKey(pair.getPrivateKeyInfo(), source);
            }
            if (object instanceof PrivateKeyInfo info) {
                return toPrivateKey(info, source);
            }
            sawCertificate |= object instanceof X509CertificateHolder;
        }
        throw new PkiException(sawCertificate
                ? source + " holds a certificate, not a private key (are the certificate and key paths swapped?)"
                : "no private key in " + source + ": expected a block starting '-----BEGIN PRIVATE KEY-----',"
                        + " '-----BEGIN RSA PRIVATE KEY-----' or '-----BEGIN EC PRIVATE KEY-----'");
    }

    /** Every object of a PEM text, as BouncyCastle reads it; a damaged one is a PkiException naming the source. */
    public static List<Object> parseAll(String pem, String source) {
        if (pem == null || !pem.contains("-----BEGIN ")) {
            throw new PkiException("no PEM data in " + source + " (expected text with '-----BEGIN ...-----' lines;"
                    + " a binary DER file must be converted with 'openssl x509 -inform der' or 'openssl pkey -inform der')");
        }
        List<Object> objects = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                objects.add(object);
            }
        } catch (IOException | RuntimeException e) {
            // BouncyCastle reports bad base64 or ASN.1 with assorted exception types; all mean a damaged file.
            throw new PkiException("damaged PEM in " + source + ": " + describe(e), e);
        }
        return objects;
    }

    /** A private key in any of the PEM forms (PKCS#8, traditional, encrypted or not). */
    public static boolean isPrivateKey(Object object) {
        return object instanceof PEMKeyPair || object instanceof PrivateKeyInfo
                || object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo;
    }

    public static X509Certificate toCertificate(X509CertificateHolder holder, String source) {
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            return (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(holder.getEncoded()));
        } catch (GeneralSecurityException | IOException e) {
            throw new PkiException("damaged certificate in " + source + ": " + describe(e), e);
        }
    }

    private static PrivateKey toPrivateKey(PrivateKeyInfo info, String source) {
        ASN1ObjectIdentifier oid = info.getPrivateKeyAlgorithm().getAlgorithm();
        String keyType;
        if (oid.equals(PKCSObjectIdentifiers.rsaEncryption)) {
            keyType = "RSA";
        } else if (oid.equals(X9ObjectIdentifiers.id_ecPublicKey)) {
            keyType = "EC";
        } else {
            throw new PkiException("private key " + source + " is of type " + keyTypeName(oid)
                    + ", which etcdwright does not support: use an RSA or ECDSA key");
        }
        try {
            return KeyFactory.getInstance(keyType).generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
        } catch (GeneralSecurityException | IOException e) {
            throw new PkiException("damaged " + keyType + " private key in " + source + ": " + describe(e), e);
        }
    }

    private static String keyTypeName(ASN1ObjectIdentifier oid) {
        if (oid.equals(EdECObjectIdentifiers.id_Ed25519)) {
            return "Ed25519";
        }
        if (oid.equals(EdECObjectIdentifiers.id_Ed448)) {
            return "Ed448";
        }
        if (oid.equals(X9ObjectIdentifiers.id_dsa)) {
            return "DSA";
        }
        return "OID " + oid.getId();
    }

    private static String block(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + BASE64.encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
