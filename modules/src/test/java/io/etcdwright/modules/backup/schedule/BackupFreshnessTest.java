package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.Drift;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The drift rule: a newest backup older than two intervals, once the schedule had two intervals to make one. */
class BackupFreshnessTest {
    static final Instant NOW = Instant.parse("2026-11-24T20:00:00Z");
    static final long INSTALLED_LONG_AGO = Instant.parse("2026-11-24T10:00:00Z").getEpochSecond() * 1_000_000;

    static String record(String result, String time, String member, String message) {
        String json = "{\"result\":\"" + result + "\",\"time\":\"" + time + "\",\"member\":\"" + member + "\",\"message\":\""
                + message + "\",\"name\":\"" + time.replace("Z", "Z-000001") + "\",\"objectSize\":10}";
        return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    static EtcdHostFacts host(long timerWrittenMicros, String extra) {
        FileState timer = new FileState(ScheduleLayout.TIMER_FILE, true, "x", "644", "root", "root", timerWrittenMicros,
                Optional.empty());
        return ScheduleFixtures.facts(Map.of(ScheduleLayout.TIMER_FILE, timer), ScheduleFixtures.RUNNING_TIMER + extra);
    }

    static ScheduleTarget target(Path dir) throws Exception {
        return ScheduleTarget.resolve(ScheduleFixtures.desired(dir, BackupScheduleModuleTest.DIRECTORY)).target().orElseThrow();
    }

    @Test
    void aBackupWithinTwoIntervalsIsNoDrift(@TempDir Path dir) throws Exception {
        // interval 5 min: 9 min old is fine (a tick may be late), 11 min is drift
        EtcdHostFacts fresh = host(INSTALLED_LONG_AGO, "last-success=" + record("success", "2026-11-24T19:51:00Z", "h1", "ok") + "\n");
        assertEquals(List.of(), BackupFreshness.drift(target(dir), Map.of("h1", fresh), NOW));
        EtcdHostFacts old = host(INSTALLED_LONG_AGO, "last-success=" + record("success", "2026-11-24T19:49:00Z", "h1", "ok")
                + "\nlast-run=" + record("failed", "2026-11-24T19:59:00Z", "h1", "failed while uploading (HTTP 403 AccessDenied)")
                + "\nfailed_runs=2\n");
        List<Drift> drift = BackupFreshness.drift(target(dir), Map.of("h1", old), NOW);
        assertEquals(1, drift.size());
        assertEquals("backup-stale", drift.get(0).kind());
        assertEquals("the newest scheduled backup (2026-11-24T19:49:00Z-000001 from h1) is 11 min old, more than two"
                + " intervals (10 min); 2 runs failed since, the last on h1: failed while uploading (HTTP 403 AccessDenied)",
                drift.get(0).what());
    }

    @Test
    void theNewestAcrossMembersCounts(@TempDir Path dir) throws Exception {
        EtcdHostFacts oldLeader = host(INSTALLED_LONG_AGO, "last-success=" + record("success", "2026-11-24T12:00:00Z", "h1", "ok") + "\n");
        EtcdHostFacts newLeader = host(INSTALLED_LONG_AGO, "last-success=" + record("success", "2026-11-24T19:58:00Z", "h2", "ok") + "\n");
        assertEquals(List.of(), BackupFreshness.drift(target(dir), Map.of("h1", oldLeader, "h2", newLeader), NOW));
    }

    @Test
    void aScheduleJustInstalledHasTimeForItsFirstBackup(@TempDir Path dir) throws Exception {
        long justNow = NOW.minusSeconds(240).getEpochSecond() * 1_000_000;
        assertEquals(List.of(), BackupFreshness.drift(target(dir), Map.of("h1", host(justNow, "")), NOW));
        List<Drift> never = BackupFreshness.drift(target(dir), Map.of("h1", host(INSTALLED_LONG_AGO, "")), NOW);
        assertEquals(1, never.size());
        assertTrue(never.get(0).what().startsWith("no scheduled backup has been written yet"), never.get(0).what());
    }

    @Test
    void withoutTheTimerOrWithoutFactsThereIsNoDriftOnlySteps(@TempDir Path dir) throws Exception {
        EtcdHostFacts notInstalled = ScheduleFixtures.facts(Map.of(), "probed=1\n");
        assertEquals(List.of(), BackupFreshness.drift(target(dir), Map.of("h1", notInstalled), NOW));
        EtcdHostFacts recordedBefore = ScheduleFixtures.facts(Map.of(), "");
        assertEquals(List.of(), BackupFreshness.drift(target(dir), Map.of("h1", recordedBefore), NOW));
    }

    @Test
    void statusCallsStaleWhatDriftCallsStale() {
        ScheduleHostFacts f = ScheduleHostFacts.parse(ScheduleFixtures.RUNNING_TIMER + "last-success="
                + record("success", "2026-11-24T19:49:00Z", "h1", "ok") + "\n");
        assertTrue(BackupFreshness.of(List.of(f)).stale(5, NOW));
        assertEquals(false, BackupFreshness.of(List.of(f)).stale(6, NOW));
    }
}
