package io.etcdwright.modules.pki;

import io.etcdwright.engine.ssh.HostSession;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A cluster's PKI directory on the workstation: the CA (unless the operator brings their own),
 * and the last certificate issued for every member and client. Hosts get copies; the CA key
 * never leaves this directory.
 *
 * <pre>
 * ca.crt, ca.key                              (absent with a bring-your-own CA)
 * members/NAME/server.crt|key, peer.crt|key, healthcheck-client.crt|key
 * clients/admin.crt|key, clients/kube-apiserver-etcd-client.crt|key
 * ca.generation                               which generated CA ca.crt is (absent: the first)
 * previous-ca/generation-N/ca.crt|key          generated CAs rotated away, kept (never sent anywhere)
 * rotation/                                   only while a CA rotation runs ({@link CaRotationFiles})
 * </pre>
 */
public final class ClusterPki {
    /** Settings from the desired state's tls.pki. */
    public record Settings(String clusterName, Path dir, Optional<Path> caCert, Optional<Path> caKey,
                           KeyAlgorithm keyAlgorithm, Duration validity, Duration renewBefore,
                           Duration caValidity, List<String> extraSans, int caGeneration) {
        /** The first generated CA: as before CA generations existed. */
        public Settings(String clusterName, Path dir, Optional<Path> caCert, Optional<Path> caKey,
                        KeyAlgorithm keyAlgorithm, Duration validity, Duration renewBefore,
                        Duration caValidity, List<String> extraSans) {
            this(clusterName, dir, caCert, caKey, keyAlgorithm, validity, renewBefore, caValidity, extraSans, 1);
        }
    }

    /** A member's identity in its certificates. */
    public record MemberIdentity(String name, String hostName, String address) {
    }

    /** A certificate and key pair as files on the workstation. */
    public record LocalPair(Path cert, Path key) {
        public String certSha256() {
            return sha256(cert);
        }

        public String keySha256() {
            return sha256(key);
        }
    }

    private final Settings settings;
    private final Clock clock;
    private final Optional<LocalPair> reader;
    /** Runs after every write of a certificate, key or CA here: the shared state's write-back (docs/state.md). */
    private volatile Runnable afterWrite = () -> { };
    private volatile CertificateAuthority ca;
    private volatile java.security.cert.X509Certificate caCertificate;

    public ClusterPki(Settings settings, Clock clock) {
        this(settings, clock, Optional.empty());
    }

    private ClusterPki(Settings settings, Clock clock, Optional<LocalPair> reader) {
        this.settings = settings;
        this.clock = clock;
        this.reader = reader;
    }

    /**
     * A read-only runner's PKI: the CA certificate ({@code settings.caCert()}, no key) and a reader
     * client certificate, nothing else. It is trust-only (nothing can be issued), and connects with
     * the reader's pair instead of the admin's.
     */
    public static ClusterPki readOnly(Settings settings, Clock clock, LocalPair reader) {
        if (settings.caCert().isEmpty() || settings.caKey().isPresent()) {
            throw new IllegalArgumentException("a read-only PKI has a CA certificate and no CA key");
        }
        return new ClusterPki(settings, clock, Optional.of(reader));
    }

    /** Whether this is a read-only runner's PKI: a reader certificate, no CA key, nothing issued here. */
    public boolean readOnly() {
        return reader.isPresent();
    }

    /** The client pair this workstation connects to the members with: the admin's, or a read-only runner's reader. */
    public LocalPair accessPair() {
        return reader.orElseGet(() -> clientPair(HostCertificates.ADMIN));
    }

    /** Registers what runs after each write here (the shared state's write-back); it may throw to fail the write's step. */
    public void afterWrite(Runnable hook) {
        this.afterWrite = hook;
    }

    private void written() {
        afterWrite.run();
    }

    public Settings settings() {
        return settings;
    }

    public boolean bringsOwnCa() {
        return settings.caCert().isPresent();
    }

