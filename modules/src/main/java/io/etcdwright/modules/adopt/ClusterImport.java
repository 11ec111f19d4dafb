package io.etcdwright.modules.adopt;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.engine.spec.Tls;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * From what the hosts of a cluster etcdwright did not create run (their units, versions, CA) and
 * what etcd says its members are, to a desired state that describes that cluster as it is: a pure
 * function, so every refusal and every written spec is tested from recorded readings.
 */
public final class ClusterImport {
    private static final Pattern CLUSTER_NAME = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");

    /** An inventory host and how etcdwright would name and address its member. */
    public record InventoryMember(String host, String memberName, String etcdAddress) {
    }

    /**
     * What one host runs.
     *
     * @param version  what its etcd binary says it is (X.Y.Z)
     * @param caPem    the CA certificate its members trust (PEM)
     * @param dropIns  drop-in files that change the unit (they would change etcdwright's unit too)
     */
    public record HostReading(InventoryMember inventory, ForeignMember member, String version, String caPem,
                              List<String> dropIns) {
        public HostReading {
            dropIns = List.copyOf(dropIns);
        }
    }

    /** A member as etcd lists it. */
    public record ListedMember(String name, List<String> peerUrls, boolean learner) {
        public ListedMember {
            peerUrls = List.copyOf(peerUrls);
        }
    }

    /** Where releases come from, when the operator says (else the spec's defaults: upstream's GitHub releases). */
    public record Artifacts(Optional<String> url, Optional<String> checksumsUrl) {
        public static final Artifacts DEFAULT = new Artifacts(Optional.empty(), Optional.empty());
    }

    /**
     * An import without the CA key: the spec names the CA certificate alone, and where each
     * member's own certificates are on its host, which the first apply copies into etcdwright's
     * layout on the host.
     *
     * @param caCertFile the CA certificate on the workstation (tls.pki.ca.cert)
     * @param fromHosts  tls.pki.fromHosts, by role
     */
    public record TrustOnly(String caCertFile, Map<String, Pki.HostFiles> fromHosts) {
        public TrustOnly {
            fromHosts = Map.copyOf(fromHosts);
        }
    }

    /**
     * Where the members keep their own certificates (the unit's --cert-file, --peer-cert-file and
     * their keys; the healthcheck client found beside the CA), or why trust-only cannot describe
     * them: a side on plain HTTP (its certificates would have to be issued for a later move to TLS),
     * or members that keep them at different paths.
     */
    public static Map<String, Pki.HostFiles> fromHosts(List<HostReading> readings, Optional<String> healthcheckCert) {
        List<String> why = new ArrayList<>();
        if (!transport(readings).equals(Tls.Transport.MUTUAL_TLS)) {
            why.add("no CA key, and the cluster speaks plain HTTP on one side: etcdwright would have to issue that side's"
                    + " certificates for a later move to TLS; give the CA key with --ca-key FILE");
        }
        same(readings, "certificate files", r -> List.of("cert-file", "key-file", "peer-cert-file", "peer-key-file").stream()
                .map(k -> r.member().get(k).orElse("")).toList().toString(), why);
        if (!why.isEmpty()) {
            throw new Refused(why);
        }
        ForeignMember m = readings.get(0).member();
        Map<String, Pki.HostFiles> files = new LinkedHashMap<>();
        files.put("server", new Pki.HostFiles(m.get("cert-file").orElseThrow(), m.get("key-file").orElseThrow()));
        files.put("peer", new Pki.HostFiles(m.get("peer-cert-file").orElseThrow(), m.get("peer-key-file").orElseThrow()));
        healthcheckCert.ifPresent(c -> files.put("healthcheck-client", new Pki.HostFiles(c, ForeignHost.keyOf(c))));
        return files;
    }

    /** A cluster that cannot be described by a spec (yet), every reason at once. */
    public static final class Refused extends RuntimeException {
        private final List<String> reasons;

        public Refused(List<String> reasons) {
            super(String.join("; ", reasons));
            this.reasons = List.copyOf(reasons);
        }

        public List<String> reasons() {
            return reasons;
        }
    }

    /**
     * The desired state and what the operator should know (what converging will change).
     *
     * @param members the inventory hosts of the members, in etcd's member list order
     */
    public record Result(String clusterName, String specYaml, List<String> members, String version, String dataDir,
                         Tls.Transport transport, boolean trustOnly, List<String> notes) {
    }

