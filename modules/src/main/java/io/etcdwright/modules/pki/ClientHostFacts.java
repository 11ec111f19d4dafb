package io.etcdwright.modules.pki;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.FilesProbe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the hosts that hold client files without running a member (a control plane beside an
 * external etcd) have of etcdwright's: the CA file and the admin and kube-apiserver client pairs
 * (at etcdwright's paths and at kubeadm's, {@link KubeadmPaths}), asked in one round trip a host and nothing else (no etcd, no unit, no service is theirs).
 *
 * @param files       each reached host's files, by host
 * @param unreachable each host that was asked and not reached, with why
 */
public record ClientHostFacts(Map<String, Map<String, FileState>> files, Map<String, String> unreachable) {
    public static final ClientHostFacts NONE = new ClientHostFacts(Map.of(), Map.of());

    /** Certificates read back (they are public), keys by digest only; kubeadm's paths after etcdwright's. */
    public static final FilesProbe PROBE = new FilesProbe("client_files", paths(),
            Set.of(HostCertificates.certPath(HostCertificates.CA), HostCertificates.certPath(HostCertificates.ADMIN),
                    HostCertificates.certPath(HostCertificates.APISERVER), KubeadmPaths.CA_FILE, KubeadmPaths.CERT_FILE));

    public ClientHostFacts {
        files = Map.copyOf(new LinkedHashMap<>(files));
        unreachable = Map.copyOf(unreachable);
    }

    private static List<String> paths() {
        return List.of(HostCertificates.certPath(HostCertificates.CA),
                HostCertificates.certPath(HostCertificates.ADMIN), HostCertificates.keyPath(HostCertificates.ADMIN),
                HostCertificates.certPath(HostCertificates.APISERVER), HostCertificates.keyPath(HostCertificates.APISERVER),
                KubeadmPaths.CA_FILE, KubeadmPaths.CERT_FILE, KubeadmPaths.KEY_FILE);
    }

    /** Every path the probe asks for: what a host that holds nothing any more must not have. */
    public static List<String> allPaths() {
        return paths();
    }

    /**
     * The hosts asked for their client files with the facts: those the spec names that run no
     * member, then those the workstation recorded as given files that are still in the inventory
     * and run no member (to remove what they should no longer hold).
     */
    public static List<io.etcdwright.engine.inventory.InventoryHost> hostsToAsk(io.etcdwright.engine.spec.DesiredState desired,
                                                                                ClusterPki pki) {
        Set<String> memberHosts = new java.util.HashSet<>();
        desired.members().forEach(m -> memberHosts.add(m.host().name()));
        List<io.etcdwright.engine.inventory.InventoryHost> ask = new java.util.ArrayList<>(desired.clientOnlyHosts());
        for (String host : pki.clientHosts().hosts()) {
            var h = desired.inventory().hosts().get(host);
            if (h != null && !memberHosts.contains(host) && ask.stream().noneMatch(a -> a.name().equals(host))) {
                ask.add(h);
            }
        }
        return ask;
    }
}
