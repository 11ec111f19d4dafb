package io.etcdwright.modules.adopt;

import io.etcdwright.engine.spec.Tls;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Specs written from readings recorded on hand-made clusters (AdoptIT's layouts), and every refusal. */
class ClusterImportTest {
    private static final String CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    /** A member as the kubeadm layout of AdoptIT runs it (flags in the unit). */
    private static ClusterImport.HostReading kubeadm(int i, String version) {
        String ip = "10.82.0.1" + i;
        Map<String, String> flags = new java.util.LinkedHashMap<>(Map.ofEntries(
                Map.entry("name", "h" + i), Map.entry("data-dir", "/var/lib/etcd"),
                Map.entry("listen-client-urls", "https://127.0.0.1:2379,https://" + ip + ":2379"),
                Map.entry("advertise-client-urls", "https://" + ip + ":2379"),
                Map.entry("listen-peer-urls", "https://" + ip + ":2380"),
                Map.entry("initial-advertise-peer-urls", "https://" + ip + ":2380"),
                Map.entry("initial-cluster", "h1=https://10.82.0.11:2380,h2=https://10.82.0.12:2380,h3=https://10.82.0.13:2380"),
                Map.entry("initial-cluster-state", "new"), Map.entry("initial-cluster-token", "adopted-kubeadm"),
                Map.entry("listen-metrics-urls", "http://127.0.0.1:2381"),
                Map.entry("cert-file", "/etc/kubernetes/pki/etcd/server.crt"), Map.entry("key-file", "/etc/kubernetes/pki/etcd/server.key"),
                Map.entry("peer-cert-file", "/etc/kubernetes/pki/etcd/peer.crt"), Map.entry("peer-key-file", "/etc/kubernetes/pki/etcd/peer.key"),
                Map.entry("trusted-ca-file", "/etc/kubernetes/pki/etcd/ca.crt"),
                Map.entry("peer-trusted-ca-file", "/etc/kubernetes/pki/etcd/ca.crt"),
                Map.entry("client-cert-auth", "true"), Map.entry("peer-client-cert-auth", "true"),
                Map.entry("snapshot-count", "10000"), Map.entry("heartbeat-interval", "100"), Map.entry("election-timeout", "1000"),
                Map.entry("auto-compaction-retention", "8"), Map.entry("log-outputs", "stderr,/var/log/etcd.log")));
        return new ClusterImport.HostReading(new ClusterImport.InventoryMember("h" + i, "h" + i, ip),
                new ForeignMember("h" + i, "h" + i + ":/etc/systemd/system/etcd.service", "/usr/local/bin/etcd", flags),
                version, CA, List.of());
    }

    private static ClusterImport.ListedMember listed(int i) {
        return new ClusterImport.ListedMember("h" + i, List.of("https://10.82.0.1" + i + ":2380"), false);
    }

    @Test
    void aKubeadmLayoutIsWrittenAsItIsWithItsDataDirKept() {
        List<ClusterImport.HostReading> readings = List.of(kubeadm(1, "3.5.16"), kubeadm(2, "3.5.16"), kubeadm(3, "3.5.16"));
        String name = ClusterImport.clusterName(Optional.empty(), readings);
        ClusterImport.Result result = ClusterImport.describe(name, readings, List.of(listed(3), listed(1), listed(2)), Optional.empty(),
                new ClusterImport.Artifacts(Optional.of("http://mirror/v{version}/etcd-v{version}-linux-{arch}.tar.gz"), Optional.empty()));
        assertEquals("""
                # Written by 'etcdwright import' from the running cluster: its members, version, ports, data dir
                # and settings as they are. Its CA is in the workstation's PKI directory for this cluster.
                cluster:
                  name: adopted-kubeadm
                members:
                  hosts:
                  - h1
                  - h2
                  - h3
                etcd:
                  version: 3.5.16
                  ports:
                    client: 2379
                    peer: 2380
                    metrics: 2381
                  dataDir: /var/lib/etcd
                  settings:
                    auto-compaction-retention: '8'
                    election-timeout: 1000
                    heartbeat-interval: 100
                    log-outputs:
                    - stderr
                    - /var/log/etcd.log
                    snapshot-count: 10000
                artifacts:
                  url: http://mirror/v{version}/etcd-v{version}-linux-{arch}.tar.gz
                """, result.specYaml());
        assertEquals(List.of("h1", "h2", "h3"), result.members());
        assertEquals(List.of(), result.notes());
    }

    @Test
    void whatASpecCannotSayIsRefusedAllAtOnce() {
        ClusterImport.HostReading renamed = new ClusterImport.HostReading(new ClusterImport.InventoryMember("h2", "h2", "10.82.0.99"),
                kubeadm(2, "3.5.16").member(), "3.5.16", CA, List.of());
        List<String> why = ClusterImport.hostProblems(List.of(kubeadm(1, "3.5.16"), renamed, kubeadm(3, "3.4.23")));
        assertEquals(List.of(
                "h2: its member advertises 10.82.0.12 but etcdwright would use 10.82.0.99: set etcd_address: 10.82.0.12 on host h2"
                        + " in the inventory (a member keeps its peer URL)",
                "the members differ in their etcd version (h1, h2: 3.5.16; h3: 3.4.23): a desired state has one; make them the"
                        + " same first"), why);

        ClusterImport.Refused stranger = assertThrows(ClusterImport.Refused.class, () -> ClusterImport.describe("c",
                List.of(kubeadm(1, "3.5.16"), kubeadm(2, "3.5.16")), List.of(listed(1), listed(2), listed(3),
                        new ClusterImport.ListedMember("", List.of("https://10.82.0.14:2380"), true)), Optional.empty(),
                ClusterImport.Artifacts.DEFAULT));
        assertEquals(List.of("member h3 https://10.82.0.13:2380 runs on no host that was read: add its host to the inventory"
                        + " (or remove the member from the cluster) and import again",
                "member (unstarted) https://10.82.0.14:2380 is a learner: promote it (etcdctl member promote) or remove it, then import"),
                stranger.reasons());
    }

    @Test
    void aReleaseOlderThanEtcdwrightRunsIsRefused() {
        assertEquals(List.of("h1: etcd 3.3.27 is not supported: etcdwright operates etcd 3.4 to 3.7 (upgrade it by etcd's own procedure first,"
                        + " or import it with a newer etcdwright)"),
                ClusterImport.hostProblems(List.of(kubeadm(1, "3.3.27"))));
    }

    @Test
    void settingsKeptElsewhereAndUrlsNeitherHttpNorHttpsAreRefused() {
        Map<String, String> flags = new java.util.HashMap<>(kubeadm(1, "3.5.16").member().settings());
        flags.put("advertise-client-urls", "unixs://etcd.sock:0");
        flags.put("wal-dir", "/wal");
        ForeignMember odd = new ForeignMember("h1", "u", "/usr/bin/etcd", flags);
        assertEquals(List.of("the write-ahead log is kept apart (--wal-dir /wal): etcdwright keeps it inside the data dir; move"
                        + " it back with etcd's own procedure first",
                "an advertised URL is neither http:// nor https:// (unix sockets?): etcdwright advertises one http(s) URL per side"),
                odd.unsupported());
    }

    /** A member of a hand-made plain-HTTP cluster: no TLS flag at all. */
    private static ClusterImport.HostReading plain(int i, boolean tlsPeers) {
        Map<String, String> flags = new java.util.HashMap<>(kubeadm(i, "3.5.16").member().settings());
        flags.keySet().removeIf(k -> k.contains("cert") || k.contains("key-file") || k.contains("ca-file"));
        String ip = "10.82.0.1" + i;
        flags.put("listen-client-urls", "http://127.0.0.1:2379,http://" + ip + ":2379");
        flags.put("advertise-client-urls", "http://" + ip + ":2379");
        if (tlsPeers) {
            flags.putAll(Map.of("peer-cert-file", "/etc/etcd/peer.crt", "peer-key-file", "/etc/etcd/peer.key",
                    "peer-trusted-ca-file", "/etc/etcd/ca.crt", "peer-client-cert-auth", "true"));
        } else {
            flags.put("listen-peer-urls", "http://" + ip + ":2380");
            flags.put("initial-advertise-peer-urls", "http://" + ip + ":2380");
        }
        return new ClusterImport.HostReading(kubeadm(i, "3.5.16").inventory(),
                new ForeignMember("h" + i, "u", "/usr/local/bin/etcd", flags), "3.5.16", tlsPeers ? CA : "", List.of());
    }

    @Test
    void aPlainHttpClusterIsDescribedAsPlaintextWithNoCaToImport() {
        List<ClusterImport.HostReading> readings = List.of(plain(1, false), plain(2, false));
        assertEquals(List.of(), readings.get(0).member().unsupported());
        assertEquals(new Tls.Transport(Tls.Mode.PLAINTEXT, Tls.Mode.PLAINTEXT), ClusterImport.transport(readings));
        assertFalse(ClusterImport.needsCa(ClusterImport.transport(readings)));
        ClusterImport.Result result = ClusterImport.describe("plain", readings, List.of(
                new ClusterImport.ListedMember("h1", List.of("http://10.82.0.11:2380"), false),
                new ClusterImport.ListedMember("h2", List.of("http://10.82.0.12:2380"), false)), Optional.empty(), ClusterImport.Artifacts.DEFAULT);
        assertTrue(result.specYaml().startsWith("""
                # Written by 'etcdwright import' from the running cluster: its members, version, ports, data dir
                # settings and plain-HTTP transport as they are. etcdwright made a CA in the workstation's PKI directory
                # for this cluster, for a later move to TLS.
                """), result.specYaml());
        assertTrue(result.specYaml().endsWith("""
                tls:
                  transport:
                    clients: plaintext
                    peers: plaintext
                """), result.specYaml());
        assertEquals(2, result.notes().size(), result.notes().toString());
        assertTrue(result.notes().get(0).startsWith("clients speak plain HTTP"), result.notes().toString());
        assertTrue(result.notes().get(1).startsWith("peers speak plain HTTP"), result.notes().toString());
    }

    @Test
    void plainHttpClientsWithTlsPeersTakeTheCaThePeersTrust() {
        ClusterImport.HostReading reading = plain(1, true);
        assertEquals(List.of(), reading.member().unsupported());
        assertEquals(new Tls.Transport(Tls.Mode.PLAINTEXT, Tls.Mode.MUTUAL_TLS), ClusterImport.transport(List.of(reading)));
        assertEquals(Optional.of("/etc/etcd/ca.crt"), reading.member().trustedCaFile());
        assertTrue(ClusterImport.needsCa(ClusterImport.transport(List.of(reading))));
        String spec = ClusterImport.describe("mixed", List.of(reading), List.of(listed(1)), Optional.empty(), ClusterImport.Artifacts.DEFAULT)
                .specYaml();
        assertTrue(spec.endsWith("tls:\n  transport:\n    clients: plaintext\n    peers: mutual-tls\n"), spec);

        Map<String, String> noCa = new java.util.HashMap<>(reading.member().settings());
        noCa.remove("peer-trusted-ca-file");
        assertEquals(List.of("peers on TLS without --peer-cert-file and --peer-trusted-ca-file: no CA to import"),
                new ForeignMember("h1", "u", "/usr/bin/etcd", noCa).unsupported());
        // Members that differ in how they speak are refused: a spec has one transport.
        assertEquals(List.of("the members differ in their transport (h1: clients plaintext, peers mutual-tls; h2: clients"
                        + " plaintext, peers plaintext): a desired state has one; make them the same first",
                "the members differ in their trusted CA (h1; h2): a desired state has one; make them the same first"),
                ClusterImport.hostProblems(List.of(reading, plain(2, false))));
    }

    @Test
    void withoutTheCaKeyTheSpecNamesTheCaCertificateAloneAndWhereTheMembersKeepTheirs() {
        List<ClusterImport.HostReading> readings = List.of(kubeadm(1, "3.5.16"), kubeadm(2, "3.5.16"));
        Map<String, io.etcdwright.engine.spec.Pki.HostFiles> from = ClusterImport.fromHosts(readings,
                Optional.of("/etc/kubernetes/pki/etcd/healthcheck-client.crt"));
        ClusterImport.Result result = ClusterImport.describe("adopted-kubeadm", readings, List.of(listed(1), listed(2)),
                Optional.of(new ClusterImport.TrustOnly("/home/op/.etcdwright/clusters/adopted-kubeadm/pki/ca.crt", from)),
                ClusterImport.Artifacts.DEFAULT);
        assertTrue(result.trustOnly());
        assertTrue(result.specYaml().startsWith("""
                # Written by 'etcdwright import' from the running cluster: its members, version, ports, data dir
                # and settings as they are. Trust-only: its CA certificate, without the key, is in the workstation's
                # PKI directory; the members keep the certificates they have (tls.pki.fromHosts).
                """), result.specYaml());
        assertTrue(result.specYaml().endsWith("""
                tls:
                  pki:
                    ca:
                      cert: /home/op/.etcdwright/clusters/adopted-kubeadm/pki/ca.crt
                    fromHosts:
                      server:
                        cert: /etc/kubernetes/pki/etcd/server.crt
                        key: /etc/kubernetes/pki/etcd/server.key
                      peer:
                        cert: /etc/kubernetes/pki/etcd/peer.crt
                        key: /etc/kubernetes/pki/etcd/peer.key
                      healthcheck-client:
                        cert: /etc/kubernetes/pki/etcd/healthcheck-client.crt
                        key: /etc/kubernetes/pki/etcd/healthcheck-client.key
                """), result.specYaml());
        assertEquals(1, result.notes().size(), result.notes().toString());
        assertTrue(result.notes().get(0).startsWith("operated trust-only (no CA key): etcdwright can operate this cluster"),
                result.notes().toString());

        // Without a healthcheck client found, the operator is told the plan will ask for one.
        ClusterImport.Result bare = ClusterImport.describe("c", readings, List.of(listed(1), listed(2)),
                Optional.of(new ClusterImport.TrustOnly("/ca.crt", ClusterImport.fromHosts(readings, Optional.empty()))),
                ClusterImport.Artifacts.DEFAULT);
        assertTrue(bare.notes().get(1).startsWith("no healthcheck client certificate was found beside the CA"), bare.notes().toString());
    }

    @Test
    void trustOnlyIsRefusedForAPlainHttpSideAndForMembersKeepingCertificatesApart() {
        assertEquals(List.of("no CA key, and the cluster speaks plain HTTP on one side: etcdwright would have to issue that"
                        + " side's certificates for a later move to TLS; give the CA key with --ca-key FILE"),
                assertThrows(ClusterImport.Refused.class, () -> ClusterImport.fromHosts(List.of(plain(1, true)), Optional.empty()))
                        .reasons());
        Map<String, String> flags = new java.util.HashMap<>(kubeadm(2, "3.5.16").member().settings());
        flags.put("cert-file", "/etc/ssl/etcd/server.pem");
        ClusterImport.HostReading apart = new ClusterImport.HostReading(kubeadm(2, "3.5.16").inventory(),
                new ForeignMember("h2", "u", "/usr/local/bin/etcd", flags), "3.5.16", CA, List.of());
        List<String> why = assertThrows(ClusterImport.Refused.class, () -> ClusterImport.fromHosts(List.of(kubeadm(1, "3.5.16"),
                apart), Optional.empty())).reasons();
        assertEquals(1, why.size());
        assertTrue(why.get(0).startsWith("the members differ in their certificate files (h1: [/etc/kubernetes/pki/etcd/server.crt,"),
                why.get(0));
    }

    @Test
    void theClusterIsNamedByTheOperatorOrByItsToken() {
        assertEquals("given", ClusterImport.clusterName(Optional.of("given"), List.of(kubeadm(1, "3.5.16"))));
        Map<String, String> flags = new java.util.HashMap<>(kubeadm(1, "3.5.16").member().settings());
        flags.put("initial-cluster-token", "Etcd Cluster");
        ClusterImport.HostReading odd = new ClusterImport.HostReading(kubeadm(1, "3.5.16").inventory(),
                new ForeignMember("h1", "u", "/usr/bin/etcd", flags), "3.5.16", CA, List.of());
        assertEquals(List.of("the cluster needs a name for etcdwright (its spec and PKI directory): its initial-cluster-token"
                        + " 'Etcd Cluster' is not one (lowercase letters, digits and inner '-'); give one with --name NAME"),
                assertThrows(ClusterImport.Refused.class, () -> ClusterImport.clusterName(Optional.empty(), List.of(odd))).reasons());
    }
}
