package io.etcdwright.modules.restore;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RestoreToolTest {
    static RestoreTool of(String v) {
        return RestoreTool.of(Version.parse(v), VersionCatalogue.builtIn()).orElseThrow();
    }

    @Test
    void eachMinorRestoresWithItsOwnToolAndBumpsOnlyFromThePatchThatCan() {
        assertEquals("etcdutl", of("3.5.16").tool());
        assertTrue(of("3.5.16").bumpsRevision());
        assertFalse(of("3.5.9").bumpsRevision());
        assertEquals("etcdctl", of("3.4.23").tool());
        assertFalse(of("3.4.23").bumpsRevision());
        assertTrue(of("3.4.27").bumpsRevision());
        // 3.6 removed etcdctl's snapshot restore and status: etcdutl, and it bumps from the first patch.
        assertEquals("etcdutl", of("3.6.0").tool());
        assertTrue(of("3.6.0").bumpsRevision());
        assertEquals("etcdutl", of("3.7.3").tool());
        assertEquals(List.of("/opt/etcd/v3.7.3/etcdutl", "snapshot", "status", "-w", "json", "/s.db"),
                ((RemoteCommand.Exec) of("3.7.3").status("/s.db")).argv());
        assertTrue(RestoreTool.of(Version.parse("3.8.0"), VersionCatalogue.builtIn()).isEmpty());
    }

    @Test
    void theRestoreCommandIsAnArgumentList() {
        RestoreTool.Restore r = new RestoreTool.Restore("/s.db", "h1", "https://10.0.0.1:2380", "h1=https://10.0.0.1:2380",
                "t-1", "/var/lib/etcd.restoring", false);
        assertEquals(List.of("/opt/etcd/v3.5.16/etcdutl", "snapshot", "restore", "/s.db", "--name", "h1", "--data-dir",
                "/var/lib/etcd.restoring", "--initial-cluster", "h1=https://10.0.0.1:2380", "--initial-cluster-token", "t-1",
                "--initial-advertise-peer-urls", "https://10.0.0.1:2380", "--bump-revision", "1000000000", "--mark-compacted"),
                ((RemoteCommand.Exec) of("3.5.16").restore(r)).argv());
        List<String> v34 = of("3.4.23").restore(new RestoreTool.Restore("/s.db", "h1", "u", "c", "t", "/d", true)).argv();
        assertEquals(List.of("env", "ETCDCTL_API=3", "/opt/etcd/v3.4.23/etcdctl"), v34.subList(0, 3));
        assertTrue(v34.contains("--skip-hash-check"));
        assertFalse(v34.contains("--bump-revision"));
    }

    @Test
    void statusOutputIsRead() {
        assertEquals(new RestoreSteps.Status(6, 13),
                RestoreSteps.parseStatus("{\"hash\":1512397175,\"revision\":6,\"totalKey\":13,\"totalSize\":20480}"));
    }
}
