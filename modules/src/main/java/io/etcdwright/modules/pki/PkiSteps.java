package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The pki module: a certificate is issued only when missing, wrong or near expiry, and a host
 * gets a copy only when its copy differs; so a converged cluster is never re-issued anything.
 */
public final class PkiSteps {
    private PkiSteps() {
    }

    /** One file a host should hold: where it comes from on the workstation and how to land it. */
    record Placement(String remotePath, Path local, String mode, String owner, String group) {
    }

    /** A step creating the CA, when there is none yet. */
    public static Optional<Step> caStep(ClusterPki pki) {
        if (pki.caExists()) {
            return Optional.empty();
        }
        if (pki.bringsOwnCa()) {
            return Optional.empty(); // validation already refused a missing bring-your-own CA
        }
        return Optional.of(Step.cluster("pki", "ca").kind(ChangeKind.CREATE)
                .summary("create CA in " + pki.settings().dir()).reason("no CA yet")
                .does(ctx -> {
                    pki.ensureCa();
                    return Outcome.CHANGED;
                }));
    }

    /** A step issuing client certificates (admin, kube-apiserver) that are missing or due. */
    public static Optional<Step> clientStep(ClusterPki pki, List<Step> after) {
        List<String> reasons = new ArrayList<>();
        for (String role : List.of(HostCertificates.ADMIN, HostCertificates.APISERVER)) {
            if (pki.verdict(pki.clientPair(role), pki.clientRequest(role)) instanceof CertificateVerdict.Reissue r) {
                reasons.add(role + ": " + r.reason());
            }
        }
        if (reasons.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Step.cluster("pki", "clients").kind(ChangeKind.UPDATE)
                .summary("issue client certificates").reason(String.join("; ", reasons)).after(after)
                .does(ctx -> {
                    boolean any = false;
                    for (String role : List.of(HostCertificates.ADMIN, HostCertificates.APISERVER)) {
                        any |= pki.ensure(pki.clientPair(role), pki.clientRequest(role));
                    }
                    return any ? Outcome.CHANGED : Outcome.OK;
                }));
    }

    /** The step bringing one member's certificates up to date, if any file is not. */
    public static Optional<Step.Builder> memberStep(String host, ClusterPki pki, ClusterPki.MemberIdentity member,
                                                    Map<String, FileState> hostFiles) {
        List<String> reasons = new ArrayList<>();
        for (String role : List.of(HostCertificates.SERVER, HostCertificates.PEER)) {
            if (pki.verdict(pki.memberPair(member, role), pki.memberRequest(member, role)) instanceof CertificateVerdict.Reissue r) {
                reasons.add(role + ": " + r.reason());
            }
        }
        boolean localsCurrent = reasons.isEmpty();
        if (localsCurrent) {
            // Locals are good: does the host hold exactly them?
            for (Placement p : placements(pki, member)) {
                FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
                String name = p.remotePath().substring(EtcdLayout.PKI_DIR.length() + 1);
                if (!have.exists()) {
                    reasons.add(name + " missing on host");
                } else if (!Files.exists(p.local()) || !have.sha256().equals(ClusterPki.sha256(p.local()))) {
                    reasons.add(name + " differs from the issued copy");
                } else if (!have.hasAttributes(p.mode(), p.owner(), p.group())) {
                    reasons.add(name + " mode/owner " + have.mode() + " " + have.owner() + ":" + have.group());
                }
            }
        }
        if (reasons.isEmpty()) {
            return Optional.empty();
        }
        boolean anyOnHost = HostCertificates.certPaths().stream().anyMatch(p -> hostFiles.containsKey(p) && hostFiles.get(p).exists());
        return Optional.of(Step.on(host, "pki", "certificates")
                .kind(anyOnHost ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .summary("certificates for " + member.name())
                .reason(String.join("; ", reasons))
                .observed(digestOf(hostFiles)));
    }

    /**
     * Issues what is due locally, then makes every file on the host match its issued copy; CHANGED
     * only when something was issued or written. Files the facts showed right are not sent again;
     * the others are compared on the host before they are replaced (an apply may resume after an
     * interruption that already copied them).
     */
    public static Outcome apply(HostSession session, ClusterPki pki, ClusterPki.MemberIdentity member,
                                Map<String, FileState> hostFiles) {
        boolean changed = false;
        for (String role : List.of(HostCertificates.SERVER, HostCertificates.PEER)) {
            changed |= pki.ensure(pki.memberPair(member, role), pki.memberRequest(member, role));
        }
        for (Placement p : placements(pki, member)) {
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            byte[] content = read(p.local());
            if (have.hasContent(content) && have.hasAttributes(p.mode(), p.owner(), p.group())) {
                continue;
            }
            changed |= session.sync(content, new RemoteFile(p.remotePath(), p.mode(), p.owner(), p.group()));
        }
        return changed ? Outcome.CHANGED : Outcome.OK;
    }

    static List<Placement> placements(ClusterPki pki, ClusterPki.MemberIdentity member) {
        List<Placement> list = new ArrayList<>();
        String etcd = EtcdLayout.USER;
        list.add(new Placement(HostCertificates.certPath(HostCertificates.CA), pki.caCertFile(), "0644", "root", etcd));
        Function<String, ClusterPki.LocalPair> pairOf = role ->
                HostCertificates.ADMIN.equals(role) || HostCertificates.APISERVER.equals(role)
                        ? pki.clientPair(role) : pki.memberPair(member, role);
        for (String role : HostCertificates.KEYED) {
            ClusterPki.LocalPair pair = pairOf.apply(role);
            list.add(new Placement(HostCertificates.certPath(role), pair.cert(), "0644", "root", etcd));
            list.add(new Placement(HostCertificates.keyPath(role), pair.key(), "0600", etcd, etcd));
        }
        return list;
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static String digestOf(Map<String, FileState> files) {
        StringBuilder s = new StringBuilder();
        files.forEach((path, f) -> {
            if (path.startsWith(EtcdLayout.PKI_DIR)) {
                s.append(path).append('=').append(f.sha256()).append(' ').append(f.mode()).append(';');
            }
        });
        return s.toString();
    }
}
