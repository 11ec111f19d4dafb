package io.etcdwright.rollout;

import io.etcdwright.modules.backup.BackupName;
import io.etcdwright.modules.backup.BackupsSeen;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackupFreshnessTest {
    static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
    static final Duration DAY = Duration.ofHours(24);

    static BackupsSeen.StoreAnswer newest(String store, Duration ago) {
        return new BackupsSeen.StoreAnswer.Newest(store, BackupName.of(NOW.minus(ago), 0), OptionalLong.of(42));
    }

    @Test
    void aBackupWithinTheBoundPassesInAnyStore() {
        BackupsSeen seen = new BackupsSeen.Looked(List.of(newest("s3", Duration.ofHours(30)), newest("local", Duration.ofHours(3))));
        assertEquals(List.of(), BackupFreshness.problems(seen, DAY, NOW));
    }

    @Test
    void anOldNewestBackupIsRefusedWithItsAgeAndStore() {
        BackupsSeen seen = new BackupsSeen.Looked(List.of(newest("s3", Duration.ofHours(30)),
                new BackupsSeen.StoreAnswer.Unreachable("sftp", "connection refused")));
        List<String> problems = BackupFreshness.problems(seen, DAY, NOW);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("in s3, is 30 h old, more than --backup-within 24 h; not asked: sftp (connection refused)"),
                problems.get(0));
    }

    @Test
    void noBackupAtAllIsRefusedAndASpecWithoutStoresHasNothingToCheck() {
        List<String> none = BackupFreshness.problems(new BackupsSeen.Looked(List.of(new BackupsSeen.StoreAnswer.Empty("s3"))), DAY, NOW);
        assertTrue(none.get(0).startsWith("no complete backup in its stores"), none.toString());
        assertEquals(List.of(), BackupFreshness.problems(new BackupsSeen.NoStores(), DAY, NOW));
    }
}
