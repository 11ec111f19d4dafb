package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A control plane that runs no etcd member (external etcd): h4 is in the inventory, h1..h3 are the
 * members, and the spec names h4 for the kube-apiserver client. After apply h4 holds that client's
 * certificate and key (0600) and the CA, nothing of etcd's; an etcdctl run on h4 with those files
 * is served by the cluster; no member holds a shared client key. Once the spec stops naming h4, the
 * apply removes its files, and the next plan is empty; named again, destroy removes them too. One
 * cluster for the class.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClientHostsIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(4); // h1..h3 members, h4 a control plane beside them
    static final String INV = Testbed.INVENTORY.toString();
    static final String PKI = "/etc/etcd/pki/";
    static Path work;

    @BeforeAll
    static void setUp() throws Exception {
        work = Testbed.scratch("client-hosts");
        String release = Testbed.releaseServer();
        String base = """
                cluster: {name: external}
                members: {hosts: [h1, h2, h3]}
                etcd: {version: 3.5.16}
                artifacts:
                  url: %sv{version}/etcd-v{version}-linux-{arch}.tar.gz
                  checksumsUrl: %sv{version}/SHA256SUMS
                """.formatted(release, release);
        Files.writeString(work.resolve("named.yaml"), base + "clients:\n  kube-apiserver: {hosts: [h4]}\n");
        Files.writeString(work.resolve("unnamed.yaml"), base);
    }

    static String spec(String name) {
        return work.resolve(name).toString();
    }

    @Test
    @Order(1)
    void theControlPlaneHostGetsTheKubeApiserverClientAndTheCaOnlyAndReachesTheCluster() throws Exception {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec("named.yaml"), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertTrue(apply.out().contains("client certificates for h4 (kube-apiserver-etcd-client; runs no member)"), apply.out());

        // h4: the client pair (key 0600 root) and the CA, nothing else of etcd's.
        assertEquals("ca.crt kube-apiserver-etcd-client.crt kube-apiserver-etcd-client.key",
                Testbed.ssh(4, "ls /etc/etcd/pki | sort | tr '\\n' ' '").strip());
        assertEquals("600 root:root", Testbed.ssh(4, "stat -c '%a %U:%G' " + PKI + "kube-apiserver-etcd-client.key").strip());
        assertEquals("pki", Testbed.ssh(4, "ls /etc/etcd").strip(), "no config, no data of etcd on h4");
        assertEquals(1, Testbed.sshStatus(4, "test -e /opt/etcd || test -e /etc/systemd/system/etcd.service || test -e /var/lib/etcd"),
                "no release, unit or data dir on h4");
        // No member holds a shared client key: they stay on the workstation unless named.
        for (int h = 1; h <= 3; h++) {
            assertEquals("", Testbed.ssh(h, "ls " + PKI + " | grep -E '^(admin|kube-apiserver-etcd-client)\\.' || true").strip(),
                    "h" + h + " holds a shared client file");
        }

        // etcdctl on h4, with h4's files only, is served by every member.
        String endpoints = String.join(",", List.of("https://" + Testbed.address(1) + ":2379",
                "https://" + Testbed.address(2) + ":2379", "https://" + Testbed.address(3) + ":2379"));
        Testbed.ssh(4, "mkdir -p /tmp/etcdctl && curl -fsS " + Testbed.releaseServer()
                + "v3.5.16/etcd-v3.5.16-linux-amd64.tar.gz | tar xz -C /tmp/etcdctl --strip-components=1");
        String etcdctl = "/tmp/etcdctl/etcdctl --endpoints=" + endpoints + " --cacert=" + PKI + "ca.crt --cert=" + PKI
                + "kube-apiserver-etcd-client.crt --key=" + PKI + "kube-apiserver-etcd-client.key ";
        Testbed.ssh(4, etcdctl + "put /registry/probe from-h4");
        assertEquals("from-h4", Testbed.ssh(4, etcdctl + "get /registry/probe --print-value-only").strip());
        String health = Testbed.ssh(4, etcdctl + "endpoint health --cluster 2>&1");
        assertEquals(3, health.lines().filter(l -> l.contains("is healthy")).count(), health);

        // certs lists h4's certificates: the same as the workstation's.
        Cli.Run certs = Cli.run("certs", "-i", INV, "-f", spec("named.yaml"), "-o", "json");
        assertEquals(0, certs.exitCode(), certs.all());
        List<String> onH4 = new ArrayList<>();
        for (JsonNode c : new ObjectMapper().readTree(certs.out()).path("certificates")) {
            if (c.path("location").asText().equals("h4")) {
                onH4.add(c.path("path").asText() + "=" + c.path("matches_workstation").asText());
            }
        }
        assertEquals(List.of(PKI + "ca.crt=true", PKI + "kube-apiserver-etcd-client.crt=true"), onH4);

        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec("named.yaml"), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "a second plan is empty: " + again.all());
    }

    @Test
    @Order(2)
    void whenTheSpecStopsNamingTheHostApplyRemovesItsFiles() {
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec("unnamed.yaml"));
        assertEquals(0, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("remove " + PKI + "kube-apiserver-etcd-client.key, " + PKI
                + "kube-apiserver-etcd-client.crt, " + PKI + "ca.crt"), plan.out());
        assertTrue(plan.out().contains("Plan: 1 step"), "h4's files only: " + plan.out());
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec("unnamed.yaml"), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertEquals("", Testbed.ssh(4, "ls -A /etc/etcd/pki").strip(), "h4 holds no client file any more");
        Cli.Run again = Cli.run("plan", "-i", INV, "-f", spec("unnamed.yaml"), "--detailed-exitcode");
        assertEquals(0, again.exitCode(), "a second plan is empty: " + again.all());
    }

    @Test
    @Order(3)
    void destroyRemovesTheFilesItPlacedOnTheHostAndForgetsIt() {
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec("named.yaml"), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        Cli.Run facts = Cli.run("facts", "-i", INV, "-f", spec("named.yaml"));
        assertEquals(0, facts.exitCode(), facts.all());
        assertTrue(facts.out().contains("h4 (" + Testbed.address(4) + ")  client files only, runs no member")
                && facts.out().contains("kube-apiserver-etcd-client.key 600 root:root"), facts.out());

        Cli.Run destroy = Cli.run("destroy", "-i", INV, "-f", spec("named.yaml"), "--yes");
        assertEquals(0, destroy.exitCode(), destroy.all());
        assertTrue(destroy.out().contains("remove " + PKI + "kube-apiserver-etcd-client.key, " + PKI
                + "kube-apiserver-etcd-client.crt, " + PKI + "ca.crt (client files; runs no member)"), destroy.out());
        assertEquals("", Testbed.ssh(4, "ls -A /etc/etcd/pki").strip(), "h4 holds no client file after destroy");
        assertEquals(0, Testbed.sshStatus(4, "test -d /etc/etcd/pki"), "only files are removed, never a directory");
        // Struck off the record and nothing left: a second destroy has nothing to do on any host.
        Cli.Run again = Cli.run("destroy", "-i", INV, "-f", spec("named.yaml"), "--yes");
        assertEquals(0, again.exitCode(), again.all());
        assertTrue(again.out().contains("Nothing to destroy"), again.out());
    }
}
