package io.etcdwright.modules.config;

import io.etcdwright.modules.EtcdLayout;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostSetupTest {
    @Test
    void aPreparedHostHasNoDifferences() {
        HostSetupFacts facts = HostSetupFacts.probe(EtcdLayout.DEFAULT).parse(
                "user=1\ndir=/etc/etcd 755 root root\ndir=/etc/etcd/pki 750 root etcd\ndir=/var/lib/etcd 700 etcd etcd\n");
        assertTrue(HostSetup.differences(facts, EtcdLayout.DEFAULT).isEmpty());
    }

    @Test
    void explainsEveryDifference() {
        HostSetupFacts facts = HostSetupFacts.probe(EtcdLayout.DEFAULT).parse(
                "dir=/etc/etcd 755 root root\ndir=/var/lib/etcd 755 root root\n");
        assertEquals(List.of("user etcd missing", "/etc/etcd/pki missing", "/var/lib/etcd is 755 root root, want 700 etcd etcd"),
                HostSetup.differences(facts, EtcdLayout.DEFAULT));
        assertEquals(Map.of("/etc/etcd", "755 root root", "/var/lib/etcd", "755 root root"), facts.dirs());
    }

    @Test
    void theSetupScriptIsValidShell() throws Exception {
        Process p = new ProcessBuilder("sh", "-n").start();
        p.getOutputStream().write(HostSetup.script(EtcdLayout.DEFAULT).getBytes());
        p.getOutputStream().close();
        assertEquals(0, p.waitFor());
    }
}
