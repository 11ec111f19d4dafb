package io.etcdwright.cli;

import io.etcdwright.cli.ClientEnvOutputTest.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.etcdwright.cli.ClientEnvOutputTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kubeadm-config} and {@code kube-apiserver-flags} in each layout of clients.kube-apiserver:
 * the same endpoints and paths (one function makes both), kubeadm's paths with {@code layout:
 * kubeadm}, no TLS files over plain HTTP, and the layout checked at file:line:col. That kubeadm's
 * own code accepts the document is KubeadmConfigIT's (integration/kubeadm-config, Go).
 */
class KubeadmConfigCommandTest {
    @TempDir
    Path dir;

    private Path inventory() throws Exception {
        return Files.writeString(dir.resolve("hosts.yaml"), "all:\n  hosts:\n    h1: {ansible_host: 192.0.2.11}\n"
                + "    h2: {ansible_host: 192.0.2.12}\n    h3: {ansible_host: 192.0.2.13}\n    cp1: {ansible_host: 192.0.2.21}\n");
    }

    private Path spec(String extra) throws Exception {
        return Files.writeString(dir.resolve("spec.yaml"), "cluster: {name: demo}\netcd: {version: 3.5.16}\n"
                + "members: {hosts: [h1, h2, h3]}\n" + extra);
    }

    private Run both(String command, String extra) throws Exception {
        return run(command, "-i", inventory().toString(), "-f", spec(extra).toString());
    }

    @Test
    void theKubeadmLayoutPrintsKubeadmsPathsInBothCommands() throws Exception {
        String clients = "clients:\n  kube-apiserver: {hosts: [cp1], layout: kubeadm}\n";
        Run config = both("kubeadm-config", clients);
        assertEquals(0, config.code(), config.err());
        assertEquals("""
                apiVersion: kubeadm.k8s.io/v1beta4
                kind: ClusterConfiguration
                etcd:
                  external:
                    endpoints:
                      - https://192.0.2.11:2379
                      - https://192.0.2.12:2379
                      - https://192.0.2.13:2379
                    caFile: /etc/kubernetes/pki/etcd/ca.crt
                    certFile: /etc/kubernetes/pki/apiserver-etcd-client.crt
                    keyFile: /etc/kubernetes/pki/apiserver-etcd-client.key
                """, config.out());
        assertEquals("", config.err());
        Run flags = both("kube-apiserver-flags", clients);
        assertEquals("""
                --etcd-servers=https://192.0.2.11:2379,https://192.0.2.12:2379,https://192.0.2.13:2379
                --etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt
                --etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt
                --etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key
                """, flags.out());
    }

    @Test
    void theDocumentAndTheFlagsAgreeInEtcdwrightsLayoutAndWithoutAHostNamed() throws Exception {
        for (String clients : List.of("", "clients:\n  kube-apiserver: {hosts: [cp1]}\n")) {
            Run config = both("kubeadm-config", clients);
            assertEquals(0, config.code(), config.err());
            Map<String, Object> external = external(config.out());
            Map<String, String> flags = flags(both("kube-apiserver-flags", clients).out());
            assertEquals(List.of(flags.get("etcd-servers").split(",")), external.get("endpoints"));
            assertEquals(flags.get("etcd-cafile"), external.get("caFile"));
            assertEquals(flags.get("etcd-certfile"), external.get("certFile"));
            assertEquals(flags.get("etcd-keyfile"), external.get("keyFile"));
            assertEquals("/etc/etcd/pki/kube-apiserver-etcd-client.key", external.get("keyFile"));
            assertEquals(clients.isEmpty(), config.err().contains("names no host"), config.err());
        }
    }

    @Test
    void plainHttpHasNoTlsFiles() throws Exception {
        Run config = both("kubeadm-config", "tls: {transport: {clients: plaintext, peers: plaintext}}\n");
        assertEquals(0, config.code(), config.err());
        assertEquals(Map.of("endpoints", List.of("http://192.0.2.11:2379", "http://192.0.2.12:2379", "http://192.0.2.13:2379")),
                external(config.out()));
        assertTrue(config.err().contains("plaintext"), config.err());
    }

    @Test
    void theLayoutIsCheckedAtItsLine() throws Exception {
        Run unknown = both("kubeadm-config", "clients:\n  kube-apiserver:\n    hosts: [cp1]\n    layout: kubespray\n");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().contains("spec.yaml:7:13: error: clients.kube-apiserver.layout: must be one of etcdwright,"
                + " kubeadm; got \"kubespray\""), unknown.err());
        Run stacked = both("kubeadm-config", "clients:\n  kube-apiserver:\n    hosts: [cp1, h2]\n    layout: kubeadm\n");
        assertEquals(1, stacked.code());
        assertTrue(stacked.err().contains("spec.yaml:7:13: error: clients.kube-apiserver.layout: kubeadm is for control-plane"
                + " hosts that run no member (kubeadm's external etcd), but clients.kube-apiserver names h2 (member h2)"),
                stacked.err());
        assertEquals("", stacked.out());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> external(String yaml) {
        Map<String, Object> doc = new Yaml().load(yaml);
        assertEquals("kubeadm.k8s.io/v1beta4", doc.get("apiVersion"));
        assertEquals("ClusterConfiguration", doc.get("kind"));
        return (Map<String, Object>) ((Map<String, Object>) doc.get("etcd")).get("external");
    }

    private static Map<String, String> flags(String lines) {
        Map<String, String> flags = new java.util.LinkedHashMap<>();
        for (String line : lines.split("\n")) {
            int eq = line.indexOf('=');
            flags.put(line.substring(2, eq), line.substring(eq + 1));
        }
        return flags;
    }
}
