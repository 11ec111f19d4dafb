package io.etcdwright.cli;

import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.lock.LockHolder;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.restore.WriteFence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code status -o openmetrics}: a document Prometheus' checker accepts, that ends in # EOF, holds
 * what no single host sees (members against the spec, the leader, the cluster version, databases
 * against the quota, alarms without etcdwright's write fence, the newest backup, the lock's holder),
 * and whose every name is in docs/monitoring.md.
 */
class StatusMetricsTest {
    static final Instant NOW = Instant.parse("2026-11-24T20:00:00Z");

    static StatusCommand.Report report(boolean withBackupsAndLock) throws Exception {
        DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                PlannerScenarios.DIR.resolve("three.yaml"));
        MemberStatus leader = StatusOutputTest.LEADER;
        MemberStatus follower = StatusOutputTest.member("h2", false, false, 1000, 1000);
        ClusterStatus status = new ClusterStatus(List.of(leader, follower), Optional.of("c1"), true);
        List<Map<String, Object>> rows = List.of(StatusCommand.row(leader, status, OptionalLong.of(300)),
                StatusCommand.row(follower, status, OptionalLong.of(300)));
        List<Map<String, Object>> alarms = StatusCommand.alarmRows(List.of(new MemberFacts.Alarm(follower.id(), "NOSPACE"),
                new MemberFacts.Alarm(Long.toHexString(WriteFence.MEMBER_ID), "NOSPACE")), status);
        Optional<Map<String, Object>> backups = Optional.empty();
        Optional<ClusterLock.Held> lock = Optional.empty();
        if (withBackupsAndLock) {
            String success = Base64.getEncoder().encodeToString(("{\"result\":\"success\",\"time\":\"2026-11-24T19:49:00Z\","
                    + "\"member\":\"h1\",\"message\":\"ok\",\"name\":\"2026-11-24T19:49:00Z-000001\",\"objectSize\":10}")
                    .getBytes(StandardCharsets.UTF_8));
            ScheduleHostFacts ran = ScheduleHostFacts.PROBE.parse("probed=1\ntimer_UnitFileState=enabled\ntimer_ActiveState=active\n"
                    + "last-success=" + success + "\nfailed_runs=1\n");
            backups = Optional.of(BackupStatus.document(new BackupPolicy.Schedule(5, "offsite", Optional.empty()), List.of(ran),
                    List.of(), NOW));
            LockHolder holder = new LockHolder("ops", "ws \"1\"", 42, "apply", Instant.parse("2026-11-24T19:58:00Z"), "SECRET-TOKEN");
            lock = Optional.of(new ClusterLock.Held(ClusterLock.key("scn"), holder.toJson(), Optional.of(holder), 7, 9));
        }
        return new StatusCommand.Report(desired, status, false, Optional.of("3.5.0"), rows, alarms, backups, Optional.empty(),
                Optional.empty(), lock);
    }

    @Test
    void theDocumentIsOpenMetricsThatPromtoolAccepts(@TempDir Path dir) throws Exception {
        for (boolean full : List.of(true, false)) {
            String text = StatusMetrics.openMetrics(report(full), NOW);
            assertTrue(text.endsWith("\n# EOF\n"), text);
            Promtool.checkMetrics(dir, text);
            // Every family: TYPE, then HELP, before its samples; units in the name.
            Matcher unit = Pattern.compile("(?m)^# UNIT (\\S+) (\\S+)$").matcher(text);
            while (unit.find()) {
                assertTrue(unit.group(1).endsWith("_" + unit.group(2)), unit.group());
            }
        }
    }

    @Test
    void itSaysWhatNoSingleHostSees() throws Exception {
        String text = StatusMetrics.openMetrics(report(true), NOW);
        assertTrue(text.contains("etcdwright_cluster_members{cluster=\"scn\"} 3\n"), text);
        assertTrue(text.contains("etcdwright_cluster_members_healthy{cluster=\"scn\"} 2\n"), text);
        assertTrue(text.contains("etcdwright_cluster_healthy{cluster=\"scn\"} 0\n"), text);
        // h3 is a member of the spec that did not answer at all: down, not missing.
        assertTrue(text.contains("etcdwright_member_healthy{cluster=\"scn\",member=\"h3\"} 0\n"), text);
        assertTrue(text.contains("etcdwright_member_leader{cluster=\"scn\",member=\"h1\"} 1\n"), text);
        assertTrue(text.contains("etcdwright_member_leader{cluster=\"scn\",member=\"h2\"} 0\n"), text);
        assertTrue(text.contains("etcdwright_cluster_version_info{cluster=\"scn\",version=\"3.5.0\"} 1\n"), text);
        assertTrue(text.contains("etcdwright_member_db_size_bytes{cluster=\"scn\",member=\"h1\"} 20480\n"), text);
        assertTrue(text.contains("etcdwright_cluster_quota_backend_bytes{cluster=\"scn\"} 2147483648\n"), text);
        assertTrue(text.contains("etcdwright_cluster_alarm{cluster=\"scn\",alarm=\"NOSPACE\",member=\"h2\"} 1\n"), text);
        assertEquals(1, text.lines().filter(l -> l.startsWith("etcdwright_cluster_alarm{")).count(), "the write fence is no alarm");
        assertTrue(text.contains("etcdwright_cluster_newest_backup_timestamp_seconds{cluster=\"scn\"} "
                + Instant.parse("2026-11-24T19:49:00Z").getEpochSecond() + "\n"), text);
        assertTrue(text.contains("etcdwright_cluster_newest_backup_age_seconds{cluster=\"scn\"} 660\n"), text);
        assertTrue(text.contains("etcdwright_cluster_backup_stale{cluster=\"scn\"} 1\n"), text);
        assertTrue(text.contains("etcdwright_cluster_lock_held{cluster=\"scn\"} 1\n"), text);
        assertTrue(text.contains("etcdwright_cluster_lock_holder_info{cluster=\"scn\",holder=\"ops@ws \\\"1\\\"\",command=\"apply\"} 1\n"),
                text);
        assertFalse(text.contains("SECRET-TOKEN"), "the holder's token is never shown");
        assertTrue(text.contains("etcdwright_cluster_status_timestamp_seconds{cluster=\"scn\"} " + NOW.getEpochSecond() + "\n"), text);
    }

    @Test
    void everyNameIsInTheMonitoringDoc() throws Exception {
        String doc = Files.readString(AlertRulesTest.DOC);
        String text = StatusMetrics.openMetrics(report(true), NOW);
        Matcher type = Pattern.compile("(?m)^# TYPE (\\S+) gauge$").matcher(text);
        int n = 0;
        while (type.find()) {
            assertTrue(StatusMetrics.NAMES.contains(type.group(1)), type.group(1));
            n++;
        }
        assertEquals(StatusMetrics.NAMES.size(), n, "the full document holds every name");
        StatusMetrics.NAMES.forEach(name -> assertTrue(doc.contains("`" + name + "`"), name + " is not in docs/monitoring.md"));
    }
}
