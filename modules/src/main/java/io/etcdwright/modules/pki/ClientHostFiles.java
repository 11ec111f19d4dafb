package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The files of a host that holds client pairs without running a member: the CA file (the trust
 * bundle while a CA rotation needs one) and the certificate and key of each client the spec names
 * it for, in etcdwright's layout (/etc/etcd/pki), owned by root (there is no etcd user there): the
 * key 0600, the certificates 0644. Nothing else of etcd's ever goes there.
 */
public final class ClientHostFiles {
    private ClientHostFiles() {
    }

    static final String OWNER = "root";

    static List<PkiSteps.Placement> placements(ClusterPki pki, Set<String> roles, Path caFile) {
        List<PkiSteps.Placement> list = new ArrayList<>();
        list.add(new PkiSteps.Placement(HostCertificates.certPath(HostCertificates.CA), caFile, "0644", OWNER, OWNER));
        for (String role : HostCertificates.CLIENTS) {
            if (roles.contains(role)) {
                ClusterPki.LocalPair pair = pki.clientPair(role);
                list.add(new PkiSteps.Placement(HostCertificates.certPath(role), pair.cert(), "0644", OWNER, OWNER));
                list.add(new PkiSteps.Placement(HostCertificates.keyPath(role), pair.key(), "0600", OWNER, OWNER));
            }
        }
        return list;
    }

    /**
     * Why the host's files are not the workstation's copies of {@code roles} and {@code caFile}
     * (empty when they are): missing, other content, other mode or owner. A workstation file that
     * does not exist yet (made by an earlier step of the same apply) counts as differing.
     */
    public static List<String> differences(ClusterPki pki, Set<String> roles, Path caFile, Map<String, FileState> hostFiles) {
        List<String> reasons = new ArrayList<>();
        for (PkiSteps.Placement p : placements(pki, roles, caFile)) {
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            String name = p.remotePath().substring(EtcdLayout.PKI_DIR.length() + 1);
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
    public static boolean land(HostSession session, ClusterPki pki, Set<String> roles, Path caFile, Map<String, FileState> hostFiles) {
        boolean changed = false;
        for (PkiSteps.Placement p : placements(pki, roles, caFile)) {
            FileState have = hostFiles.getOrDefault(p.remotePath(), FileState.missing(p.remotePath()));
            changed |= PkiSteps.land(session, p, have, PkiSteps.read(p.local()));
        }
        return changed;
    }

    /**
     * The files a host holds that it should not: each client pair not in {@code roles}, and the CA
     * file once it holds no client at all (it is etcdwright's copy on a host that runs no member).
     */
    public static List<String> surplus(Set<String> roles, Map<String, FileState> hostFiles) {
        List<String> paths = new ArrayList<>(PkiSteps.surplus(roles, hostFiles));
        String ca = HostCertificates.certPath(HostCertificates.CA);
        if (roles.isEmpty() && hostFiles.getOrDefault(ca, FileState.missing(ca)).exists()) {
            paths.add(ca);
        }
        return paths;
    }

    /** Removes exactly {@code paths} (etcdwright's own file names); whether any was there. */
    public static boolean remove(HostSession session, List<String> paths) {
        List<String> argv = new ArrayList<>(List.of("rm", "-fv", "--"));
        argv.addAll(paths);
        return !session.run(new RemoteCommand.Exec(argv)).orThrow(session.target().name()).stdout().isBlank();
    }
}