    private ClusterImport() {
    }

    /** The cluster's name: the operator's, else its initial-cluster-token when that is a valid name. */
    public static String clusterName(Optional<String> given, List<HostReading> readings) {
        if (given.isPresent()) {
            if (!CLUSTER_NAME.matcher(given.get()).matches()) {
                throw new Refused(List.of("--name " + given.get() + ": must be lowercase letters, digits and inner '-',"
                        + " at most 63 characters"));
            }
            return given.get();
        }
        Optional<String> token = readings.stream().map(r -> r.member().get("initial-cluster-token")).flatMap(Optional::stream)
                .findFirst();
        if (token.isPresent() && CLUSTER_NAME.matcher(token.get()).matches()) {
            return token.get();
        }
        throw new Refused(List.of("the cluster needs a name for etcdwright (its spec and PKI directory): "
                + token.map(t -> "its initial-cluster-token '" + t + "' is not one (lowercase letters, digits and inner '-')")
                .orElse("it has no initial-cluster-token") + "; give one with --name NAME"));
    }

    /**
     * The reasons a cluster per-host reading cannot be imported: checked before etcd is asked
     * (whose answer needs the TLS material found here).
     */
    public static List<String> hostProblems(List<HostReading> readings) {
        List<String> why = new ArrayList<>();
        for (HostReading r : readings) {
            r.member().unsupported().forEach(u -> why.add(r.inventory().host() + ": " + u));
        }
        if (!why.isEmpty()) {
            return why;
        }
        for (HostReading r : readings) {
            InventoryMember inv = r.inventory();
            if (!r.member().name().equals(inv.memberName())) {
                why.add(inv.host() + ": its member is named '" + r.member().name() + "' but etcdwright would name it '"
                        + inv.memberName() + "': set etcd_member_name: " + r.member().name() + " on host " + inv.host()
                        + " in the inventory (a member keeps its name)");
            }
            if (!r.member().peerHost().equals(inv.etcdAddress())) {
                why.add(inv.host() + ": its member advertises " + r.member().peerHost() + " but etcdwright would use "
                        + inv.etcdAddress() + ": set etcd_address: " + r.member().peerHost() + " on host " + inv.host()
                        + " in the inventory (a member keeps its peer URL)");
            }
        }
        for (HostReading r : readings) {
            Version.tryParse(r.version()).flatMap(v -> VersionCatalogue.builtIn().unsupported(v))
                    .ifPresent(why2 -> why.add(r.inventory().host() + ": " + why2 + " (upgrade it by etcd's own procedure"
                            + " first, or import it with a newer etcdwright)"));
        }
        for (HostReading r : readings) {
            Version.tryParse(r.version()).filter(v -> VersionCatalogue.builtIn().unsupported(v).isEmpty())
                    .ifPresent(v -> r.member().extraSettings(v).errors().forEach(e -> why.add(r.inventory().host() + ": "
                            + e.setting().map(k -> "--" + k + ": ").orElse("") + e.message())));
        }
        HostReading first = readings.get(0);
        same(readings, "etcd version", HostReading::version, why);
        same(readings, "data dir", r -> r.member().get("data-dir").orElse(""), why);
        same(readings, "client port", r -> Integer.toString(r.member().clientPort()), why);
        same(readings, "peer port", r -> Integer.toString(r.member().peerPort()), why);
        same(readings, "metrics port", r -> r.member().metricsPort().stream().mapToObj(Integer::toString).findFirst().orElse("none"), why);
        same(readings, "other etcd settings", r -> r.member().extraSettings().toString(), why);
        same(readings, "transport", r -> describe(transport(List.of(r))), why);
        same(readings, "trusted CA", r -> normalize(r.caPem()), why);
        Objects.requireNonNull(first);
        return why;
    }

    private static void same(List<HostReading> readings, String what, Function<HostReading, String> value, List<String> why) {
        Map<String, List<String>> byValue = new LinkedHashMap<>();
        readings.forEach(r -> byValue.computeIfAbsent(value.apply(r), k -> new ArrayList<>()).add(r.inventory().host()));
        if (byValue.size() > 1) {
            List<String> parts = new ArrayList<>();
            byValue.forEach((v, hosts) -> parts.add(String.join(", ", hosts) + (what.equals("trusted CA") ? "" : ": " + v)));
            why.add("the members differ in their " + what + " (" + String.join("; ", parts) + "): a desired state has one;"
                    + " make them the same first");
        }
    }

