package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.spec.EtcdSettings;
import io.etcdwright.engine.spec.Ports;
import io.etcdwright.modules.EtcdLayout;
import org.junit.jupiter.api.Test;

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
        // The probe file goes beside the data directory and is removed; nothing inside it is written.
        assertTrue(PROBE.script().contains("mktemp -p \"$t\" .etcdwright-fsync.XXXXXX"), PROBE.script());
        assertTrue(PROBE.script().contains("rm -f -- \"$f\""), PROBE.script());
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
