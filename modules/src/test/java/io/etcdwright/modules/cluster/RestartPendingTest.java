package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.service.ServiceFacts;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Files etcd reads only at start, written after it started: what an interrupted apply leaves behind. */
class RestartPendingTest {
    static final long STARTED = 1_000_000;

    static FileState file(String path, long modifiedMicros) {
        return new FileState(path, true, "digest", "644", "root", "root", modifiedMicros, Optional.empty());
    }

    static EtcdHostFacts running(long startedMicros, FileState... files) {
        Map<String, FileState> byPath = new java.util.LinkedHashMap<>();
        for (FileState f : files) {
            byPath.put(f.path(), f);
        }
        return new EtcdHostFacts("h1", new SystemFacts("h1", "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), byPath, new ServiceFacts("active", true, 0, true, startedMicros, false),
                new MemberFacts(true, true, 100, 1000, Optional.empty()));
    }

    @Test
    void filesOlderThanTheProcessNeedNoRestart() {
        assertEquals(List.of(), RestartPending.causes(running(STARTED, file(EtcdLayout.CONFIG_FILE, STARTED - 1),
                file(EtcdLayout.UNIT_FILE, STARTED - 1), file(HostCertificates.certPath(HostCertificates.SERVER), STARTED - 1))));
    }

    @Test
    void eachFileWrittenAfterTheStartIsACause() {
        // The peer key is not a cause: etcd loads its certificate and key again at each new handshake.
        assertEquals(List.of("config written after etcd started", "unit written after etcd started",
                        "CA certificate replaced after etcd started"),
                RestartPending.causes(running(STARTED, file(EtcdLayout.CONFIG_FILE, STARTED + 1),
                        file(EtcdLayout.UNIT_FILE, STARTED + 5), file(HostCertificates.keyPath(HostCertificates.PEER), STARTED + 1),
                        file(HostCertificates.certPath(HostCertificates.CA), STARTED + 1))));
    }

    @Test
    void withoutAKnownStartTimeNothingIsGuessed() {
        assertEquals(List.of(), RestartPending.causes(running(0, file(EtcdLayout.CONFIG_FILE, STARTED))));
    }
}