    /** How clients and peers are spoken to, as the (first) member runs it: http:// is plaintext. */
    public static Tls.Transport transport(List<HostReading> readings) {
        ForeignMember m = readings.get(0).member();
        return new Tls.Transport(m.clientMode(), m.peerMode());
    }

    /** Whether any side speaks TLS: only then is there a CA to import. */
    public static boolean needsCa(Tls.Transport transport) {
        return transport.clients() == Tls.Mode.MUTUAL_TLS || transport.peers() == Tls.Mode.MUTUAL_TLS;
    }

    private static String describe(Tls.Transport t) {
        return "clients " + t.clients().specName() + ", peers " + t.peers().specName();
    }

    private static String normalize(String pem) {
        return pem.replaceAll("\\s+", "");
    }

    /**
     * The spec: the readings checked against each other and against etcd's own member list.
     *
     * @throws Refused with every reason the cluster cannot be described as it is
     */
    public static Result describe(String clusterName, List<HostReading> readings, List<ListedMember> listed,
                                  Optional<TrustOnly> trustOnly, Artifacts artifacts) {
        List<String> why = new ArrayList<>(hostProblems(readings));
        if (!why.isEmpty()) {
            throw new Refused(why);
        }
        Map<String, HostReading> byPeerUrl = new LinkedHashMap<>();
        readings.forEach(r -> byPeerUrl.put(r.member().urls("initial-advertise-peer-urls").get(0).toString(), r));
        List<String> members = new ArrayList<>();
        for (ListedMember m : listed) {
            Optional<HostReading> host = m.peerUrls().stream().map(byPeerUrl::get).filter(Objects::nonNull).findFirst();
            if (m.learner()) {
                why.add("member " + display(m) + " is a learner: promote it (etcdctl member promote) or remove it, then import");
            } else if (host.isEmpty()) {
                why.add("member " + display(m) + " runs on no host that was read: add its host to the inventory (or remove the"
                        + " member from the cluster) and import again");
            } else {
                members.add(host.get().inventory().host());
            }
        }
        for (HostReading r : readings) {
            if (!members.contains(r.inventory().host()) && listed.stream().noneMatch(l -> l.learner()
                    && l.peerUrls().contains(r.member().urls("initial-advertise-peer-urls").get(0).toString()))) {
                why.add(r.inventory().host() + ": its member " + r.member().name() + " is not in the cluster's member list"
                        + " (a removed member whose unit still runs?): stop it, or leave the host out with --limit");
            }
        }
        if (!why.isEmpty()) {
            throw new Refused(why);
        }
        // In the inventory's order, as an operator lists hosts (etcd lists members by id).
        List<String> listedHosts = members;
        members = readings.stream().map(r -> r.inventory().host()).filter(listedHosts::contains).toList();
        HostReading first = readings.get(0);
        ForeignMember m = first.member();
        List<String> notes = new ArrayList<>();
        Tls.Transport transport = transport(readings);
        if (transport.clients() == Tls.Mode.PLAINTEXT) {
            notes.add("clients speak plain HTTP (http:// client URLs): the spec says tls.transport.clients: plaintext, as it"
                    + " runs, and every plan warns; set it to mutual-tls to move the cluster to TLS live (docs/desired-state.md)");
        } else if (!m.flag("client-cert-auth")) {
            notes.add("clients are not asked for certificates now (no --client-cert-auth): after apply every client needs one"
                    + " from this CA (etcdwright client-env gives the admin's)");
        }
        if (transport.peers() == Tls.Mode.PLAINTEXT) {
            notes.add("peers speak plain HTTP (http:// peer URLs): the spec says tls.transport.peers: plaintext, as it runs;"
                    + " set it to mutual-tls to move the cluster to TLS live (docs/desired-state.md)");
        } else if (!m.flag("peer-client-cert-auth")) {
            notes.add("peers are not asked for certificates now (no --peer-client-cert-auth): etcdwright turns it on");
        }
        readings.forEach(r -> r.dropIns().forEach(d -> notes.add(r.inventory().host() + ": drop-in " + d
                + " changes etcd.service and would change etcdwright's unit too: remove it before apply")));
        if (trustOnly.isPresent()) {
            notes.add("operated trust-only (no CA key): etcdwright can operate this cluster (converge its layout, restart,"
                    + " status, certs, backups, remove members) but issues no certificate; the members keep theirs ("
                    + String.join(", ", trustOnly.get().fromHosts().keySet()) + ", copied on each host into /etc/etcd/pki),"
                    + " and a plan that would need a new one (a member joining, one expired or due) is refused until you"
                    + " give the key as tls.pki.ca.key or place a certificate you issued");
            if (!trustOnly.get().fromHosts().containsKey("healthcheck-client")) {
                notes.add("no healthcheck client certificate was found beside the CA: the plan asks for one at"
                        + " /etc/etcd/pki/healthcheck-client.crt (and .key) on each member (what the host asks etcd with)");
            }
        }
        return new Result(clusterName, render(clusterName, members, first, artifacts, trustOnly), members, first.version(),
                m.get("data-dir").orElseThrow(), transport, trustOnly.isPresent(), notes);
    }