    /** A CA certificate without its key (tls.pki.ca with no key): nothing can be issued. */
    public boolean trustOnly() {
        return settings.caCert().isPresent() && settings.caKey().isEmpty();
    }

    public Path caCertFile() {
        return settings.caCert().orElse(settings.dir().resolve("ca.crt"));
    }

    private Path caKeyFile() {
        return settings.caKey().orElse(settings.dir().resolve("ca.key"));
    }

    public boolean caExists() {
        return Files.exists(caCertFile()) && Files.exists(caKeyFile());
    }

    /** The CA, created on first use unless the operator brings their own. */
    public synchronized CertificateAuthority ensureCa() {
        if (ca != null) {
            return ca;
        }
        if (trustOnly()) {
            // Plans refuse whatever would need this (TrustOnlyChecks); reaching it is a bug, said plainly.
            throw new PkiException("trust-only: tls.pki.ca names " + caCertFile() + " without its key, so etcdwright issues"
                    + " no certificate; give the CA key (tls.pki.ca.key) or place a certificate issued from that CA");
        }
        if (caExists()) {
            ca = CertificateAuthority.load(caCertFile(), caKeyFile());
        } else if (bringsOwnCa()) {
            throw new PkiException("the CA named in tls.pki.ca (" + caCertFile() + ") does not exist");
        } else {
            ca = generateCa();
            written();
        }
        return ca;
    }

    private CertificateAuthority generateCa() {
        int generation = settings.caGeneration();
        String name = "etcd CA for cluster " + settings.clusterName() + (generation > 1 ? " (generation " + generation + ")" : "");
        CertificateAuthority created = CertificateAuthority.generate(name, settings.keyAlgorithm(), settings.caValidity(), clock);
        created.writeTo(settings.dir());
        if (generation > 1 || Files.exists(generationFile())) {
            SecureFiles.writePublic(generationFile(), generation + "\n", "CA generation");
        }
        return created;
    }

    private Path generationFile() {
        return settings.dir().resolve("ca.generation");
    }

