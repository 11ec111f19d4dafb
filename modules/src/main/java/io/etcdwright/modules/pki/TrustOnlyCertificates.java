package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A member's certificates when the cluster is operated trust-only (a CA certificate without its
 * key): nothing is issued. The member keeps the certificates it has: the first convergence copies
 * them, <em>on the host</em>, from where the adopted layout kept them ({@code tls.pki.fromHosts})
 * into etcdwright's layout ({@code /etc/etcd/pki}, the key 0600 for the etcd user). A copy on the
 * host rather than the config pointing at the old paths: etcd runs as the etcd user under
 * etcdwright, and the old keys are root's, often in a directory another tool manages (kubeadm
 * renews /etc/kubernetes/pki); a copy leaves those files untouched and never moves a private key
 * through the workstation. From then on etcdwright's layout is what counts: a certificate there
 * that is wrong or due is a plan refusal ({@code TrustOnlyChecks}), never a re-issue.
 */
public final class TrustOnlyCertificates {
    private TrustOnlyCertificates() {
    }

    /** What a member's certificate of {@code role} must name: what its peers and clients dial. */
    public static List<String> mustName(String role, String address) {
        String dialed = IpAddresses.isLiteral(address) ? IpAddresses.normalize(address) : address;
        if (HostCertificates.SERVER.equals(role)) {
            // The facts and health checks on the host dial https://127.0.0.1.
            return dialed.equals("127.0.0.1") ? List.of(dialed) : List.of(dialed, "127.0.0.1");
        }
        return HostCertificates.PEER.equals(role) ? List.of(dialed) : List.of();
    }

    public static Purpose purposeOf(String role) {
        return HostCertificates.SERVER.equals(role) ? Purpose.SERVER : HostCertificates.PEER.equals(role) ? Purpose.PEER
                : Purpose.CLIENT;
    }

