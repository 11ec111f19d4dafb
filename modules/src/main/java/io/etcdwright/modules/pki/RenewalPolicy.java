package io.etcdwright.modules.pki;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a host's certificate can stay. It must say {@link CertificateVerdict.Current} for
 * a certificate that matches the request, or every run would re-issue and restart etcd; and it
 * must name every difference that would make etcd or its clients reject the certificate.
 *
 * <p>A changed {@code validity} alone does not re-issue: the new validity applies at the next renewal.
 *
 * @param renewBefore how long before expiry a certificate is renewed ({@code tls.pki.renewBeforeDays})
 */
public record RenewalPolicy(Duration renewBefore) {

    public RenewalPolicy {
        Objects.requireNonNull(renewBefore, "renewBefore");
        if (renewBefore.isNegative()) {
            throw new IllegalArgumentException("renewBefore must not be negative, not " + renewBefore);
        }
    }

    public static RenewalPolicy renewDaysBeforeExpiry(long days) {
        return new RenewalPolicy(Duration.ofDays(days));
    }

    /** {@link #decide} for a one-off policy: {@code new RenewalPolicy(renewBefore).decide(...)}. */
    public static CertificateVerdict evaluate(Optional<CertificateInfo> existing, CertificateRequest desired,
            X509Certificate ca, Instant now, Duration renewBefore) {
        return new RenewalPolicy(renewBefore).decide(existing, desired, ca, now);
    }

    /**
     * @param existing the certificate on the host; empty when there is none
     * @param ca       the CA that should have signed it
     */
    public CertificateVerdict decide(Optional<CertificateInfo> existing, CertificateRequest desired,
            X509Certificate ca, Instant now) {
        requireRenewalBeforeExpiryIsPossible(desired);
        if (existing.isEmpty()) {
            return new CertificateVerdict.Reissue("missing");
        }
        CertificateInfo certificate = existing.get();
        List<String> reasons = new ArrayList<>();
        issuer(certificate, ca, reasons);
        List<String> time = new ArrayList<>();
        lifetime(certificate, now, time);
        reasons.addAll(time);
        subject(certificate, desired, reasons);
        subjectAltNames(certificate, desired, reasons);
        usages(certificate, desired, reasons);
        key(certificate, desired, reasons);
        return reasons.isEmpty() ? CertificateVerdict.CURRENT
                : new CertificateVerdict.Reissue(String.join("; ", reasons), time.size() == reasons.size());
    }

    /**
     * As {@link #decide}, from the PEM text found on the host: a file that does not parse is
     * re-issued ("unreadable: ...") rather than failing the whole plan.
     *
     * @param source where the text came from, e.g. "h1:/etc/etcd/pki/server.crt", for the reason
     */
    public CertificateVerdict decideForPem(Optional<String> existingPem, String source, CertificateRequest desired,
            X509Certificate ca, Instant now) {
        requireRenewalBeforeExpiryIsPossible(desired);
        if (existingPem.isEmpty()) {
            return new CertificateVerdict.Reissue("missing");
        }
        CertificateInfo info;
        try {
            info = CertificateInfo.parse(existingPem.get(), source);
        } catch (PkiException e) {
            return new CertificateVerdict.Reissue("unreadable: " + e.getMessage());
        }
        return decide(Optional.of(info), desired, ca, now);
    }

    /**
     * Trust-only (no CA key, so nothing can be re-issued): why a certificate someone else issued
     * cannot stay in use, empty when it can. Only what etcd and its clients need is asked of it:
     * issued by {@code ca}, valid now and beyond {@code renewBefore}, the usages of its purpose, and
     * {@code mustName} among its SANs (what peers and clients dial). Its subject, other SANs and key
     * type are the issuer's business.
     */
    public List<String> inUse(Optional<String> existingPem, String source, Purpose purpose, List<String> mustName,
                              X509Certificate ca, Instant now) {
        if (existingPem.isEmpty()) {
            return List.of("missing");
        }
        CertificateInfo certificate;
        try {
            certificate = CertificateInfo.parse(existingPem.get(), source);
        } catch (PkiException e) {
            return List.of("unreadable: " + e.getMessage());
        }
        List<String> reasons = new ArrayList<>();
        issuer(certificate, ca, reasons);
        lifetime(certificate, now, reasons);
        Set<String> present = new LinkedHashSet<>();
        certificate.dnsNames().forEach(name -> present.add(name.toLowerCase(Locale.ROOT)));
        present.addAll(certificate.ipAddresses());
        List<String> missing = mustName.stream().filter(name -> !present.contains(name.toLowerCase(Locale.ROOT))).toList();
        if (!missing.isEmpty()) {
            reasons.add(sans(missing) + " missing");
        }
        List<String> lacking = purpose.extKeyUsages().stream().filter(u -> !certificate.extKeyUsages().contains(u)).toList();
        if (!lacking.isEmpty()) {
            reasons.add("lacks " + joinAnd(lacking) + (lacking.size() == 1 ? " usage" : " usages"));
        }
        return reasons;
    }

    private void requireRenewalBeforeExpiryIsPossible(CertificateRequest desired) {
        if (desired.validity().compareTo(renewBefore) <= 0) {
            // Caught here because the result would be quietly absurd: a fresh certificate is already due.
            throw new IllegalArgumentException("certificate " + desired.commonName() + ": validity " + format(desired.validity())
                    + " is not longer than renewBefore " + format(renewBefore) + ", so it would be re-issued on every run");
        }
    }

