package io.etcdwright.modules.service;

import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.engine.ssh.LocalHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The service commands carry no value but the unit's name, and that as an argument. */
class ServiceCommandsTest {
    @Test
    void theUnitNameIsTheOnlyArgumentAndArrivesWhole(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        host.assertArrivesLiterally(ServiceSteps.ENABLE, List.of(EtcdLayout.UNIT));
        host.assertArrivesLiterally(ServiceSteps.START, List.of(EtcdLayout.UNIT));
        host.assertArrivesLiterally(ServiceSteps.RESTART, List.of("restart", EtcdLayout.UNIT));
        assertEquals("systemctl restart etcd.service", ServiceSteps.RESTART.wire(false));
    }
}