    /**
     * The step bringing a member's files to what trust-only can do, if any is not: a certificate and
     * key copied on the host when etcdwright's layout has none and {@code fromHosts} says where they
     * are, mode and owner set, the CA certificate and the shared clients' pairs landed from the
     * workstation (certificates and keys the operator gave it; none of them issued).
     */
    public static Optional<Step.Builder> memberStep(String host, ClusterPki pki, Set<String> clientRoles,
                                                    Map<String, FileState> hostFiles, Map<String, Pki.HostFiles> fromHosts,
                                                    Optional<String> note) {
        List<String> reasons = new ArrayList<>();
        // Modes and owners put back: routine. A pair copied in from where the spec's fromHosts names it, or a
        // client file that differs or is missing: the spec, or a hand edit; the facts cannot tell: change.
        boolean onlyAttributes = true;
        for (String role : HostCertificates.MEMBER_KEYED) {
            FileState cert = file(hostFiles, HostCertificates.certPath(role));
            FileState key = file(hostFiles, HostCertificates.keyPath(role));
            Pki.HostFiles from = fromHosts.get(role);
            if ((!cert.exists() || !key.exists()) && from != null) {
                reasons.add(role + ": copy " + from.cert() + " and its key on the host (trust-only: checked there, then copied)");
                onlyAttributes = false;
            } else if (cert.exists() && key.exists() && (!cert.hasAttributes("0644", "root", EtcdLayout.USER)
                    || !key.hasAttributes("0600", EtcdLayout.USER, EtcdLayout.USER))) {
                reasons.add(role + ": mode/owner " + cert.mode() + " " + cert.owner() + ":" + cert.group() + ", key " + key.mode()
                        + " " + key.owner() + ":" + key.group());
            }
            // Missing with nowhere to copy from, or present and wrong: TrustOnlyChecks refuses the plan.
        }
        for (PkiSteps.Placement p : placements(pki, clientRoles)) {
            FileState have = file(hostFiles, p.remotePath());
            if (Files.exists(p.local()) && !(have.exists() && have.sha256().equals(ClusterPki.sha256(p.local()))
                    && have.hasAttributes(p.mode(), p.owner(), p.group()))) {
                reasons.add(p.remotePath().substring(EtcdLayout.PKI_DIR.length() + 1) + (have.exists() ? " differs" : " missing")
                        + " on host");
                onlyAttributes = false;
            }
        }
        if (reasons.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Step.on(host, "pki", "certificates").kind(ChangeKind.UPDATE)
                .safety(onlyAttributes ? io.etcdwright.engine.plan.SafetyClass.ROUTINE : io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("certificates (trust-only: kept, none issued)")
                .reason(String.join("; ", reasons) + note.map(n -> "; " + n).orElse("")));
    }

    /** The files the workstation holds for the host: the CA certificate, and the shared clients' pairs given to it. */
    private static List<PkiSteps.Placement> placements(ClusterPki pki, Set<String> clientRoles) {
        List<PkiSteps.Placement> list = new ArrayList<>();
        list.add(new PkiSteps.Placement(HostCertificates.certPath(HostCertificates.CA), pki.caCertFile(), "0644", "root",
                EtcdLayout.USER));
        for (String role : HostCertificates.CLIENTS) {
            if (clientRoles.contains(role)) {
                ClusterPki.LocalPair pair = pki.clientPair(role);
                list.add(new PkiSteps.Placement(HostCertificates.certPath(role), pair.cert(), "0644", "root", EtcdLayout.USER));
                list.add(new PkiSteps.Placement(HostCertificates.keyPath(role), pair.key(), "0600", EtcdLayout.USER,
                        EtcdLayout.USER));
            }
        }
        return list;
    }

    /**
     * Checks, then copies on the host, each member pair etcdwright's layout lacks; sets mode and
     * owner; lands the workstation's CA certificate and client pairs. A source that is not usable
     * now (another CA, expired or due, a name missing, a key that is not the certificate's) stops
     * the step before anything is copied, saying which file and why.
     */
    public static Outcome apply(HostSession session, ClusterPki pki, String address, Set<String> clientRoles,
                                Map<String, FileState> hostFiles, Map<String, Pki.HostFiles> fromHosts) {
        String host = session.target().name();
        boolean changed = false;
        for (String role : HostCertificates.MEMBER_KEYED) {
            String certPath = HostCertificates.certPath(role);
            String keyPath = HostCertificates.keyPath(role);
            FileState cert = file(hostFiles, certPath);
            FileState key = file(hostFiles, keyPath);
            Pki.HostFiles from = fromHosts.get(role);
            if ((!cert.exists() || !key.exists()) && from != null) {
                CommandResult read = session.run(new RemoteCommand.Exec(List.of("cat", "--", from.cert())));
                Optional<String> pem = read.succeeded() ? Optional.of(read.stdout()) : Optional.empty();
                List<String> problems = pki.inUseProblems(pem, host + ":" + from.cert(), purposeOf(role), mustName(role, address));
                if (!problems.isEmpty()) {
                    throw new PkiException(host + ": " + role + " certificate " + from.cert() + " cannot be used: "
                            + String.join("; ", problems) + " (trust-only: etcdwright issues none); place one issued from the"
                            + " cluster's CA there or at " + certPath + ", or give the CA key (tls.pki.ca.key)");
                }
                CommandResult copied = session.run(new RemoteCommand.Script(COPY_PAIR, List.of(from.cert(), from.key(), certPath,
                        keyPath, EtcdLayout.USER)));
                if (copied.exitCode() == 4) {
                    throw new PkiException(host + ": " + from.key() + " is not the key of " + from.cert()
                            + ": nothing was copied; point tls.pki.fromHosts." + role + " at the pair etcd runs with");
                }
                copied.orThrow(host);
                changed = true;
            } else if (cert.exists() && key.exists()) {
                CommandResult fixed = session.run(new RemoteCommand.Script(FIX_MODES, List.of(certPath, keyPath, EtcdLayout.USER)))
                        .orThrow(host);
                changed |= fixed.stdout().contains("changed");
            }
        }
        for (PkiSteps.Placement p : placements(pki, clientRoles)) {
            if (Files.exists(p.local())) {
                changed |= PkiSteps.land(session, p, file(hostFiles, p.remotePath()), PkiSteps.read(p.local()));
            }
        }
        return changed ? Outcome.CHANGED : Outcome.OK;
    }

    /**
     * $1 $2 the pair where the adopted layout keeps it, $3 $4 etcdwright's paths, $5 etcd's user.
     * The key is checked to be the certificate's (when the host has openssl), both land beside
     * their targets with their final mode and owner, then are renamed over them: the key is read
     * and written on the host only. Exit 4: the key is not the certificate's.
     */
    private static final String COPY_PAIR = """
            set -eu
            [ -r "$1" ] && [ -r "$2" ] || { echo "cannot read $1 or $2" >&2; exit 3; }
            if command -v openssl >/dev/null 2>&1; then
              a=$(openssl x509 -in "$1" -noout -pubkey | openssl pkey -pubin -outform DER | sha256sum)
              b=$(openssl pkey -in "$2" -pubout -outform DER | sha256sum)
              [ "$a" = "$b" ] || exit 4
            fi
            mkdir -p -- "$(dirname -- "$3")"
            install -m 0600 -o "$5" -g "$5" -- "$2" "$4.etcdwright-new"
            install -m 0644 -o root -g "$5" -- "$1" "$3.etcdwright-new"
            mv -f -- "$4.etcdwright-new" "$4"
            mv -f -- "$3.etcdwright-new" "$3"
            """;

    /** $1 certificate, $2 key, $3 etcd's user: etcdwright's modes and owners; prints "changed" when one was not. */
    private static final String FIX_MODES = """
            set -eu
            [ "$(stat -c '%a %U %G' -- "$1")" = "644 root $3" ] || { chown "root:$3" -- "$1"; chmod 0644 -- "$1"; echo changed; }
            [ "$(stat -c '%a %U %G' -- "$2")" = "600 $3 $3" ] || { chown "$3:$3" -- "$2"; chmod 0600 -- "$2"; echo changed; }
            """;

    private static FileState file(Map<String, FileState> files, String path) {
        return files.getOrDefault(path, FileState.missing(path));
    }
}