    /** Which generated CA the workstation holds: the number in ca.generation, 1 without it. */
    public int caGeneration() {
        Path file = generationFile();
        if (!Files.exists(file)) {
            return 1;
        }
        try {
            return Integer.parseInt(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            throw new PkiException("cannot read the CA generation in " + file + " (" + e.getMessage() + "); it holds the"
                    + " generation of " + caCertFile() + ", a number");
        }
    }

    /** The spec asks for a newer generated CA than the workstation holds: a CA rotation starts. */
    public boolean generationPending() {
        return !bringsOwnCa() && caExists() && settings.caGeneration() > caGeneration();
    }

    /**
     * The spec asks for an older generated CA than the workstation holds: a generation never goes
     * back (the older CA's key is kept in previous-ca/, but going back to it is a rotation like any
     * other, asked for by naming it in tls.pki.ca), so the plan refuses instead of ignoring it.
     */
    public boolean generationLowered() {
        return !bringsOwnCa() && caExists() && settings.caGeneration() < caGeneration();
    }

    /**
     * Moves the current generated CA to previous-ca/generation-N (kept on the workstation, as every
     * CA key) and generates the spec's generation. Idempotent: with nothing pending it does nothing.
     */
    public synchronized boolean generateNextCa() {
        if (!generationPending()) {
            return false;
        }
        Path archive = settings.dir().resolve("previous-ca").resolve("generation-" + caGeneration());
        try {
            Files.createDirectories(archive);
            Files.move(caKeyFile(), archive.resolve(CertificateAuthority.KEY_FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.move(caCertFile(), archive.resolve(CertificateAuthority.CERTIFICATE_FILE),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the CA to " + archive + ": " + e.getMessage(), e);
        }
        ca = generateCa();
        caCertificate = null;
        written();
        return true;
    }

    /** The hosts outside the members this workstation gave client files to. */
    public ClientHostsRecord clientHosts() {
        return new ClientHostsRecord(settings.dir());
    }

    /** The files of a CA rotation under way, in this PKI directory. */
    public CaRotationFiles rotation() {
        return new CaRotationFiles(settings.dir().resolve("rotation"));
    }

    /**
     * What clients should trust: during a CA rotation the bundle of the old and the new CA (members
     * serve certificates of either), otherwise the CA certificate.
     */
    public Path trustedCaFile() {
        Path bundle = rotation().bundle();
        return Files.exists(bundle) ? bundle : caCertFile();
    }

    /**
     * The CA certificate, if there is one yet (plans are computed before it is created). Read once:
     * every verdict of every host asks for it.
     */
    public Optional<java.security.cert.X509Certificate> caCertificate() {
        java.security.cert.X509Certificate known = caCertificate;
        if (known != null) {
            return Optional.of(known);
        }
        if (!Files.exists(caCertFile())) {
            return Optional.empty();
        }
        caCertificate = Pem.readCertificate(Pem.readFile(caCertFile(), "CA certificate"), caCertFile().toString());
        return Optional.of(caCertificate);
    }

    /**
     * Trust-only: why a certificate someone else issued cannot stay in use (empty: it can), judged
     * against this CA and renewBeforeDays ({@link RenewalPolicy#inUse}).
     */
    public List<String> inUseProblems(Optional<String> pem, String source, Purpose purpose, List<String> mustName) {
        Optional<java.security.cert.X509Certificate> caCert = caCertificate();
        if (caCert.isEmpty()) {
            return List.of("no CA certificate at " + caCertFile() + " to judge it by");
        }
        return new RenewalPolicy(settings.renewBefore()).inUse(pem, source, purpose, mustName, caCert.get(), clock.instant());
    }

    /** When a certificate's text expires, if it parses. */
    public Optional<java.time.Instant> notAfter(Optional<String> pem) {
        try {
            return pem.map(text -> CertificateInfo.parse(text).notAfter());
        } catch (PkiException e) {
            return Optional.empty();
        }
    }

    public java.time.Instant now() {
        return clock.instant();
    }

    public Path memberFile(MemberIdentity member, String role, String ext) {
        return settings.dir().resolve("members").resolve(member.name()).resolve(role + "." + ext);
    }

    public Path clientFile(String role, String ext) {
        return settings.dir().resolve("clients").resolve(role + "." + ext);
    }

    public LocalPair memberPair(MemberIdentity member, String role) {
        return new LocalPair(memberFile(member, role, "crt"), memberFile(member, role, "key"));
    }

    public LocalPair clientPair(String role) {
        return new LocalPair(clientFile(role, "crt"), clientFile(role, "key"));
    }

    /** The role (file name under clients/) of the read-only client certificate 'certs issue-reader' makes. */
    public static final String READER = "reader";
    /** Its subject: a name of its own, never the admin's, so etcd's logs and (with authentication) its roles tell it apart. */
    public static final String READER_CN = "etcdwright-reader";

    /** The read-only client certificate's request: client usage only, its own name. */
    public CertificateRequest readerRequest() {
        return CertificateRequest.of(Purpose.CLIENT, READER_CN, List.of(), List.of(), List.of(), settings.keyAlgorithm(),
                settings.validity());
    }

    /**
     * Issues a new reader certificate into clients/reader.crt|key (a new key each time: a runner's
     * copy is replaced by handing it the new files), and records the write like every other.
     */
    public synchronized IssuedCertificate issueReader() {
        if (readOnly() || trustOnly()) {
            throw new PkiException("cannot issue a reader certificate without the CA key (" + caCertFile() + " has none here)");
        }
        IssuedCertificate issued = ensureCa().issue(readerRequest(), clock);
        LocalPair pair = clientPair(READER);
        try {
            Files.createDirectories(pair.cert().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + pair.cert().getParent() + ": " + e.getMessage(), e);
        }
        issued.writeTo(pair.cert(), pair.key());
        written();
        return issued;
    }

    /** The subject of every member's healthcheck client (each member has its own key), as kubeadm names it. */
    public static final String HEALTHCHECK_CN = "etcd-healthcheck-client";

    /**
     * The certificate a member's role should have: server and peer its own names and addresses (the
     * server loopback too); the healthcheck client only a client's usage and {@link #HEALTHCHECK_CN}.
     */
    public CertificateRequest memberRequest(MemberIdentity member, String role) {
        if (HostCertificates.HEALTHCHECK.equals(role)) {
            return CertificateRequest.of(Purpose.CLIENT, HEALTHCHECK_CN, List.of(), List.of(), List.of(),
                    settings.keyAlgorithm(), settings.validity());
        }
        List<String> dns = new ArrayList<>();
        List<String> ips = new ArrayList<>();
        addName(member.name(), dns, ips);
        addName(member.hostName(), dns, ips);
        addName(member.address(), dns, ips);
        Purpose purpose = HostCertificates.PEER.equals(role) ? Purpose.PEER : Purpose.SERVER;
        if (purpose == Purpose.SERVER) {
            addName("localhost", dns, ips);
            addName("127.0.0.1", dns, ips);
            addName("::1", dns, ips);
            settings.extraSans().forEach(san -> addName(san, dns, ips));
        }
        return CertificateRequest.of(purpose, member.name(), List.of(), dns, ips, settings.keyAlgorithm(), settings.validity());
    }

    public CertificateRequest clientRequest(String role) {
        List<String> orgs = HostCertificates.APISERVER.equals(role) ? List.of("system:masters") : List.of();
        String cn = HostCertificates.ADMIN.equals(role) ? "etcdwright-admin" : role;
        return CertificateRequest.of(Purpose.CLIENT, cn, orgs, List.of(), List.of(), settings.keyAlgorithm(), settings.validity());
    }

    private static void addName(String name, List<String> dns, List<String> ips) {
        if (name == null || name.isEmpty()) {
            return;
        }
        boolean ip = IpAddresses.isLiteral(name);
        List<String> into = ip ? ips : dns;
        String normal = ip ? IpAddresses.normalize(name) : name;
        if (!into.contains(normal)) {
            into.add(normal);
        }
    }

    /** Whether the local copy can be handed out as it is, and if not, why. */
    public CertificateVerdict verdict(LocalPair pair, CertificateRequest request) {
        Optional<java.security.cert.X509Certificate> caCert = caCertificate();
        if (caCert.isEmpty()) {
            return new CertificateVerdict.Reissue("new CA");
        }
        if (generationPending()) {
            return new CertificateVerdict.Reissue("new CA generation " + settings.caGeneration());
        }
        if (!Files.exists(pair.key())) {
            return new CertificateVerdict.Reissue("missing");
        }
        Optional<String> pem = Files.exists(pair.cert())
                ? Optional.of(Pem.readFile(pair.cert(), "certificate"))
                : Optional.empty();
        // An unreadable local copy is simply issued again, naming the file in the reason.
        return new RenewalPolicy(settings.renewBefore()).decideForPem(pem, pair.cert().toString(), request, caCert.get(),
                clock.instant());
    }

    /** The local pair, issued anew first when it is not current. Returns whether it was issued. */
    public synchronized boolean ensure(LocalPair pair, CertificateRequest request) {
        if (verdict(pair, request) instanceof CertificateVerdict.Current) {
            return false;
        }
        IssuedCertificate issued = ensureCa().issue(request, clock);
        try {
            Files.createDirectories(pair.cert().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + pair.cert().getParent() + ": " + e.getMessage(), e);
        }
        issued.writeTo(pair.cert(), pair.key());
        written();
        return true;
    }

    static String sha256(Path file) {
        try {
            return HostSession.sha256(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
