package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ClientChange;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.spec.ClientKeys;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KubeadmPaths;

import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * kube-apiserver's etcd flags, made by one function ({@link #flags}) of what they are made of:
 * what {@code kube-apiserver-flags} prints, and both sides of what a plan changes of them
 * ({@link #changes}): the flags as the cluster is now (the client URLs its members advertise in
 * etcd's member list, TLS when they advertise https://, the CAs clients trust at the CA rotation's
 * phase the hosts are at) against the flags once the plan is applied (the spec's members and
 * transport, the rotation's next phase). kube-apiserver reads its flags and its files only at
 * start, and no step reaches it: so the plan says what changes and when to restart it.
 */
public final class KubeApiserverFlags {
    public static final String SERVERS = "etcd-servers";
    public static final String CA_FILE = "etcd-cafile";
    public static final String CERT_FILE = "etcd-certfile";
    public static final String KEY_FILE = "etcd-keyfile";

    static final String MEMBERSHIP_WHEN = "once this apply is done (every member healthy, new members joined): restart"
            + " kube-apiserver with these flags ('etcdwright kube-apiserver-flags' prints them); until then it uses the"
            + " members it names that still answer";
    static final String TRANSPORT_WHEN = "this apply stops serving http:// in its last round (drop plain HTTP): restart"
            + " kube-apiserver with these flags as soon as the members serve https:// (after its first round), at the latest"
            + " when it is done; until then kube-apiserver cannot reach etcd";
    static final String TRUST_BUNDLE_WHEN = "after this apply and before the next (CA rotation phase 2, members then serve"
            + " certificates of the new CA): restart kube-apiserver, which reads its CA file only at start, on the bundle";
    static final String NEW_CERTIFICATE_WHEN = "after this apply and before the next (CA rotation phase 3, members then refuse"
            + " the old CA): restart kube-apiserver with its certificate and key from the new CA";
    static final String NEW_CA_ONLY_WHEN = "after this apply, at any time: until it restarts, kube-apiserver trusts the old"
            + " CA too, which no member uses any more";
    static final String NO_HOST_NAMED = " (clients.kube-apiserver names no host: copy the files 'etcdwright"
            + " kube-apiserver-flags --workstation-paths' names to each control-plane host first)";

    private KubeApiserverFlags() {
    }

    /** Where kube-apiserver reads its CA file and client pair. */
    public record Files(String caFile, String certFile, String keyFile) {
        /** Where the hosts the spec's clients.kube-apiserver names hold them in {@code layout} (its clients.kube-apiserver.layout). */
        public static Files onHosts(ClientKeys.Layout layout) {
            String role = HostCertificates.APISERVER;
            return new Files(KubeadmPaths.caPath(role, layout), KubeadmPaths.certPath(role, layout), KubeadmPaths.keyPath(role, layout));
        }
    }

    /** kubeadm's configuration API version (cmd/kubeadm/app/apis/kubeadm/v1beta4/register.go: kubeadm.k8s.io, v1beta4). */
    public static final String KUBEADM_API_VERSION = "kubeadm.k8s.io/v1beta4";

    /**
     * kubeadm's ClusterConfiguration for an external etcd, made of {@link #flags} (so it and
     * kube-apiserver-flags never disagree): etcd.external's endpoints (--etcd-servers, in order),
     * and with TLS caFile, certFile and keyFile (v1beta4's ExternalEtcd, types.go). kubeadm gives
     * kube-apiserver exactly these as --etcd-servers, --etcd-cafile, --etcd-certfile and --etcd-keyfile.
     */
    public static Map<String, Object> kubeadmClusterConfiguration(Map<String, String> flags) {
        Map<String, Object> external = new LinkedHashMap<>();
        external.put("endpoints", List.of(flags.get(SERVERS).split(",")));
        if (flags.containsKey(CA_FILE)) {
            external.put("caFile", flags.get(CA_FILE));
            external.put("certFile", flags.get(CERT_FILE));
            external.put("keyFile", flags.get(KEY_FILE));
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("apiVersion", KUBEADM_API_VERSION);
        doc.put("kind", "ClusterConfiguration");
        doc.put("etcd", Map.of("external", external));
        return doc;
    }

    /** The flags, by name without dashes: the members' client URLs, and with TLS the CA file and the client pair. */
    public static Map<String, String> flags(List<String> servers, Optional<Files> tls) {
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put(SERVERS, String.join(",", servers));
        tls.ifPresent(files -> {
            flags.put(CA_FILE, files.caFile());
            flags.put(CERT_FILE, files.certFile());
            flags.put(KEY_FILE, files.keyFile());
        });
        return flags;
    }

    /** What the TLS files hold: the CAs the CA file trusts, the CA that issued the client certificate. */
    record Trust(List<String> cas, String issuer) {
    }

    /** The flags' inputs at one moment: the client URLs, and (with TLS) what the files hold. */
    private record Connection(List<String> servers, Optional<Trust> trust, Files files) {
        Map<String, String> flags() {
            return KubeApiserverFlags.flags(servers, trust.map(t -> files));
        }

        Optional<String> holds(String flag) {
            return trust.map(t -> switch (flag) {
                case CA_FILE -> "trusts " + String.join(" + ", t.cas());
                case CERT_FILE -> "issued by " + t.issuer();
                case KEY_FILE -> "the key of the certificate issued by " + t.issuer();
                default -> null;
            });
        }
    }

    /**
     * What {@code plan} changes of kube-apiserver's flags, per host the spec's clients.kube-apiserver
     * names (once, for wherever it runs, when it names none); none for a refused plan, a plan with no
     * step, or a new cluster (nothing is configured against it yet).
     */
    public static List<ClientChange> changes(ConvergePlanner.Inputs in, Plan plan) {
        if (plan.isRefused() || !plan.hasChanges() || in.cluster().isEmpty()) {
            return List.of();
        }
        Optional<CaRotation> rotation = in.pki().readOnly() ? Optional.empty() : CaRotation.of(in.pki(), in.desired(), in.facts());
        int phasesDone = rotation.map(r -> r.phase().ordinal()).orElse(0);
        ClientKeys.Layout layout = in.desired().spec().clients().kubeApiserverLayout();
        Optional<Trust> trustNow = in.cluster().get().members().stream()
                .anyMatch(m -> m.clientUrls().stream().anyMatch(u -> u.startsWith("https://")))
                ? Optional.of(trust(in.pki(), rotation, phasesDone)) : Optional.empty();
        Connection planned = new Connection(Endpoints.clientUrls(in.desired().members(), in.layout()),
                in.layout().transport().clientScheme().equals("https")
                        ? Optional.of(trust(in.pki(), rotation, rotation.isPresent() ? phasesDone + 1 : 0)) : Optional.empty(),
                Files.onHosts(layout));
        List<Optional<String>> hosts = in.desired().clientHosts(ClientKeys.KUBE_APISERVER).stream().map(Optional::of).toList();
        List<ClientChange> changes = new ArrayList<>();
        for (Optional<String> host : hosts.isEmpty() ? List.of(Optional.<String>empty()) : hosts) {
            // Where the host holds the pair now: a layout edit moves kube-apiserver's files, so its paths change too.
            Connection now = new Connection(listed(in), trustNow, Files.onHosts(host.flatMap(h -> layoutOn(in, h)).orElse(layout)));
            for (String flag : List.of(SERVERS, CA_FILE, CERT_FILE, KEY_FILE)) {
                Optional<String> before = Optional.ofNullable(now.flags().get(flag));
                Optional<String> after = Optional.ofNullable(planned.flags().get(flag));
                boolean sameServers = flag.equals(SERVERS) && new HashSet<>(now.servers()).equals(new HashSet<>(planned.servers()));
                if (sameServers || before.equals(after) && now.holds(flag).equals(planned.holds(flag))) {
                    continue;
                }
                String when = when(flag, now, planned, rotation) + (hosts.isEmpty() && !flag.equals(SERVERS) ? NO_HOST_NAMED : "");
                changes.add(new ClientChange(ClientKeys.KUBE_APISERVER, host, flag, before, after, now.holds(flag),
                        planned.holds(flag), when));
            }
        }
        return changes;
    }

    /**
     * The client URLs etcd's member list holds, in its order. A voter that advertises none is a
     * first member that never started: 'kube-apiserver-flags' named it from the start (its URL is
     * the spec's); a learner that advertises none is new, and no client was given it yet.
     */
    private static List<String> listed(ConvergePlanner.Inputs in) {
        List<String> urls = new ArrayList<>();
        for (MemberStatus m : in.cluster().get().members()) {
            if (!m.clientUrls().isEmpty()) {
                urls.addAll(m.clientUrls());
            } else if (!m.learner()) {
                in.desired().members().stream().filter(d -> d.name().equals(m.name())).findFirst()
                        .map(d -> Endpoints.clientUrl(d, in.layout())).ifPresent(urls::add);
            }
        }
        return urls;
    }

    /**
     * The layout a host that runs no member holds kube-apiserver's pair in, when its files say so
     * (the certificate at one layout's path and not at the other's); empty otherwise (a member's host,
     * a host given nothing yet, or both).
     */
    private static Optional<ClientKeys.Layout> layoutOn(ConvergePlanner.Inputs in, String host) {
        Map<String, io.etcdwright.engine.facts.FileState> files = in.clientHosts().files().get(host);
        if (files == null) {
            return Optional.empty();
        }
        boolean own = exists(files, HostCertificates.certPath(HostCertificates.APISERVER));
        boolean kubeadm = exists(files, KubeadmPaths.CERT_FILE);
        return own == kubeadm ? Optional.empty() : Optional.of(own ? ClientKeys.Layout.ETCDWRIGHT : ClientKeys.Layout.KUBEADM);
    }

    private static boolean exists(Map<String, io.etcdwright.engine.facts.FileState> files, String path) {
        io.etcdwright.engine.facts.FileState f = files.get(path);
        return f != null && f.exists();
    }

    /** Why a flag changes decides when: a move to TLS, a CA rotation's phase, else the members. */
    private static String when(String flag, Connection now, Connection planned, Optional<CaRotation> rotation) {
        if (now.trust().isPresent() != planned.trust().isPresent()) {
            return TRANSPORT_WHEN;
        }
        if (flag.equals(SERVERS) || rotation.isEmpty()) {
            return MEMBERSHIP_WHEN;
        }
        return switch (rotation.get().phase()) {
            case TRUST_BOTH -> TRUST_BUNDLE_WHEN;
            case REISSUE -> NEW_CERTIFICATE_WHEN;
            case DROP_OLD -> NEW_CA_ONLY_WHEN;
        };
    }

    /**
     * What clients trust, and which CA issued their certificate, once {@code phasesDone} of the
     * rotation's three phases are done: the old CA; the old and the new (phase 1); the new one's
     * certificate (phase 2); the new CA alone (phase 3). Without a rotation, the cluster's CA.
     */
    private static Trust trust(ClusterPki pki, Optional<CaRotation> rotation, int phasesDone) {
        if (rotation.isEmpty()) {
            String ca = pki.caCertificate().map(KubeApiserverFlags::name).orElse("the CA in " + pki.caCertFile());
            return new Trust(List.of(ca), ca);
        }
        CaRotation r = rotation.get();
        List<String> old = r.oldCas().stream().map(KubeApiserverFlags::name).toList();
        String fresh = r.newCa().map(KubeApiserverFlags::name)
                .orElse("the new CA (tls.pki.caGeneration " + pki.settings().caGeneration() + ", made by this apply)");
        List<String> both = Stream.concat(old.stream(), Stream.of(fresh)).toList();
        String oldIssuer = String.join(" or ", old);
        return switch (phasesDone) {
            case 0 -> new Trust(old, oldIssuer);
            case 1 -> new Trust(both, oldIssuer);
            case 2 -> new Trust(both, fresh);
            default -> new Trust(List.of(fresh), fresh);
        };
    }

    /** A CA as the operator tells it apart: its common name, and its fingerprint's start (two CAs may share a name). */
    private static String name(X509Certificate ca) {
        String subject = ca.getSubjectX500Principal().getName();
        String cn = Stream.of(subject.split(",")).filter(p -> p.startsWith("CN=")).map(p -> p.substring(3)).findFirst()
                .orElse(subject);
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(ca.getEncoded());
            return '"' + cn + "\" (sha256 " + java.util.HexFormat.of().formatHex(digest).substring(0, 8) + ")";
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
