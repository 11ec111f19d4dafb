package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every certificate of a cluster, where it is: the workstation's PKI directory and each member
 * host's copies, with what an operator asks of each (kind, subject, names, issuer, expiry) and of
 * each host copy (is it the workstation's, does its key belong to it). Private keys are never read
 * off a host: a host reports its key's mode and the digest of its public half ({@link KeyFilesProbe}).
 * Pure: built from files on the workstation and facts already gathered.
 */
public final class CertificateReport {
    public static final String WORKSTATION = "workstation";

    /** What a host answered: its certificate files (with their text) and its key files (never their text). */
    public record HostFiles(Map<String, FileState> certificates, Map<String, KeyFilesProbe.KeyFile> keys) {
    }

    /**
     * A key file beside a certificate.
     *
     * @param matchesCertificate empty when it could not be checked ({@code notChecked} says why)
     */
    public record Key(String path, boolean exists, String mode, String owner, String group,
                      Optional<Boolean> matchesCertificate, Optional<String> notChecked) {
    }

    /**
     * One certificate (a bundle file gives one entry per certificate it holds).
     *
     * @param location           {@link #WORKSTATION} or the host's inventory name
     * @param kind               its role: ca, server, peer, admin, kube-apiserver-etcd-client
     * @param member             the member it belongs to (server and peer), else empty
     * @param certificate        empty when the file is missing or damaged ({@code problem} says which)
     * @param problem            "missing" or what is wrong with the file
     * @param matchesWorkstation for a host's copy: whether it is the workstation's certificate; empty on
     *                           the workstation, or when the workstation has no copy to compare with
     */
    public record Entry(String location, String path, String kind, Optional<String> member,
                        Optional<CertificateInfo> certificate, Optional<String> problem,
                        Optional<Boolean> matchesWorkstation, Optional<Key> key) {

        public boolean missing() {
            return certificate.isEmpty() && problem.map("missing"::equals).orElse(false);
        }

        public boolean damaged() {
            return certificate.isEmpty() && !missing();
        }

        /** Expires within {@code within} of {@code now} (or already has). */
        public boolean expiresWithin(Instant now, Duration within) {
            return certificate.map(c -> !c.notAfter().isAfter(now.plus(within))).orElse(false);
        }
    }

    private CertificateReport() {
    }

    /** The workstation's certificates: the CA, each member's server and peer, the clients. */
    public static List<Entry> workstation(ClusterPki pki, List<ClusterPki.MemberIdentity> members) {
        List<Entry> entries = new ArrayList<>();
        Path caKey = pki.settings().caKey().orElse(pki.settings().dir().resolve(CertificateAuthority.KEY_FILE));
        entries.addAll(local(HostCertificates.CA, Optional.empty(), pki.caCertFile(), caKey));
        // Trust-only, the members' certificates are on their hosts only (listed by host()), never issued here.
        for (ClusterPki.MemberIdentity m : pki.trustOnly() ? List.<ClusterPki.MemberIdentity>of() : members) {
            for (String role : HostCertificates.MEMBER_KEYED) {
                ClusterPki.LocalPair pair = pki.memberPair(m, role);
                entries.addAll(local(role, Optional.of(m.name()), pair.cert(), pair.key()));
            }
        }
        if (pki.readOnly()) {
            // A read-only runner holds the CA certificate and its reader, nothing else of the PKI.
            ClusterPki.LocalPair reader = pki.accessPair();
            entries.addAll(local(ClusterPki.READER, Optional.empty(), reader.cert(), reader.key()));
            return entries;
        }
        for (String role : List.of(HostCertificates.ADMIN, HostCertificates.APISERVER)) {
            ClusterPki.LocalPair pair = pki.clientPair(role);
            entries.addAll(local(role, Optional.empty(), pair.cert(), pair.key()));
        }
        ClusterPki.LocalPair reader = pki.clientPair(ClusterPki.READER);
        if (Files.exists(reader.cert())) {
            entries.addAll(local(ClusterPki.READER, Optional.empty(), reader.cert(), reader.key()));
        }
        return entries;
    }

    /**
     * One member host's copies. The CA, server and peer files every member needs are listed when
     * missing; client certificates only when the host holds them (a host need not).
     */
    public static List<Entry> host(String hostName, ClusterPki pki, ClusterPki.MemberIdentity member, HostFiles files) {
        return host(hostName, pki, member, files, HostCertificates.KEYED);
    }

    /**
     * A host that holds client files without running a member: its CA file (listed missing when
     * absent) and the client pairs it holds; it has no server, peer or healthcheck certificate.
     */
    public static List<Entry> clientHost(String hostName, ClusterPki pki, HostFiles files) {
        return host(hostName, pki, new ClusterPki.MemberIdentity(hostName, hostName, ""), files, HostCertificates.CLIENTS);
    }

    private static List<Entry> host(String hostName, ClusterPki pki, ClusterPki.MemberIdentity member, HostFiles files,
                                    List<String> keyed) {
        List<Entry> entries = new ArrayList<>();
        List<String> roles = new ArrayList<>();
        roles.add(HostCertificates.CA);
        roles.addAll(keyed);
        for (String role : roles) {
            String certPath = HostCertificates.certPath(role);
            FileState cert = files.certificates().getOrDefault(certPath, FileState.missing(certPath));
            boolean required = role.equals(HostCertificates.CA) || HostCertificates.MEMBER_KEYED.contains(role);
            if (!cert.exists() && !required) {
                continue;
            }
            Optional<String> memberName = HostCertificates.MEMBER_KEYED.contains(role)
                    ? Optional.of(member.name()) : Optional.empty();
            // During a CA rotation members hold the bundle of the old and the new CA, as clients do.
            Path workstationCopy = role.equals(HostCertificates.CA) ? pki.trustedCaFile()
                    : memberName.isPresent() ? pki.memberPair(member, role).cert() : pki.clientPair(role).cert();
            Optional<Key> key = role.equals(HostCertificates.CA) ? Optional.empty()
                    : Optional.of(files.keys().getOrDefault(HostCertificates.keyPath(role),
                    new KeyFilesProbe.KeyFile(HostCertificates.keyPath(role), false, "", "", "", Optional.empty(), Optional.empty())))
                    .map(k -> new Key(k.path(), k.exists(), k.mode(), k.owner(), k.group(), Optional.empty(), k.notChecked()));
            if (!cert.exists()) {
                entries.add(new Entry(hostName, certPath, role, memberName, Optional.empty(), Optional.of("missing"),
                        Optional.empty(), key));
                continue;
            }
            String source = hostName + ":" + certPath;
            List<X509Certificate> certificates;
            try {
                certificates = Pem.readCertificates(cert.content().orElse(""), source);
            } catch (PkiException e) {
                entries.add(new Entry(hostName, certPath, role, memberName, Optional.empty(), Optional.of(e.getMessage()),
                        Optional.empty(), key));
                continue;
            }
            Optional<Boolean> matches = fingerprints(workstationCopy).map(local -> local.equals(fingerprintsOf(certificates)));
            for (X509Certificate c : certificates) {
                Optional<Key> checked = key.map(k -> hostKeyAgainst(k, files.keys().get(k.path()), c));
                entries.add(new Entry(hostName, certPath, role, memberName, Optional.of(CertificateInfo.of(c)),
                        Optional.empty(), matches, checked));
            }
        }
        return entries;
    }

    private static Key hostKeyAgainst(Key key, KeyFilesProbe.KeyFile seen, X509Certificate certificate) {
        if (seen == null || !seen.exists() || seen.publicKeySha256().isEmpty()) {
            return key;
        }
        boolean same = seen.publicKeySha256().get().equals(publicKeySha256(certificate));
        return new Key(key.path(), true, key.mode(), key.owner(), key.group(), Optional.of(same), Optional.empty());
    }

    private static List<Entry> local(String role, Optional<String> member, Path certFile, Path keyFile) {
        String path = certFile.toString();
        if (!Files.exists(certFile)) {
            return List.of(new Entry(WORKSTATION, path, role, member, Optional.empty(), Optional.of("missing"),
                    Optional.empty(), Optional.empty()));
        }
        List<X509Certificate> certificates;
        try {
            certificates = Pem.readCertificates(Pem.readFile(certFile, "certificate"), path);
        } catch (PkiException e) {
            return List.of(new Entry(WORKSTATION, path, role, member, Optional.empty(), Optional.of(e.getMessage()),
                    Optional.empty(), Optional.empty()));
        }
        List<Entry> entries = new ArrayList<>();
        for (X509Certificate c : certificates) {
            entries.add(new Entry(WORKSTATION, path, role, member, Optional.of(CertificateInfo.of(c)), Optional.empty(),
                    Optional.empty(), Optional.of(localKey(keyFile, c))));
        }
        return entries;
    }

    /** The workstation's own key, checked against the certificate here (it never leaves this machine). */
    private static Key localKey(Path keyFile, X509Certificate certificate) {
        String path = keyFile.toString();
        if (!Files.exists(keyFile)) {
            return new Key(path, false, "", "", "", Optional.empty(), Optional.empty());
        }
        String mode = "";
        String owner = "";
        String group = "";
        try {
            var attributes = Files.readAttributes(keyFile, java.nio.file.attribute.PosixFileAttributes.class);
            mode = octal(attributes.permissions());
            owner = attributes.owner().getName();
            group = attributes.group().getName();
        } catch (java.io.IOException | UnsupportedOperationException e) {
            // a file system without POSIX attributes: no mode to show
        }
        try {
            PrivateKey privateKey = Pem.readPrivateKey(Pem.readFile(keyFile, "private key"), path);
            return new Key(path, true, mode, owner, group, Optional.of(KeyPairs.matches(privateKey, certificate.getPublicKey())),
                    Optional.empty());
        } catch (PkiException e) {
            return new Key(path, true, mode, owner, group, Optional.empty(), Optional.of(e.getMessage()));
        }
    }

    private static String octal(java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions) {
        int bits = 0;
        for (var p : permissions) {
            bits |= 1 << (8 - p.ordinal());
        }
        return String.format("%04o", bits);
    }

    private static Optional<List<String>> fingerprints(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(fingerprintsOf(Pem.readCertificates(Pem.readFile(file, "certificate"), file.toString())));
        } catch (PkiException e) {
            return Optional.empty();
        }
    }

    private static List<String> fingerprintsOf(List<X509Certificate> certificates) {
        return certificates.stream().map(c -> CertificateInfo.of(c).sha256Fingerprint()).toList();
    }

    /** Lower-case hex SHA-256 of the DER SubjectPublicKeyInfo, as {@code openssl pkey -pubout -outform DER | sha256sum}. */
    public static String publicKeySha256(X509Certificate certificate) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getPublicKey().getEncoded()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java runtime has no SHA-256", e);
        }
    }

    /** An entry as {@code certs -o json} prints it (schemas/certs.schema.json). */
    public static Map<String, Object> json(Entry e, Instant now, Optional<Duration> within) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("location", e.location());
        m.put("path", e.path());
        m.put("kind", e.kind());
        m.put("member", e.member().orElse(null));
        m.put("state", e.certificate().isPresent() ? "present" : e.missing() ? "missing" : "damaged");
        m.put("problem", e.problem().orElse(null));
        CertificateInfo c = e.certificate().orElse(null);
        m.put("subject", c == null ? null : c.subject());
        m.put("issuer", c == null ? null : c.issuer());
        m.put("serial", c == null ? null : c.serialHex());
        m.put("dns_names", c == null ? List.of() : c.dnsNames());
        m.put("ip_addresses", c == null ? List.of() : c.ipAddresses());
        m.put("not_before", c == null ? null : c.notBefore().toString());
        m.put("not_after", c == null ? null : c.notAfter().toString());
        m.put("days_left", c == null ? null : c.daysUntilExpiry(now));
        m.put("sha256_fingerprint", c == null ? null : c.sha256Fingerprint());
        m.put("expiring", within.isEmpty() || c == null ? null : e.expiresWithin(now, within.get()));
        m.put("matches_workstation", e.matchesWorkstation().orElse(null));
        m.put("key", e.key().map(k -> {
            Map<String, Object> key = new LinkedHashMap<>();
            key.put("path", k.path());
            key.put("exists", k.exists());
            key.put("mode", k.exists() ? k.mode() : null);
            key.put("owner", k.exists() ? k.owner() + ":" + k.group() : null);
            key.put("matches_certificate", k.matchesCertificate().orElse(null));
            key.put("not_checked", k.exists() && k.matchesCertificate().isEmpty()
                    ? k.notChecked().orElse("not checked") : null);
            return key;
        }).orElse(null));
        return m;
    }

    /** Two or three lines an entry as {@code certs} prints it. */
    public static List<String> text(Entry e, Instant now, Optional<Duration> within) {
        List<String> lines = new ArrayList<>();
        String who = e.kind() + e.member().map(n -> " (" + n + ")").orElse("");
        if (e.certificate().isEmpty()) {
            lines.add(String.format("  %-34s %s: %s", who, e.missing() ? "MISSING" : "DAMAGED",
                    e.missing() ? e.path() : e.problem().orElse("")));
            return lines;
        }
        CertificateInfo c = e.certificate().get();
        long days = c.daysUntilExpiry(now);
        String expiry = days < 0 ? "EXPIRED " + c.notAfter() : "expires " + c.notAfter() + " (" + days + " days)";
        boolean expiring = within.isPresent() && e.expiresWithin(now, within.get());
        String copy = e.matchesWorkstation().map(same -> same ? ", same as the workstation's" : ", DIFFERS from the workstation's")
                .orElse("");
        lines.add(String.format("  %-34s %s%s%s", who, expiry, expiring ? " EXPIRING" : "", copy));
        lines.add("      subject " + c.subject() + ", issuer " + c.issuer() + ", serial " + c.serialHex());
        List<String> sans = new ArrayList<>();
        c.dnsNames().forEach(n -> sans.add("DNS:" + n));
        c.ipAddresses().forEach(n -> sans.add("IP:" + n));
        if (!sans.isEmpty()) {
            lines.add("      SANs " + String.join(", ", sans));
        }
        lines.add("      " + e.path() + e.key().map(CertificateReport::keyText).orElse(""));
        return lines;
    }

    private static String keyText(Key k) {
        if (!k.exists()) {
            return "; key " + k.path() + " MISSING";
        }
        String match = k.matchesCertificate().map(same -> same ? "matches the certificate" : "DOES NOT MATCH the certificate")
                .orElse("pair not checked: " + k.notChecked().orElse("not checked"));
        return "; key " + k.path() + " " + k.mode() + " " + k.owner() + ":" + k.group() + ", " + match;
    }
}
