package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
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
import java.util.Set;

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

    /**
     * The workstation's part, before anything needs it: the CA when there is none yet, then the
     * client certificates (admin, kube-apiserver) that are missing or due.
     */
    public static List<Step> workstation(ClusterPki pki) {
        if (pki.trustOnly()) {
            return List.of(); // nothing to issue: the admin's certificate is checked by TrustOnlyChecks
        }
        List<Step> steps = new ArrayList<>();
        caStep(pki).ifPresent(steps::add);
        clientStep(pki, List.copyOf(steps)).ifPresent(steps::add);
        return List.copyOf(steps);
    }

    /** A step creating the CA, when there is none yet. */
    public static Optional<Step> caStep(ClusterPki pki) {
        if (pki.caExists()) {
            return Optional.empty();
        }
        if (pki.bringsOwnCa()) {
            return Optional.empty(); // validation already refused a missing bring-your-own CA
        }
        // No CA yet: a new cluster (or a workstation without its PKI), never something to make unattended.
        return Optional.of(Step.cluster("pki", "ca").kind(ChangeKind.CREATE).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("create CA in " + pki.settings().dir()).reason("no CA yet")
                .does(ctx -> {
                    pki.ensureCa();
                    return Outcome.CHANGED;
                }));
    }

    /** A step issuing client certificates (admin, kube-apiserver) that are missing or due. */
    public static Optional<Step> clientStep(ClusterPki pki, List<Step> after) {
        List<String> reasons = new ArrayList<>();
        boolean renewals = true;
        for (String role : List.of(HostCertificates.ADMIN, HostCertificates.APISERVER)) {
            if (pki.verdict(pki.clientPair(role), pki.clientRequest(role)) instanceof CertificateVerdict.Reissue r) {
                reasons.add(role + ": " + r.reason());
                renewals &= r.renewal();
            }
        }
        if (reasons.isEmpty()) {
            return Optional.empty();
        }
        // Renewals alone are routine; a certificate missing or no longer as the spec wants it is a change.
        return Optional.of(Step.cluster("pki", "clients").kind(ChangeKind.UPDATE)
                .safety(renewals ? io.etcdwright.engine.plan.SafetyClass.ROUTINE : io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("issue client certificates").reason(String.join("; ", reasons)).after(after)
                .does(ctx -> {
                    boolean any = false;
                    for (String role : List.of(HostCertificates.ADMIN, HostCertificates.APISERVER)) {
                        any |= pki.ensure(pki.clientPair(role), pki.clientRequest(role));
                    }
                    return any ? Outcome.CHANGED : Outcome.OK;
                }));
    }

    /**
     * The step bringing one member's certificates up to date, if any file is not: its own server,
     * peer and healthcheck client, and the shared clients in {@code clientRoles} (those the spec's
     * {@code clients} names this host for).
     */
    public static Optional<Step.Builder> memberStep(String host, ClusterPki pki, ClusterPki.MemberIdentity member,
                                                    Set<String> clientRoles, Map<String, FileState> hostFiles) {
        return memberStep(host, pki, member, clientRoles, hostFiles, Optional.empty());
    }

    /** As above, {@code note} (whether etcd must restart for it, and why) closing the step's reason. */
    public static Optional<Step.Builder> memberStep(String host, ClusterPki pki, ClusterPki.MemberIdentity member,
                                                    Set<String> clientRoles, Map<String, FileState> hostFiles,
                                                    Optional<String> note) {
        List<String> reasons = new ArrayList<>();
        // The class, from what is found (see safetyOf): the strictest of each reason's.
        SafetyClass safety = SafetyClass.ROUTINE;
        for (String role : HostCertificates.MEMBER_KEYED) {
            if (pki.verdict(pki.memberPair(member, role), pki.memberRequest(member, role)) instanceof CertificateVerdict.Reissue r) {
                reasons.add(role + ": " + r.reason());
                safety = safety.stricter(r.renewal() ? SafetyClass.ROUTINE : SafetyClass.CHANGE);
            }
        }
        for (String role : clientRoles) {
            if (pki.verdict(pki.clientPair(role), pki.clientRequest(role)) instanceof CertificateVerdict.Reissue r) {
                reasons.add(role + ": " + r.reason());
                safety = safety.stricter(r.renewal() ? SafetyClass.ROUTINE : SafetyClass.CHANGE);
            }
        }
        boolean localsCurrent = reasons.isEmpty();
        if (localsCurrent) {
            // Locals are good: does the host hold exactly them?
            for (Placement p : placements(pki, member, clientRoles)) {
                FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
                String name = p.remotePath().substring(EtcdLayout.PKI_DIR.length() + 1);
                if (!have.exists()) {
                    reasons.add(name + " missing on host");
                    safety = safety.stricter(missingOnHost(p.remotePath(), hostFiles));
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
        boolean anyOnHost = HostCertificates.allCertPaths().stream().anyMatch(p -> hostFiles.containsKey(p) && hostFiles.get(p).exists());
        return Optional.of(Step.on(host, "pki", "certificates")
                .kind(anyOnHost ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .safety(safety)
                .summary("certificates for " + member.name())
                .reason(String.join("; ", reasons) + note.map(n -> "; " + n).orElse(""))
                .observed(digestOf(hostFiles)));
    }

    /**
     * The class of a certificate file missing on a member's host (a copy that differs from the issued
     * one, or whose mode or owner does, is a file changed on the host: {@code routine}). One etcd
     * itself reads (the CA, its server and peer pair) on a host that holds etcd's other ones was
     * removed there: {@code routine}. Any other (the healthcheck client, a shared client the spec's
     * clients names the host for, every file on a host becoming a member) may be a spec edit or
     * this etcdwright handing out a file the last one did not: the facts cannot tell, {@code change}.
     */
    private static SafetyClass missingOnHost(String path, Map<String, FileState> hostFiles) {
        List<String> etcds = List.of(HostCertificates.certPath(HostCertificates.CA), HostCertificates.certPath(HostCertificates.SERVER),
                HostCertificates.keyPath(HostCertificates.SERVER), HostCertificates.certPath(HostCertificates.PEER),
                HostCertificates.keyPath(HostCertificates.PEER));
        boolean othersThere = etcds.stream().filter(p -> !p.equals(path))
                .anyMatch(p -> hostFiles.containsKey(p) && hostFiles.get(p).exists());
        return etcds.contains(path) && othersThere ? SafetyClass.ROUTINE : SafetyClass.CHANGE;
    }

    /**
     * Issues what is due locally, then makes every file on the host match its issued copy; CHANGED
     * only when something was issued or written. Files the facts showed right are not sent again;
     * the others are compared on the host before they are replaced (an apply may resume after an
     * interruption that already copied them).
     */
    public static Outcome apply(HostSession session, ClusterPki pki, ClusterPki.MemberIdentity member,
                                Set<String> clientRoles, Map<String, FileState> hostFiles) {
        return apply(session, pki, member, clientRoles, hostFiles, pki.caCertFile());
    }

    /**
     * As above, the host's ca.crt made a copy of {@code caFile}: during a CA rotation, the bundle of
     * the old and the new CA, while certificates are issued from the new one.
     */
    public static Outcome apply(HostSession session, ClusterPki pki, ClusterPki.MemberIdentity member,
                                Set<String> clientRoles, Map<String, FileState> hostFiles, Path caFile) {
        boolean changed = false;
        for (String role : HostCertificates.MEMBER_KEYED) {
            changed |= pki.ensure(pki.memberPair(member, role), pki.memberRequest(member, role));
        }
        for (String role : clientRoles) {
            changed |= pki.ensure(pki.clientPair(role), pki.clientRequest(role));
        }
        List<Placement> placements = placements(pki, member, clientRoles, caFile);
        for (int i = 0; i < placements.size(); i++) {
            Placement p = placements.get(i);
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            byte[] content = read(p.local());
            if (i + 1 < placements.size() && placements.get(i + 1).remotePath().endsWith(".key")) {
                // A certificate and its key: when both change, etcd (which loads them at each new
                // handshake) must not meet the new certificate with the old key for a round trip.
                Placement k = placements.get(++i);
                FileState haveKey = hostFiles.getOrDefault(k.remotePath(), FileState.missing(k.remotePath()));
                byte[] key = read(k.local());
                if (have.exists() && haveKey.exists() && !have.hasContent(content) && !haveKey.hasContent(key)) {
                    changed |= landPair(session, p, content, k, key);
                    continue;
                }
                changed |= land(session, k, haveKey, key);
            }
            changed |= land(session, p, have, content);
        }
        return changed ? Outcome.CHANGED : Outcome.OK;
    }

    static boolean land(HostSession session, Placement p, FileState have, byte[] content) {
        if (have.hasContent(content) && have.hasAttributes(p.mode(), p.owner(), p.group())) {
            return false;
        }
        return session.sync(content, new RemoteFile(p.remotePath(), p.mode(), p.owner(), p.group()));
    }

    /** Suffix of a pair's staged files beside their targets, renamed over them together. */
    static final String STAGED = ".etcdwright-new";

    /**
     * Both files of a pair, each landed whole beside its target (its final mode and owner from the
     * start: the key 0600), then renamed over the targets back to back in one command: the window in
     * which a handshake could read a certificate and a key that do not match is two rename calls,
     * not a round trip. Such a handshake fails and its client connects again.
     */
    /**
     * As {@link #apply(HostSession, ClusterPki, ClusterPki.MemberIdentity, Set, Map, Path)}, but a
     * pair the workstation holds is sent as it is, whichever CA issued it: only a missing one is
     * issued. What a restore in the middle of a CA rotation gives its members (with {@code caFile}
     * the bundle of the old and the new CA), so clients of either CA keep working and the next apply
     * carries the rotation on from where it stands.
     */
    public static Outcome applyAsHeld(HostSession session, ClusterPki pki, ClusterPki.MemberIdentity member,
                                      Set<String> clientRoles, Map<String, FileState> hostFiles, Path caFile) {
        boolean changed = false;
        for (String role : HostCertificates.MEMBER_KEYED) {
            ClusterPki.LocalPair pair = pki.memberPair(member, role);
            if (!Files.exists(pair.cert()) || !Files.exists(pair.key())) {
                changed |= pki.ensure(pair, pki.memberRequest(member, role));
            }
        }
        for (Placement p : placements(pki, member, clientRoles, caFile)) {
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            changed |= land(session, p, have, read(p.local()));
        }
        return changed ? Outcome.CHANGED : Outcome.OK;
    }

    private static boolean landPair(HostSession session, Placement cert, byte[] certContent, Placement key, byte[] keyContent) {
        session.sync(keyContent, new RemoteFile(key.remotePath() + STAGED, key.mode(), key.owner(), key.group()));
        session.sync(certContent, new RemoteFile(cert.remotePath() + STAGED, cert.mode(), cert.owner(), cert.group()));
        session.run(new RemoteCommand.Script(RENAME_PAIR, List.of(key.remotePath() + STAGED, key.remotePath(),
                cert.remotePath() + STAGED, cert.remotePath()))).orThrow(session.target().name());
        return true;
    }

    private static final String RENAME_PAIR = """
            set -eu
            mv -f -- "$1" "$2"
            mv -f -- "$3" "$4"
            """;

    static List<Placement> placements(ClusterPki pki, ClusterPki.MemberIdentity member, Set<String> clientRoles) {
        return placements(pki, member, clientRoles, pki.caCertFile());
    }

    private static Placement caPlacement(Path caFile) {
        return new Placement(HostCertificates.certPath(HostCertificates.CA), caFile, "0644", "root", EtcdLayout.USER);
    }

    /**
     * The host's ca.crt made a copy of {@code caFile} (atomically, as every file), if it differs:
     * how a CA rotation gives members the bundle, then the new CA alone. Returns whether it changed.
     */
    public static boolean landCa(HostSession session, Path caFile, FileState have) {
        return land(session, caPlacement(caFile), have, read(caFile));
    }

    static List<Placement> placements(ClusterPki pki, ClusterPki.MemberIdentity member, Set<String> clientRoles, Path caFile) {
        List<Placement> list = new ArrayList<>();
        String etcd = EtcdLayout.USER;
        list.add(caPlacement(caFile));
        for (String role : HostCertificates.KEYED) {
            boolean client = HostCertificates.isClient(role);
            if (client && !clientRoles.contains(role)) {
                continue;
            }
            ClusterPki.LocalPair pair = client ? pki.clientPair(role) : pki.memberPair(member, role);
            list.add(new Placement(HostCertificates.certPath(role), pair.cert(), "0644", "root", etcd));
            list.add(new Placement(HostCertificates.keyPath(role), pair.key(), "0600", etcd, etcd));
        }
        return list;
    }

    /**
     * The shared client files on a host that should not be there: the certificate and key of each
     * client role not in {@code clientRoles} that the host holds, at etcdwright's own paths only.
     */
    public static List<String> surplus(Set<String> clientRoles, Map<String, FileState> hostFiles) {
        List<String> paths = new ArrayList<>();
        for (String role : HostCertificates.CLIENTS) {
            if (clientRoles.contains(role)) {
                continue;
            }
            for (String path : List.of(HostCertificates.keyPath(role), HostCertificates.certPath(role))) {
                FileState have = hostFiles.getOrDefault(path, FileState.missing(path));
                if (have.exists()) {
                    paths.add(path);
                }
            }
        }
        return paths;
    }

    static byte[] read(Path file) {
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
