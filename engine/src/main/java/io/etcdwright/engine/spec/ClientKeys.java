package io.etcdwright.engine.spec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The spec's {@code clients}: which inventory hosts and groups hold a copy of a client
 * certificate and its key. A client no entry names stays on the workstation only.
 *
 * @param targets             by client ({@link #ADMIN}, {@link #KUBE_APISERVER}); a client absent here goes to no host
 * @param kubeApiserverLayout {@code clients.kube-apiserver.layout}: where the hosts named for kube-apiserver hold its files
 */
public record ClientKeys(Map<String, Targets> targets, Layout kubeApiserverLayout) {
    /** The admin client (etcdctl, client-env). */
    public static final String ADMIN = "admin";
    /** kube-apiserver's client (kube-apiserver-flags). */
    public static final String KUBE_APISERVER = "kube-apiserver";
    /** Every client the section knows, in the order they are shown. */
    public static final List<String> CLIENTS = List.of(ADMIN, KUBE_APISERVER);

    public static final ClientKeys NONE = new ClientKeys(Map.of());

    /**
     * Where a host named for kube-apiserver holds its CA file and client pair: etcdwright's own
     * directory (/etc/etcd/pki, the default), or the paths kubeadm's external etcd reads
     * (/etc/kubernetes/pki/etcd/ca.crt, /etc/kubernetes/pki/apiserver-etcd-client.crt and .key).
     */
    public enum Layout {
        ETCDWRIGHT, KUBEADM;

        /** As the spec writes it. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static java.util.Optional<Layout> of(String label) {
            for (Layout l : values()) {
                if (l.label().equals(label)) {
                    return java.util.Optional.of(l);
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** Targets in etcdwright's layout. */
    public ClientKeys(Map<String, Targets> targets) {
        this(targets, Layout.ETCDWRIGHT);
    }

    /** Inventory host names and group names, as written. */
    public record Targets(List<String> hosts, List<String> groups) {
        public Targets {
            hosts = List.copyOf(hosts);
            groups = List.copyOf(groups);
        }
    }

    public ClientKeys {
        Objects.requireNonNull(targets, "targets");
        Objects.requireNonNull(kubeApiserverLayout, "kubeApiserverLayout");
        targets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(targets));
    }
}
