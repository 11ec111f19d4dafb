package io.etcdwright.engine.spec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The spec's {@code clients}: which inventory hosts and groups hold a copy of a client
 * certificate and its key. A client no entry names stays on the workstation only.
 *
 * @param targets by client ({@link #ADMIN}, {@link #KUBE_APISERVER}); a client absent here goes to no host
 */
public record ClientKeys(Map<String, Targets> targets) {
    /** The admin client (etcdctl, client-env). */
    public static final String ADMIN = "admin";
    /** kube-apiserver's client (kube-apiserver-flags). */
    public static final String KUBE_APISERVER = "kube-apiserver";
    /** Every client the section knows, in the order they are shown. */
    public static final List<String> CLIENTS = List.of(ADMIN, KUBE_APISERVER);

    public static final ClientKeys NONE = new ClientKeys(Map.of());

    /** Inventory host names and group names, as written. */
    public record Targets(List<String> hosts, List<String> groups) {
        public Targets {
            hosts = List.copyOf(hosts);
            groups = List.copyOf(groups);
        }
    }

    public ClientKeys {
        Objects.requireNonNull(targets, "targets");
        targets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(targets));
    }
}
