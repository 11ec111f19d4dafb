package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;

import java.nio.file.Files;
import java.nio.file.Path;
import io.etcdwright.engine.spec.ClientKeys;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The files of a host that holds client pairs without running a member: the CA file (the trust
 * bundle while a CA rotation needs one) and the certificate and key of each client the spec names
 * it for, owned by root (there is no etcd user there): the key 0600, the certificates 0644. In
 * etcdwright's layout all of them are in /etc/etcd/pki; in kubeadm's ({@code clients.kube-apiserver.layout:
 * kubeadm}) kube-apiserver's pair and a CA file of its own are where kubeadm's external etcd reads
 * them ({@link KubeadmPaths}), the admin pair (and its CA file) still in /etc/etcd/pki. Nothing else of
 * etcd's ever goes there.
 */
public final class ClientHostFiles {
    private ClientHostFiles() {
    }

    static final String OWNER = "root";

    static List<PkiSteps.Placement> placements(ClusterPki pki, Set<String> roles, Path caFile, ClientKeys.Layout layout) {
        // One CA file a directory the roles use: the same content (caFile) at each.
        Set<String> caPaths = new LinkedHashSet<>();
        for (String role : HostCertificates.CLIENTS) {
            if (roles.contains(role)) {
                caPaths.add(KubeadmPaths.caPath(role, layout));
            }
        }
        if (caPaths.isEmpty()) {
            caPaths.add(HostCertificates.certPath(HostCertificates.CA));
        }
        List<PkiSteps.Placement> list = new ArrayList<>();
        caPaths.forEach(ca -> list.add(new PkiSteps.Placement(ca, caFile, "0644", OWNER, OWNER)));
        for (String role : HostCertificates.CLIENTS) {
            if (roles.contains(role)) {
                ClusterPki.LocalPair pair = pki.clientPair(role);
                list.add(new PkiSteps.Placement(KubeadmPaths.certPath(role, layout), pair.cert(), "0644", OWNER, OWNER));
                list.add(new PkiSteps.Placement(KubeadmPaths.keyPath(role, layout), pair.key(), "0600", OWNER, OWNER));
            }
        }
        return list;
    }

    /** Every path a host holds for {@code roles} in {@code layout}: the CA file(s), then each pair. */
    public static List<String> paths(ClusterPki pki, Set<String> roles, ClientKeys.Layout layout) {
        return placements(pki, roles, pki.caCertFile(), layout).stream().map(PkiSteps.Placement::remotePath).toList();
    }

    /** A path as a step names it: relative to /etc/etcd/pki there, else whole. */
    public static String shown(String path) {
        return path.startsWith(EtcdLayout.PKI_DIR + "/") ? path.substring(EtcdLayout.PKI_DIR.length() + 1) : path;
    }

    /**
     * Why the host's files are not the workstation's copies of {@code roles} and {@code caFile}
     * (empty when they are): missing, other content, other mode or owner. A workstation file that
     * does not exist yet (made by an earlier step of the same apply) counts as differing.
     */
    public static List<String> differences(ClusterPki pki, Set<String> roles, Path caFile, ClientKeys.Layout layout,
                                           Map<String, FileState> hostFiles) {
        List<String> reasons = new ArrayList<>();
        for (PkiSteps.Placement p : placements(pki, roles, caFile, layout)) {
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            String name = shown(p.remotePath());
            if (!have.exists()) {
                reasons.add(name + " missing on host");
            } else if (!Files.exists(p.local()) || !have.sha256().equals(ClusterPki.sha256(p.local()))) {
                reasons.add(name + " differs from " + p.local().getFileName());
            } else if (!have.hasAttributes(p.mode(), p.owner(), p.group())) {
                reasons.add(name + " mode/owner " + have.mode() + " " + have.owner() + ":" + have.group());
            }
        }
        return reasons;
    }

    /** Lands every file that differs (each atomically, the key private from the start); whether any changed. */
    public static boolean land(HostSession session, ClusterPki pki, Set<String> roles, Path caFile, ClientKeys.Layout layout,
                               Map<String, FileState> hostFiles) {
        boolean changed = false;
        for (PkiSteps.Placement p : placements(pki, roles, caFile, layout)) {
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            changed |= PkiSteps.land(session, p, have, PkiSteps.read(p.local()));
        }
        return changed;
    }