    private static String display(ListedMember m) {
        return (m.name().isEmpty() ? "(unstarted)" : m.name()) + " " + String.join(",", m.peerUrls());
    }

    static String render(String clusterName, List<String> members, HostReading first, Artifacts artifacts,
                         Optional<TrustOnly> trustOnly) {
        ForeignMember m = first.member();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("cluster", Map.of("name", clusterName));
        doc.put("members", Map.of("hosts", members));
        Map<String, Object> etcd = new LinkedHashMap<>();
        etcd.put("version", first.version());
        Map<String, Object> ports = new LinkedHashMap<>();
        ports.put("client", m.clientPort());
        ports.put("peer", m.peerPort());
        OptionalInt metrics = m.metricsPort();
        metrics.ifPresent(p -> ports.put("metrics", p));
        etcd.put("ports", ports);
        // The data stays where it is: etcdwright's own layout would put it elsewhere only for a new cluster.
        etcd.put("dataDir", m.get("data-dir").orElseThrow());
        // Spelled as the cluster's own release spells them (hostProblems refused what it cannot take).
        Map<String, Object> settings = Version.tryParse(first.version()).map(v -> m.extraSettings(v).config())
                .orElseGet(m::extraSettings);
        if (!settings.isEmpty()) {
            etcd.put("settings", settings);
        }
        doc.put("etcd", etcd);
        Tls.Transport transport = transport(List.of(first));
        Map<String, Object> tls = new LinkedHashMap<>();
        if (!transport.equals(Tls.Transport.MUTUAL_TLS)) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("clients", transport.clients().specName());
            t.put("peers", transport.peers().specName());
            tls.put("transport", t);
        }
        trustOnly.ifPresent(t -> {
            Map<String, Object> pki = new LinkedHashMap<>();
            // The CA certificate alone: no key is what makes it trust-only.
            pki.put("ca", Map.of("cert", t.caCertFile()));
            Map<String, Object> from = new LinkedHashMap<>();
            t.fromHosts().entrySet().stream().sorted(Map.Entry.comparingByKey(
                            java.util.Comparator.comparingInt(Pki.HOST_ROLES::indexOf)))
                    .forEach(e -> {
                        Map<String, Object> pair = new LinkedHashMap<>();
                        pair.put("cert", e.getValue().cert());
                        pair.put("key", e.getValue().key());
                        from.put(e.getKey(), pair);
                    });
            pki.put("fromHosts", from);
            tls.put("pki", pki);
        });
        if (!tls.isEmpty()) {
            doc.put("tls", tls);
        }
        if (artifacts.url().isPresent() || artifacts.checksumsUrl().isPresent()) {
            Map<String, Object> a = new LinkedHashMap<>();
            artifacts.url().ifPresent(u -> a.put("url", u));
            artifacts.checksumsUrl().ifPresent(u -> a.put("checksumsUrl", u));
            doc.put("artifacts", a);
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setWidth(Integer.MAX_VALUE);
        return "# Written by 'etcdwright import' from the running cluster: its members, version, ports, data dir\n"
                + (trustOnly.isPresent() ? "# and settings as they are. Trust-only: its CA certificate, without the key, is in the workstation's\n"
                + "# PKI directory; the members keep the certificates they have (tls.pki.fromHosts).\n"
                : needsCa(transport) ? "# and settings as they are. Its CA is in the workstation's PKI directory for this cluster.\n"
                : "# settings and plain-HTTP transport as they are. etcdwright made a CA in the workstation's PKI directory\n"
                + "# for this cluster, for a later move to TLS.\n")
                + new Yaml(options).dump(doc);
    }
}
