package io.etcdwright.modules.teardown;

import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.engine.ssh.LocalHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

/** Teardown removes fixed paths of the layout; each reaches rm as one argument after "--". */
class TeardownCommandsTest {
    @Test
    void fixedPathsArriveAsSingleArgumentsAfterTheEndOfOptions(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        host.assertArrivesLiterally(TeardownPlanner.STOP_AND_REMOVE_UNIT, List.of(EtcdLayout.UNIT, EtcdLayout.UNIT_FILE));
        host.assertArrivesLiterally(TeardownPlanner.REMOVE_CONFIG, List.of("-rfv", "--", EtcdLayout.CONFIG_DIR));
        host.assertArrivesLiterally(TeardownPlanner.REMOVE_BINARIES, List.of("-rfv", "--", EtcdLayout.INSTALL_ROOT,
                "/usr/local/bin/etcd", "/usr/local/bin/etcdctl", "/usr/local/bin/etcdutl"));
    }
}
