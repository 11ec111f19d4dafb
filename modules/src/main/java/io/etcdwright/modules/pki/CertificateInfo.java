package io.etcdwright.modules.pki;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;

/**
 * What the renewal policy and a plan need to know about an existing certificate, read once.
 *
 * @param subject           the subject DN (RFC 2253, e.g. {@code CN=admin,O=system:masters})
 * @param commonName        the subject CN, or "" when the subject has none
 * @param organizations     the subject O values, in order
 * @param issuer            the issuer DN (RFC 2253, e.g. {@code CN=etcd-ca demo})
 * @param serialHex         upper-case hex, as {@code openssl x509 -serial} prints it
 * @param dnsNames          DNS subjectAltNames as written in the certificate
 * @param ipAddresses       IP subjectAltNames in one text form (IPv6 as RFC 5952: {@code fd00::11})
 * @param extKeyUsages      extended key usages by name ({@code serverAuth}, {@code clientAuth}); OIDs without a name as OIDs
 * @param keyAlgorithm      the public key's type: {@code EC} or {@code RSA}
 * @param keyBits           RSA modulus or EC field size; 0 for other key types
 * @param sha256Fingerprint colon-separated upper-case hex, as {@code openssl x509 -fingerprint -sha256} prints it
 */
public record CertificateInfo(
        X509Certificate certificate,
        String subject,
        String commonName,
        List<String> organizations,
        String issuer,
        String serialHex,
        Instant notBefore,
        Instant notAfter,
        List<String> dnsNames,
        List<String> ipAddresses,
        List<String> extKeyUsages,
        String keyAlgorithm,
        int keyBits,
        String sha256Fingerprint) {

    public CertificateInfo {
        Objects.requireNonNull(certificate, "certificate");
        organizations = List.copyOf(organizations);
        dnsNames = List.copyOf(dnsNames);
        ipAddresses = List.copyOf(ipAddresses);
        extKeyUsages = List.copyOf(extKeyUsages);
    }

    /** The first certificate in {@code pem}; a {@link PkiException} saying what is wrong otherwise. */
    public static CertificateInfo parse(String pem) {
        return parse(pem, "certificate");
    }

    /** As {@link #parse(String)}, naming {@code source} (e.g. "h1:/etc/etcd/pki/server.crt") in errors. */
    public static CertificateInfo parse(String pem, String source) {
        return READ.get(pem, () -> {
            Pem.ParsedCertificate first = Pem.readParsed(pem, source).get(0);
            return of(first.certificate(), first.holder(), source);
        });
    }

    /** Each PEM text's answer, once a process (see {@link ReadOnce}). */
    private static final ReadOnce<CertificateInfo> READ = new ReadOnce<>();

    /** Whether {@code pem} was parsed already (and so its answer kept). */
    static boolean alreadyRead(String pem) {
        return READ.has(pem);
    }

    public static CertificateInfo of(X509Certificate certificate) {
        return of(certificate, "certificate " + certificate.getSubjectX500Principal().getName());
    }

    private static CertificateInfo of(X509Certificate certificate, String source) {
        try {
            return of(certificate, new JcaX509CertificateHolder(certificate), source);
        } catch (CertificateEncodingException e) {
            throw new PkiException("damaged certificate in " + source + ": " + Pem.describe(e), e);
        }
    }

    /** From both libraries' reading of one certificate: BouncyCastle's for its names and extensions. */
    private static CertificateInfo of(X509Certificate certificate, X509CertificateHolder holder, String source) {
        try {
            X500Name subjectName = holder.getSubject();
            List<String> commonNames = attributes(subjectName, BCStyle.CN);
            List<String> dnsNames = new ArrayList<>();
            List<String> ipAddresses = new ArrayList<>();
            GeneralNames subjectAltNames = GeneralNames.fromExtensions(holder.getExtensions(), Extension.subjectAlternativeName);
            if (subjectAltNames != null) {
                for (GeneralName name : subjectAltNames.getNames()) {
                    if (name.getTagNo() == GeneralName.dNSName) {
                        dnsNames.add(((ASN1String) name.getName()).getString());
                    } else if (name.getTagNo() == GeneralName.iPAddress) {
                        ipAddresses.add(ipAddress(ASN1OctetString.getInstance(name.getName()).getOctets()));
                    }
                }
            }
            List<String> usages = certificate.getExtendedKeyUsage() == null ? List.of()
                    : certificate.getExtendedKeyUsage().stream().map(ExtendedKeyUsageName::nameOf).toList();
            return new CertificateInfo(
                    certificate,
                    certificate.getSubjectX500Principal().getName(),
                    commonNames.isEmpty() ? "" : commonNames.get(0),
                    attributes(subjectName, BCStyle.O),
                    certificate.getIssuerX500Principal().getName(),
                    serialHex(certificate),
                    certificate.getNotBefore().toInstant(),
                    certificate.getNotAfter().toInstant(),
                    dnsNames,
                    ipAddresses,
                    usages,
                    certificate.getPublicKey().getAlgorithm(),
                    KeyAlgorithm.keyBitsOf(certificate.getPublicKey()),
                    fingerprint(certificate));
        } catch (CertificateEncodingException | CertificateParsingException | RuntimeException e) {
            throw new PkiException("damaged certificate in " + source + ": " + Pem.describe(e), e);
        }
    }

    /**
     * Whether this certificate names {@code ca}'s key as its issuer's: its authority key identifier
     * is the CA's subject key identifier (both present). etcdwright writes both in everything it
     * issues; a key identifier is a digest of the CA's public key, so a certificate of another CA
     * (another key) names another one. It proves no signature: see {@link #signedBy}.
     */
    public boolean namesIssuerKeyOf(X509Certificate ca) {
        // From the extensions the JDK has already parsed: no other parse of either certificate.
        byte[] authorityValue = certificate.getExtensionValue(Extension.authorityKeyIdentifier.getId());
        byte[] caKeyValue = ca.getExtensionValue(Extension.subjectKeyIdentifier.getId());
        if (authorityValue == null || caKeyValue == null) {
            return false;
        }
        try {
            byte[] authority = AuthorityKeyIdentifier.getInstance(ASN1OctetString.getInstance(authorityValue).getOctets())
                    .getKeyIdentifier();
            byte[] caKey = SubjectKeyIdentifier.getInstance(ASN1OctetString.getInstance(caKeyValue).getOctets())
                    .getKeyIdentifier();
            return authority != null && java.util.Arrays.equals(authority, caKey);
        } catch (RuntimeException e) {
            return false; // a damaged extension names no key
        }
    }

    /** Whether {@code ca}'s key made this certificate's signature. */
    public boolean signedBy(X509Certificate ca) {
        try {
            certificate.verify(ca.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whole days left, rounded down: 12.9 days is 12, and an hour past expiry is -1, so a negative
     * value means expired and 0 means it expires within a day.
     */
    public long daysUntilExpiry(Instant now) {
        return Math.floorDiv(Duration.between(now, notAfter).getSeconds(), Duration.ofDays(1).getSeconds());
    }

    private static List<String> attributes(X500Name name, ASN1ObjectIdentifier type) {
        List<String> values = new ArrayList<>();
        for (RDN rdn : name.getRDNs(type)) {
            for (AttributeTypeAndValue attribute : rdn.getTypesAndValues()) {
                if (attribute.getType().equals(type)) {
                    values.add(text(attribute.getValue()));
                }
            }
        }
        return values;
    }

    private static String text(ASN1Encodable value) {
        return value instanceof ASN1String string ? string.getString() : IETFUtils.valueToString(value);
    }

    private static String ipAddress(byte[] octets) {
        // 4 or 16 bytes in a SAN; anything else is malformed, shown as hex rather than rejected.
        return octets.length == 4 || octets.length == 16 ? IpAddresses.format(octets) : HexFormat.of().formatHex(octets);
    }

    private static String serialHex(X509Certificate certificate) {
        String hex = certificate.getSerialNumber().toString(16).toUpperCase(Locale.ROOT);
        return hex.length() % 2 == 0 ? hex : "0" + hex;
    }

    private static String fingerprint(X509Certificate certificate) throws CertificateEncodingException {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java runtime has no SHA-256", e);
        }
    }

    /** The certificate itself is summarised, not dumped: plans print these. */
    @Override
    public String toString() {
        return "CertificateInfo[" + subject + ", issuer " + issuer + ", serial " + serialHex
                + ", " + notBefore + " to " + notAfter + ", DNS " + dnsNames + ", IP " + ipAddresses
                + ", " + extKeyUsages + ", " + keyAlgorithm + " " + keyBits + ", SHA-256 " + sha256Fingerprint + "]";
    }
}
