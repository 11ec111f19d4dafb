package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.spec.EtcdSettings;
import io.etcdwright.engine.spec.Ports;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.engine.ssh.LocalHost;
import io.etcdwright.engine.ssh.RemoteCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiskFactsTest {
    private static final Probe<DiskFacts> PROBE = DiskFacts.probe(new EtcdLayout("/var/lib/etcd; rm -rf /", 2379, 2380));

    @Test
    void theDataDirectoryIsAnArgumentNeverPartOfTheScript() {
        assertEquals(List.of("/var/lib/etcd; rm -rf /"), PROBE.arguments());
        assertFalse(PROBE.script().contains("/var/lib/etcd"));
    }

    @Test
    void measuresBesideTheDataDirectoryAndLeavesNothingBehind(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        Path parent = Files.createDirectories(dir.resolve("var lib $(touch pwned-disk)"));
        Path data = Files.createDirectories(parent.resolve("etcd"));
        Files.writeString(data.resolve("db"), "x");
        for (Path dataDir : List.of(data, parent.resolve("not-yet"))) {
            Probe<DiskFacts> probe = DiskFacts.probe(new EtcdLayout(dataDir.toString(), 2379, 2380));
            LocalHost.Run run = host.run(new RemoteCommand.Script(probe.script(), probe.arguments()), new byte[0], false);
            DiskFacts facts = probe.parse(run.stdout());
            assertTrue(facts.totalBytes().orElse(0) > 0 && facts.freeBytes().isPresent(), run.stdout() + run.stderr());
            assertTrue(facts.fsyncMicros().isPresent(), run.stdout() + run.stderr());
            // The probe file went beside the data directory, and is gone; nothing was written inside it.
            try (var left = Files.list(parent)) {
                assertEquals(List.of("etcd"), left.map(f -> f.getFileName().toString()).toList(), run.stdout());
            }
            try (var inside = Files.list(data)) {
                assertEquals(List.of("db"), inside.map(f -> f.getFileName().toString()).toList());
            }
        }
        host.assertNoMarkers();
    }

    @Test
    void readsSizesAndTheMeanSynchronousWrite() {
        DiskFacts f = PROBE.parse("total_bytes=1000\nfree_bytes=50\nfsync_total_ns=" + (DiskFacts.WRITES * 12_000_000L) + "\n");
        assertEquals(OptionalLong.of(1000), f.totalBytes());
        assertEquals(OptionalLong.of(50), f.freeBytes());
        assertEquals(OptionalLong.of(12_000), f.fsyncMicros());
        assertEquals(OptionalLong.of(5), f.freePercent());
        // Not measured (a read-only file system, facts recorded before the probe): nothing known, nothing warned.
        DiskFacts none = PROBE.parse("");
        assertEquals(DiskFacts.UNKNOWN, none);
        assertTrue(none.freePercent().isEmpty());
    }

    @Test
    void theQuotaIsTheSpecsOrEtcdsDefault() {
        assertEquals(16L << 20, MaintenanceChecks.quotaBytes(settings(Map.of("quota-backend-bytes", 16L << 20))));
        assertEquals(2L << 30, MaintenanceChecks.quotaBytes(settings(Map.of())));
        assertEquals(2L << 30, MaintenanceChecks.quotaBytes(settings(Map.of("quota-backend-bytes", 0))));
    }

    private static EtcdSettings settings(Map<String, Object> settings) {
        return new EtcdSettings("3.5.16", new Ports(2379, 2380, java.util.OptionalInt.empty()), EtcdSettings.DEFAULT_DATA_DIR, settings);
    }
}
