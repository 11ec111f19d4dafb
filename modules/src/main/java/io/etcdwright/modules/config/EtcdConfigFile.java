package io.etcdwright.modules.config;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders etcd's own {@code --config-file} YAML for one member. Deterministic: the same desired
 * state gives the same bytes, so a digest comparison is a complete drift check.
 */
public final class EtcdConfigFile {
    /** A member as the config needs it: name and the address it advertises. */
    public record Peer(String name, String address) {
        public String url(String scheme, int port) {
            return scheme + "://" + host() + ":" + port;
        }

        /** Its peer URL: the scheme of the layout's transport, the peer port. */
        public String peerUrl(EtcdLayout layout) {
            return url(layout.transport().peerScheme(), layout.peerPort());
        }

        private String host() {
            return address.contains(":") ? "[" + address + "]" : address;
        }
    }

    private EtcdConfigFile() {
    }

    /**
     * @param self          the member this file is for
     * @param initialPeers  every member of the initial cluster (for a new cluster: all of them)
     * @param clusterState  "new" for a bootstrap, "existing" for a member joining a running cluster
     * @param token         the initial cluster token: unique per bootstrap, so members of an old
     *                      cluster can never be mistaken for members of this one
     * @param metricsPort   0 for none
     * @param readBy        the release whose binary will read the file: in a version change, members
     *                      run different minors, and each spells the settings its own way
     * @param settings      the operator's extra etcd settings (etcd.settings), written as {@code readBy}
     *                      reads them, with etcdwright's defaults for what they leave unset
     *                      ({@link VersionCatalogue#configFor}); a planner writing for a release the
     *                      spec was not checked against asks {@link VersionCatalogue#settingsFor} first and refuses
     */
    public static String render(Peer self, List<Peer> initialPeers, String clusterState, String token,
                                EtcdLayout layout, int metricsPort, Version readBy, Map<String, Object> settings) {
        return render(self, initialPeers, clusterState, token, layout, metricsPort, readBy, settings, true);
    }

    /** {@link #render}, without etcdwright's defaults when {@code defaults} is false: the file an older etcdwright wrote. */
    public static String render(Peer self, List<Peer> initialPeers, String clusterState, String token,
                                EtcdLayout layout, int metricsPort, Version readBy, Map<String, Object> settings,
                                boolean defaults) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("name", self.name());
        doc.put("data-dir", layout.dataDir());
        MemberTransport transport = layout.transport();
        String peerScheme = transport.peerScheme();
        doc.put("listen-peer-urls", self.url(peerScheme, layout.peerPort()));
        // Loopback too, so etcdctl on the host and local health checks need no routable address. Both
        // schemes on one port while a cluster moves to TLS: etcd serves them on one listener (cmux).
        List<String> listen = new java.util.ArrayList<>();
        List<String> advertise = new java.util.ArrayList<>();
        if (transport.servesClientHttp()) {
            listen.add(self.url("http", layout.clientPort()));
        }
        if (transport.servesClientHttps()) {
            listen.add(self.url("https", layout.clientPort()));
        }
        if (transport.servesClientHttp()) {
            listen.add("http://127.0.0.1:" + layout.clientPort());
        }
        if (transport.servesClientHttps()) {
            listen.add("https://127.0.0.1:" + layout.clientPort());
        }
        if (transport.clients() == MemberTransport.Clients.BOTH) {
            advertise.add(self.url("http", layout.clientPort()));
            advertise.add(self.url("https", layout.clientPort()));
        } else {
            advertise.add(self.url(transport.clientScheme(), layout.clientPort()));
        }
        doc.put("listen-client-urls", String.join(",", listen));
        doc.put("advertise-client-urls", String.join(",", advertise));
        doc.put("initial-advertise-peer-urls", self.url(peerScheme, layout.peerPort()));
        doc.put("initial-cluster", initialPeers.stream()
                .map(p -> p.name() + "=" + p.url(peerScheme, layout.peerPort()))
                .collect(Collectors.joining(",")));
        doc.put("initial-cluster-state", clusterState);
        doc.put("initial-cluster-token", token);
        // Refuse membership changes that would leave the cluster without quorum.
        doc.put("strict-reconfig-check", true);
        if (VersionCatalogue.builtIn().gatewayNeedsEnabling(readBy)) {
            // etcdwright asks etcd through its gRPC gateway, which this release serves from a config file only when told.
            doc.put("enable-grpc-gateway", true);
        }
        if (metricsPort > 0) {
            String host = self.address().contains(":") ? "[" + self.address() + "]" : self.address();
            doc.put("listen-metrics-urls", "http://" + host + ":" + metricsPort + ",http://127.0.0.1:" + metricsPort);
        }
        if (transport.servesClientHttps()) {
            doc.put("client-transport-security", tls("server"));
        }
        if (transport.hasPeerKeys()) {
            doc.put("peer-transport-security", tls("peer"));
        }
        doc.putAll((defaults ? VersionCatalogue.builtIn().configFor(readBy, settings)
                : VersionCatalogue.builtIn().settingsFor(readBy, settings)).orThrow());

        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setWidth(Integer.MAX_VALUE);
        return "# Managed by etcdwright: edits here are reverted by the next apply.\n"
                + new Yaml(options).dump(doc);
    }

    private static Map<String, Object> tls(String certName) {
        Map<String, Object> tls = new LinkedHashMap<>();
        tls.put("cert-file", EtcdLayout.pkiFile(certName + ".crt"));
        tls.put("key-file", EtcdLayout.pkiFile(certName + ".key"));
        tls.put("trusted-ca-file", EtcdLayout.pkiFile("ca.crt"));
        tls.put("client-cert-auth", true);
        return tls;
    }

    /**
     * Whether two rendered files differ at most in the settings etcd reads only when a member starts
     * without data (initial-cluster, initial-cluster-state): after a resize every member's list of
     * initial peers would differ, and a member with data must not be restarted for that.
     */
    public static boolean sameIgnoringBootstrap(String a, String b) {
        return withoutBootstrap(a).equals(withoutBootstrap(b));
    }

    private static String withoutBootstrap(String text) {
        return text.lines().filter(l -> !l.startsWith("initial-cluster:") && !l.startsWith("initial-cluster-state:"))
                .collect(Collectors.joining("\n"));
    }

    /** The token a running or bootstrapped cluster already uses, read back from a member's file. */
    public static java.util.Optional<String> tokenIn(String configText) {
        for (String line : configText.split("\n")) {
            if (line.startsWith("initial-cluster-token:")) {
                String value = line.substring("initial-cluster-token:".length()).strip();
                if (value.length() >= 2 && (value.startsWith("'") || value.startsWith("\""))) {
                    value = value.substring(1, value.length() - 1);
                }
                return value.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(value);
            }
        }
        return java.util.Optional.empty();
    }
}