    /**
     * Issued by {@code ca}: named by its key identifier, or else proved by the signature. The key
     * identifiers decide alone when they match, because this check is asked of the workstation's
     * own copies on every plan, where it catches a CA replaced under them (a new key, so another
     * identifier), not forgery (whoever can write a certificate there can write the CA key too);
     * an ECDSA verification costs about a millisecond, and a plan of 1,000 hosts asks 2,000 times.
     * Certificates without them (made by other tools), or naming another key, are verified.
     */
    private static void issuer(CertificateInfo certificate, X509Certificate ca, List<String> reasons) {
        if (!certificate.namesIssuerKeyOf(ca) && !certificate.signedBy(ca)) {
            reasons.add("signed by another CA");
        } else if (!certificate.certificate().getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
            // Same key, other name (a re-made CA certificate): TLS clients look the issuer up by name.
            reasons.add("issuer " + certificate.issuer() + ", CA is " + ca.getSubjectX500Principal().getName());
        }
    }

    private void lifetime(CertificateInfo certificate, Instant now, List<String> reasons) {
        if (now.isAfter(certificate.notAfter())) {
            reasons.add("expired " + format(Duration.between(certificate.notAfter(), now)) + " ago");
        } else if (now.isBefore(certificate.notBefore())) {
            reasons.add("not valid until " + certificate.notBefore());
        } else if (!certificate.notAfter().isAfter(now.plus(renewBefore))) {
            reasons.add("expires in " + format(Duration.between(now, certificate.notAfter()))
                    + " (renews " + format(renewBefore) + " before expiry)");
        }
    }

    private static void subject(CertificateInfo certificate, CertificateRequest desired, List<String> reasons) {
        if (!certificate.commonName().equals(desired.commonName())) {
            reasons.add("CN " + orNone(certificate.commonName()) + ", want " + desired.commonName());
        }
        // Organizations become groups (kube-apiserver, etcd's RBAC does not use them): their order carries no meaning.
        if (!Set.copyOf(certificate.organizations()).equals(Set.copyOf(desired.organizations()))) {
            reasons.add("O " + orNone(String.join("+", certificate.organizations()))
                    + ", want " + orNone(String.join("+", desired.organizations())));
        }
    }

    private static void subjectAltNames(CertificateInfo certificate, CertificateRequest desired, List<String> reasons) {
        Set<String> present = new LinkedHashSet<>();
        certificate.dnsNames().forEach(name -> present.add(name.toLowerCase(Locale.ROOT)));
        present.addAll(certificate.ipAddresses());
        Set<String> wanted = new LinkedHashSet<>(desired.dnsNames());
        wanted.addAll(desired.ipAddresses());

        List<String> missing = wanted.stream().filter(name -> !present.contains(name)).toList();
        List<String> unwanted = present.stream().filter(name -> !wanted.contains(name)).toList();
        if (!missing.isEmpty()) {
            reasons.add(sans(missing) + " missing");
        }
        if (!unwanted.isEmpty()) {
            // A name that is no longer ours (a renamed host, a VIP given back) must stop verifying.
            reasons.add(sans(unwanted) + " no longer wanted");
        }
    }

    private static void usages(CertificateInfo certificate, CertificateRequest desired, List<String> reasons) {
        List<String> wanted = desired.purpose().extKeyUsages();
        List<String> lacking = wanted.stream().filter(usage -> !certificate.extKeyUsages().contains(usage)).toList();
        List<String> extra = certificate.extKeyUsages().stream().filter(usage -> !wanted.contains(usage)).toList();
        if (!lacking.isEmpty()) {
            reasons.add("lacks " + joinAnd(lacking) + (lacking.size() == 1 ? " usage" : " usages"));
        }
        if (!extra.isEmpty()) {
            reasons.add("has " + joinAnd(extra) + (extra.size() == 1 ? " usage" : " usages") + ", not wanted");
        }
    }

    private static void key(CertificateInfo certificate, CertificateRequest desired, List<String> reasons) {
        KeyAlgorithm wanted = desired.keyAlgorithm();
        if (!certificate.keyAlgorithm().equals(wanted.keyType())) {
            reasons.add("key algorithm " + certificate.keyAlgorithm() + ", want " + wanted.keyType());
        } else if (certificate.keyBits() != wanted.keyBits()) {
            reasons.add("key size " + certificate.keyBits() + " bits, want " + wanted.keyBits());
        }
    }

    private static String sans(List<String> names) {
        return (names.size() == 1 ? "SAN " : "SANs ") + String.join(", ", names);
    }

    private static String joinAnd(List<String> items) {
        if (items.size() == 1) {
            return items.get(0);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + " and " + items.get(items.size() - 1);
    }

    private static String orNone(String value) {
        return value.isEmpty() ? "(none)" : value;
    }

    /** "12 days", "1 day", "7 hours", "3 minutes": rounded down to the largest unit that is at least 1. */
    static String format(Duration duration) {
        long days = duration.toDays();
        if (days >= 1) {
            return plural(days, "day");
        }
        long hours = duration.toHours();
        if (hours >= 1) {
            return plural(hours, "hour");
        }
        return plural(duration.toMinutes(), "minute");
    }

    private static String plural(long count, String unit) {
        return count + " " + unit + (count == 1 ? "" : "s");
    }
}
