package io.etcdwright.modules.pki;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The certificate a host should have. Names are canonical once constructed -- DNS names lower case,
 * IP addresses in one text form, duplicates dropped -- so two requests for the same certificate are
 * equal and comparing one with an existing certificate is a plain list comparison.
 *
 * @param organizations subject O values, in order; may be empty
 * @param dnsNames      DNS subjectAltNames; {@code *.example.com} wildcards allowed
 * @param ipAddresses   IP subjectAltNames, IPv4 or IPv6 literals
 * @param validity      from issue to expiry; a change reaches existing certificates at their next renewal
 */
public record CertificateRequest(
        Purpose purpose,
        String commonName,
        List<String> organizations,
        List<String> dnsNames,
        List<String> ipAddresses,
        KeyAlgorithm keyAlgorithm,
        Duration validity) {

    private static final int MAX_DNS_NAME_LENGTH = 253;

    public CertificateRequest {
        Objects.requireNonNull(purpose, "purpose");
        Objects.requireNonNull(keyAlgorithm, "keyAlgorithm");
        Objects.requireNonNull(validity, "validity");
        if (commonName == null || commonName.isBlank()) {
            throw new IllegalArgumentException("a certificate needs a common name");
        }
        commonName = commonName.trim();
        organizations = organizations(organizations);
        dnsNames = dnsNames(dnsNames);
        ipAddresses = ipAddresses(ipAddresses);
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("certificate " + commonName + ": validity must be positive, not " + validity);
        }
        if (purpose != Purpose.CLIENT && dnsNames.isEmpty() && ipAddresses.isEmpty()) {
            // Go's TLS, and so etcd, checks only subjectAltNames; a CN alone would verify for nobody.
            throw new IllegalArgumentException(purpose.name().toLowerCase(Locale.ROOT) + " certificate " + commonName
                    + " needs at least one DNS name or IP address: etcd ignores the common name when checking hosts");
        }
    }

    /** The canonical constructor as a factory, for call sites that read better with one. */
    public static CertificateRequest of(Purpose purpose, String commonName, List<String> organizations,
            List<String> dnsNames, List<String> ipAddresses, KeyAlgorithm keyAlgorithm, Duration validity) {
        return new CertificateRequest(purpose, commonName, organizations, dnsNames, ipAddresses, keyAlgorithm, validity);
    }

    /**
     * A request whose subjectAltNames come as one mixed list, as {@code tls.pki.extraSans} and the
     * inventory give them: IP literals become IP SANs, everything else DNS SANs.
     */
    public static CertificateRequest ofSubjectAltNames(Purpose purpose, String commonName, List<String> organizations,
            Collection<String> subjectAltNames, KeyAlgorithm keyAlgorithm, Duration validity) {
        List<String> dns = new ArrayList<>();
        List<String> ips = new ArrayList<>();
        for (String name : subjectAltNames) {
            String trimmed = name == null ? "" : name.trim();
            (IpAddresses.isLiteral(trimmed) ? ips : dns).add(trimmed);
        }
        return new CertificateRequest(purpose, commonName, organizations, dns, ips, keyAlgorithm, validity);
    }

    private static List<String> organizations(List<String> given) {
        LinkedHashSet<String> result = new LinkedHashSet<>();
        for (String organization : Objects.requireNonNull(given, "organizations")) {
            if (organization == null || organization.isBlank()) {
                throw new IllegalArgumentException("organizations: an empty organization name");
            }
            result.add(organization.trim());
        }
        return List.copyOf(result);
    }

    private static List<String> dnsNames(List<String> given) {
        LinkedHashSet<String> result = new LinkedHashSet<>();
        for (String name : Objects.requireNonNull(given, "dnsNames")) {
            String problem = dnsNameProblem(name);
            if (problem != null) {
                throw new IllegalArgumentException("dnsNames: '" + name + "' " + problem);
            }
            result.add(name.trim().toLowerCase(Locale.ROOT));
        }
        return List.copyOf(result);
    }

    private static String dnsNameProblem(String name) {
        if (name == null || name.isBlank()) {
            return "is empty";
        }
        String trimmed = name.trim();
        if (IpAddresses.isLiteral(trimmed)) {
            return "is an IP address; put it in ipAddresses, where TLS clients look for addresses";
        }
        if (trimmed.length() > MAX_DNS_NAME_LENGTH) {
            return "is longer than " + MAX_DNS_NAME_LENGTH + " characters";
        }
        String body = trimmed.startsWith("*.") ? trimmed.substring(2) : trimmed;
        if (body.isEmpty() || !body.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_'))) {
            return "is not a DNS name (letters, digits, '-', '_' and '.', optionally starting with '*.')";
        }
        return null;
    }

    private static List<String> ipAddresses(List<String> given) {
        LinkedHashSet<String> result = new LinkedHashSet<>();
        for (String address : Objects.requireNonNull(given, "ipAddresses")) {
            try {
                result.add(IpAddresses.normalize(address == null ? null : address.trim()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("ipAddresses: " + e.getMessage(), e);
            }
        }
        return List.copyOf(result);
    }
}
