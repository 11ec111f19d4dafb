package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.modules.pki.HostCertificates;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FactsViewClientHostTest {
    @Test
    void aClientHostShowsTheFilesItHoldsWithModeAndOwnerAndNoneWhenEmpty() {
        String ca = HostCertificates.certPath(HostCertificates.CA);
        String key = HostCertificates.keyPath(HostCertificates.APISERVER);
        Map<String, FileState> files = new LinkedHashMap<>();
        files.put(ca, new FileState(ca, true, "ab", "644", "root", "root", 1, Optional.of("PEM")));
        files.put(key, new FileState(key, true, "cd", "600", "root", "root", 1, Optional.empty()));
        files.put(HostCertificates.certPath(HostCertificates.ADMIN), FileState.missing(HostCertificates.certPath(HostCertificates.ADMIN)));
        assertEquals("h4 (10.0.0.4)  client files only, runs no member\n"
                        + "  file     ca.crt 644 root:root\n"
                        + "  file     kube-apiserver-etcd-client.key 600 root:root\n",
                FactsView.clientHostText("h4", "10.0.0.4", files));
        assertEquals("h4 (10.0.0.4)  client files only, runs no member\n  files    none\n",
                FactsView.clientHostText("h4", "10.0.0.4", Map.of(ca, FileState.missing(ca))));
    }
}
