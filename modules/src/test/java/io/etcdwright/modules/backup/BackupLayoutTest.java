package io.etcdwright.modules.backup;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackupLayoutTest {
    private static final Instant T = Instant.parse("2026-11-24T20:15:03Z");

    @Test
    void namesAreEtcdManagersTimeAndSixDigitSequence() {
        assertEquals("2026-11-24T20:15:03Z-000001", BackupName.of(T.plusMillis(999), 1).toString());
        assertEquals("2026-11-24T20:15:03Z-123456", BackupName.of(T, 123456).toString());
        assertEquals("2026-01-02T03:04:05Z-000000", BackupName.of(Instant.parse("2026-01-02T03:04:05Z"), 0).toString());
        assertThrows(IllegalArgumentException.class, () -> BackupName.of(T, 1_000_000));
    }

    /** The cases of etcd-manager's own parse_test.go (backupcontroller), answered the same way. */
    @Test
    void parsesNamesAsEtcdManagerDoes() {
        BackupName n = BackupName.parse("2018-02-20T04:47:55Z-000002").orElseThrow();
        assertEquals(Instant.parse("2018-02-20T04:47:55Z"), n.time());
        assertEquals("000002", n.suffix());
        assertEquals(2, n.sequence());
        assertEquals(Optional.empty(), BackupName.parse(""));
        assertEquals(Optional.empty(), BackupName.parse("2018"));
        assertEquals(Optional.empty(), BackupName.parse("Z-"));
        assertEquals(new BackupName(Instant.parse("2018-02-20T04:47:55Z"), ""), BackupName.parse("2018-02-20T04:47:55Z").orElseThrow());
        assertEquals(new BackupName(Instant.parse("2018-02-20T04:47:55Z"), ""), BackupName.parse("2018-02-20T04:47:55Z-").orElseThrow());
        assertEquals(-1, BackupName.parse("2018-02-20T04:47:55Z-").orElseThrow().sequence());
        assertEquals(Optional.empty(), BackupName.parse("control"));
    }

    @Test
    void theNextNameFollowsTheHighestSequenceInTheStore() {
        assertEquals("2026-11-24T20:15:03Z-000001", BackupLayout.nextName(T, List.of()).toString());
        List<BackupName> existing = List.of(BackupName.of(T.minusSeconds(60), 7), BackupName.of(T.minusSeconds(30), 3),
                BackupName.parse("2026-11-24T20:00:00Z").orElseThrow());
        assertEquals("2026-11-24T20:15:03Z-000008", BackupLayout.nextName(T, existing).toString());
        assertEquals("2026-11-24T20:15:03Z-000000", BackupLayout.nextName(T, List.of(BackupName.of(T, 999_999))).toString());
    }

    /** A meta etcd-manager wrote (jsonpb, two-space indent, int64 quoted, no final newline), verbatim. */
    static final String ETCD_MANAGER_META = "{\n"
            + "  \"etcdVersion\": \"3.5.16\",\n"
            + "  \"timestamp\": \"1795637703\",\n"
            + "  \"clusterSpec\": {\n"
            + "    \"memberCount\": 3,\n"
            + "    \"etcdVersion\": \"3.5.16\"\n"
            + "  }\n"
            + "}";

    @Test
    void etcdManagersMetaIsReadAndWrittenByteForByte() throws IOException {
        EtcdManagerMeta meta = EtcdManagerMeta.parse("sample", ETCD_MANAGER_META.getBytes(StandardCharsets.UTF_8));
        assertEquals("3.5.16", meta.etcdVersion());
        assertEquals(Instant.ofEpochSecond(1795637703L), meta.timestamp());
        assertEquals(new EtcdClusterSpec(3, "3.5.16"), meta.clusterSpec().orElseThrow());
        assertEquals(ETCD_MANAGER_META, meta.toJson());
        assertArrayEquals(ETCD_MANAGER_META.getBytes(StandardCharsets.UTF_8), meta.toBytes());
    }

    @Test
    void jsonpbVariantsAreAcceptedAndZeroFieldsLeftOut() throws IOException {
        // jsonpb reads proto names and unquoted int64 too.
        EtcdManagerMeta meta = EtcdManagerMeta.parse("variant",
                "{\"etcd_version\":\"3.4.23\",\"timestamp\":1700000000,\"cluster_spec\":{\"member_count\":5}}".getBytes(StandardCharsets.UTF_8));
        assertEquals(new EtcdManagerMeta("3.4.23", Instant.ofEpochSecond(1700000000L), Optional.of(new EtcdClusterSpec(5, ""))), meta);
        assertEquals("{\n  \"etcdVersion\": \"3.4.23\",\n  \"timestamp\": \"1700000000\",\n  \"clusterSpec\": {\n    \"memberCount\": 5\n  }\n}",
                meta.toJson());
        assertEquals("{}", new EtcdManagerMeta("", Instant.EPOCH, Optional.empty()).toJson());
        IOException e = assertThrows(IOException.class, () -> EtcdManagerMeta.parse("s3://b/x/_etcd_backup.meta",
                "{\"timestamp\":\"soon\"}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("s3://b/x/_etcd_backup.meta: timestamp is not an integer"), e.getMessage());
    }

    @Test
    void controlFilesAreEtcdManagers() throws IOException {
        assertEquals("{\n  \"memberCount\": 3,\n  \"etcdVersion\": \"3.5.16\"\n}", new EtcdClusterSpec(3, "3.5.16").toJson());
        assertEquals(new EtcdClusterSpec(3, "3.5.16"),
                EtcdClusterSpec.parse("spec", "{\n  \"memberCount\": 3,\n  \"etcdVersion\": \"3.5.16\"\n}".getBytes(StandardCharsets.UTF_8)));
        Instant created = Instant.ofEpochSecond(1795637703L, 123456789);
        assertEquals("{\"timestamp\":1795637703123456789}", new String(new ClusterCreatedMarker(created).toBytes(), StandardCharsets.UTF_8));
        assertEquals(created, ClusterCreatedMarker.parse("m", "{\"timestamp\":1795637703123456789}".getBytes(StandardCharsets.UTF_8)).createdAt());
        assertEquals("control/etcd-cluster-spec", BackupLayout.CLUSTER_SPEC);
        assertEquals("control/etcd-cluster-created", BackupLayout.CLUSTER_CREATED);
    }

    static EtcdwrightBackupMeta ours(boolean encrypted) {
        return new EtcdwrightBackupMeta(1, "prod", 4711, 120, 2_097_152, "ab".repeat(32), 40_000, encrypted,
                encrypted ? List.of("SHA256:fingerprint-of-ops-key") : List.of(), "3.5.16", 3,
                Instant.parse("2026-11-24T20:15:03Z"), "h2");
    }

    @Test
    void ourMetaRoundTripsAndRefusesWhatItCannotRead() throws IOException {
        for (boolean encrypted : new boolean[] {false, true}) {
            EtcdwrightBackupMeta m = ours(encrypted);
            assertEquals(m, EtcdwrightBackupMeta.parse("m", m.toBytes()));
        }
        String json = new String(ours(false).toBytes(), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"revision\" : 4711"), json);
        IOException newer = assertThrows(IOException.class, () -> EtcdwrightBackupMeta.parse("x/etcdwright-backup.json",
                json.replace("\"formatVersion\" : 1", "\"formatVersion\" : 2").getBytes(StandardCharsets.UTF_8)));
        assertTrue(newer.getMessage().contains("use a newer etcdwright"), newer.getMessage());
        IOException lacking = assertThrows(IOException.class, () -> EtcdwrightBackupMeta.parse("x/etcdwright-backup.json",
                json.replace("\"takenFrom\"", "\"other\"").getBytes(StandardCharsets.UTF_8)));
        assertTrue(lacking.getMessage().contains("lacks 'takenFrom'"), lacking.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new EtcdwrightBackupMeta(1, "p", 1, 1, 1, "ab".repeat(32), 1,
                true, List.of(), "3.5.16", 3, Instant.EPOCH, "h1"));
    }
}
