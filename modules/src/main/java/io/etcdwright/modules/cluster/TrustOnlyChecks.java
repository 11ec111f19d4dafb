package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.Drift;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.spec.ClientKeys;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.Pem;
import io.etcdwright.modules.pki.Purpose;
import io.etcdwright.modules.pki.TrustOnlyCertificates;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Trust-only (a CA certificate without its key): everything a plan would have to issue is refused
 * here, before any step, naming the certificate and what the operator can do; the earliest expiry
 * is warned about. Judged as {@link io.etcdwright.modules.pki.RenewalPolicy#inUse}: issued by the CA,
 * valid beyond renewBeforeDays, the usages and names etcd's peers and clients need.
 */
final class TrustOnlyChecks {
    record Findings(List<Refusal> refusals, List<String> warnings, List<Drift> drift) {
        Findings(List<Refusal> refusals, List<String> warnings) {
            this(refusals, warnings, List.of());
        }
    }

    /** What a read-only runner (a reader certificate, no CA key) says it could not judge. */
    static final String READ_ONLY_NOT_JUDGED = "read-only (a reader certificate and the CA certificate, no CA key): not"
            + " judged here: the admin and kube-apiserver client certificates and the copies of the members' certificates"
            + " that the PKI holds (only a workstation with the state store's key or the PKI directory sees them), and"
            + " whether a CA rotation is due; the members' own certificates were judged against the CA certificate and"
            + " renewBeforeDays. Nothing that needs the CA key was attempted; 'etcdwright apply' is refused here";

    private static final String GIVE_KEY = "give the CA key (tls.pki.ca.key) and etcdwright issues it";

    private TrustOnlyChecks() {
    }

    static Findings of(ConvergePlanner.Inputs in) {
        ClusterPki pki = in.pki();
        if (!pki.trustOnly()) {
            return new Findings(List.of(), List.of());
        }
        List<Refusal> refusals = new ArrayList<>();
        List<Expiry> expiries = new ArrayList<>();
        for (String client : ClientKeys.CLIENTS) {
            boolean needed = client.equals(ClientKeys.ADMIN) || !in.desired().clientHosts(client).isEmpty();
            if (needed && !pki.readOnly()) {
                workstationClient(pki, HostCertificates.roleOf(client), refusals, expiries);
            }
        }
        Pki spec = in.desired().spec().tls().pki();
        List<Drift> drift = new ArrayList<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (f == null) {
                continue; // converge refuses unreachable hosts
            }
            boolean inCluster = f.member().hasMemberData() || f.service().running();
            List<String> wrong = new ArrayList<>();
            List<String> places = new ArrayList<>();
            for (String role : HostCertificates.MEMBER_KEYED) {
                int before = wrong.size();
                String path = HostCertificates.certPath(role);
                FileState cert = f.file(path);
                if (cert.exists()) {
                    Optional<String> pem = cert.content();
                    List<String> problems = pki.inUseProblems(pem, m.host().name() + ":" + path,
                            TrustOnlyCertificates.purposeOf(role), TrustOnlyCertificates.mustName(role, m.address()));
                    if (!problems.isEmpty()) {
                        wrong.add(role + " (" + path + "): " + String.join("; ", problems));
                    }
                    pki.notAfter(pem).ifPresent(at -> expiries.add(new Expiry(m.name() + " " + role + " (" + path + ")", at)));
                } else if (!spec.fromHosts().containsKey(role)) {
                    wrong.add(role + ": missing at " + path + (inCluster ? "" : " (a member joining needs certificates issued for it)"));
                } else if (!inCluster) {
                    wrong.add(role + ": missing at " + path + ", and a member joining has no " + spec.fromHosts().get(role).cert()
                            + " to keep (it needs certificates issued for it)");
                }
                if (wrong.size() > before) {
                    places.add(HostCertificates.certPath(role) + " (key " + HostCertificates.keyPath(role) + ")");
                }
            }
            if (!wrong.isEmpty() && pki.readOnly()) {
                // An apply with the CA key issues these: a change this runner reports, never makes.
                drift.add(new Drift("certificate-due", "member " + m.name() + " (host " + m.host().name() + ")",
                        String.join("; ", wrong), "run 'etcdwright apply' from a workstation that holds the PKI: it issues"
                                + " them (this read-only runner cannot)"));
            } else if (!wrong.isEmpty()) {
                refusals.add(new Refusal("trust-only-certificate", "member " + m.name() + " (host " + m.host().name() + ")",
                        "trust-only (tls.pki.ca has no key), so etcdwright cannot issue: " + String.join("; ", wrong),
                        GIVE_KEY + ", or place certificates you issued from the cluster's CA, each with its key, at "
                                + String.join(", ", places) + " on " + m.host().name() + " (keys 0600, owned by "
                                + io.etcdwright.modules.EtcdLayout.USER + "), then plan again"));
            }
        }
        List<String> warnings = new ArrayList<>(warnings(pki, expiries));
        if (pki.readOnly()) {
            warnings.add(0, READ_ONLY_NOT_JUDGED);
        }
        return new Findings(refusals, warnings, drift);
    }

    private record Expiry(String what, Instant notAfter) {
    }

    private static void workstationClient(ClusterPki pki, String role, List<Refusal> refusals, List<Expiry> expiries) {
        ClusterPki.LocalPair pair = pki.clientPair(role);
        Optional<String> pem = Files.isReadable(pair.cert()) ? Optional.of(Pem.readFile(pair.cert(), "certificate"))
                : Optional.empty();
        List<String> problems = new ArrayList<>(pki.inUseProblems(pem, pair.cert().toString(), Purpose.CLIENT, List.of()));
        if (!Files.isReadable(pair.key())) {
            problems.add("no key at " + pair.key());
        }
        pki.notAfter(pem).ifPresent(at -> expiries.add(new Expiry(role + " client (" + pair.cert() + ")", at)));
        if (!problems.isEmpty()) {
            String use = HostCertificates.ADMIN.equals(role) ? "etcdwright's own connection to the cluster (health checks,"
                    + " member list, snapshots)" : "the kube-apiserver hosts the spec's clients names";
            refusals.add(new Refusal("trust-only-certificate", role + " client certificate " + pair.cert(),
                    "for " + use + ", and trust-only (tls.pki.ca has no key), so etcdwright cannot issue it: "
                            + String.join("; ", problems),
                    GIVE_KEY + ", or place a client certificate you issued from the cluster's CA at " + pair.cert()
                            + " and its key at " + pair.key() + " (0600), then plan again"));
        }
    }

    private static List<String> warnings(ClusterPki pki, List<Expiry> expiries) {
        // The spec's own warning says what trust-only means; this one says when it bites.
        return expiries.stream().min(java.util.Comparator.comparing(Expiry::notAfter))
                .map(e -> pki.readOnly()
                        ? "read-only: the first member certificate to expire is " + e.what() + ", on " + e.notAfter() + " (in "
                                + Duration.between(pki.now(), e.notAfter()).toDays() + " days)"
                        : "trust-only: etcdwright renews no certificate; the first to expire is " + e.what() + ", on "
                        + e.notAfter() + " (in " + Duration.between(pki.now(), e.notAfter()).toDays() + " days): renew it"
                        + " yourself before then")
                .stream().toList();
    }
}