    /**
     * The files a host holds that it should not: each client pair not in {@code roles}, the CA file
     * once it holds no client at all (it is etcdwright's copy on a host that runs no member), and
     * what a layout no longer used left. In /etc/etcd/pki every file is etcdwright's; at kubeadm's
     * paths only a file whose content is the workstation's (the CA file, the CA rotation's bundle,
     * kube-apiserver's certificate or key) is: whatever else is there is kubeadm's or the
     * operator's, and is left alone.
     */
    public static List<String> surplus(ClusterPki pki, Set<String> roles, ClientKeys.Layout layout, Map<String, FileState> hostFiles) {
        return surplus(roles.isEmpty() ? Set.of() : new LinkedHashSet<>(paths(pki, roles, layout)), hostFiles,
                (path, have) -> ours(pki, path, have));
    }

    /**
     * Every file a host holds that etcdwright gave it ({@link #surplus(ClusterPki, Set, ClientKeys.Layout, Map)}
     * with no role): at kubeadm's paths only what is the workstation's, and nothing there without
     * {@code pki} (the workstation's files unknown, so nothing there is known to be etcdwright's).
     */
    public static List<String> all(java.util.Optional<ClusterPki> pki, Map<String, FileState> hostFiles) {
        return surplus(Set.of(), hostFiles, (path, have) -> pki.isPresent() && ours(pki.get(), path, have));
    }

    /** Each pair key first, then the CA file it was trusted with: etcdwright's, then kubeadm's paths. */
    private static final List<String> REMOVAL_ORDER = List.of(
            HostCertificates.keyPath(HostCertificates.ADMIN), HostCertificates.certPath(HostCertificates.ADMIN),
            HostCertificates.keyPath(HostCertificates.APISERVER), HostCertificates.certPath(HostCertificates.APISERVER),
            HostCertificates.certPath(HostCertificates.CA), KubeadmPaths.KEY_FILE, KubeadmPaths.CERT_FILE, KubeadmPaths.CA_FILE);

    private static List<String> surplus(Set<String> kept, Map<String, FileState> hostFiles,
                                        java.util.function.BiPredicate<String, FileState> ours) {
        List<String> paths = new ArrayList<>();
        for (String path : REMOVAL_ORDER) {
            FileState have = hostFiles.getOrDefault(path, FileState.missing(path));
            if (!have.exists() || kept.contains(path)) {
                continue;
            }
            if (path.startsWith(EtcdLayout.PKI_DIR + "/") || ours.test(path, have)) {
                paths.add(path);
            }
        }
        return paths;
    }

    /** Whether a file at one of kubeadm's paths holds exactly what etcdwright put there. */
    private static boolean ours(ClusterPki pki, String path, FileState have) {
        List<Path> candidates = switch (path) {
            case KubeadmPaths.CA_FILE -> List.of(pki.caCertFile(), pki.trustedCaFile());
            case KubeadmPaths.CERT_FILE -> List.of(pki.clientPair(HostCertificates.APISERVER).cert());
            case KubeadmPaths.KEY_FILE -> List.of(pki.clientPair(HostCertificates.APISERVER).key());
            default -> List.of();
        };
        return candidates.stream().anyMatch(local -> Files.exists(local) && have.sha256().equals(ClusterPki.sha256(local)));
    }

    /**
     * What to run on a host etcdwright cannot reach to remove what it gave it: its own files, and
     * kubeadm's paths only when it gave the host those (they may be kubeadm's own otherwise).
     */
    public static String removalAdvice() {
        List<String> own = ClientHostFacts.allPaths().stream().filter(p -> p.startsWith(EtcdLayout.PKI_DIR + "/")).toList();
        List<String> kubeadm = ClientHostFacts.allPaths().stream().filter(p -> !own.contains(p)).toList();
        return "'rm -f -- " + String.join(" ", own) + "' (and, where it was given them in clients.kube-apiserver.layout"
                + " kubeadm, 'rm -f -- " + String.join(" ", kubeadm) + "')";
    }

    /** Removes exactly {@code paths} (etcdwright's own file names); whether any was there. */
    public static boolean remove(HostSession session, List<String> paths) {
        List<String> argv = new ArrayList<>(List.of("rm", "-fv", "--"));
        argv.addAll(paths);
        return !session.run(new RemoteCommand.Exec(argv)).orThrow(session.target().name()).stdout().isBlank();
    }
}
