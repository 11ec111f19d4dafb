package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.BackupStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** backup.conf is data: whatever a value holds, the script reads it back as it was, and runs none of it. */
class ScheduleConfigTest {
    static final String HOSTILE_PREFIX = "$(touch PWNED-1)/`touch PWNED-2`; touch PWNED-3 'q' \"dq\" \\ a=b $HOME */";
    static final String HOSTILE_BUCKET = "b$(touch PWNED-4)";

    static ScheduleTarget s3(String bucket, String prefix) {
        return new ScheduleTarget("c1", 3, new BackupPolicy.Schedule(15, "s3", Optional.empty()),
                new BackupStore.S3("s3", bucket, prefix, Optional.of("http://10.0.0.1:9000"), Optional.of("eu-west-1"), true),
                BackupPolicy.Retention.defaults(), Optional.of("AWS_ACCESS_KEY_ID=x\n".getBytes()), Optional.empty(),
                Optional.empty());
    }

    @Test
    void hostileValuesAreReadBackLiterallyAndNothingRuns(@TempDir Path dir) throws Exception {
        String conf = ScheduleConfig.conf(s3(HOSTILE_BUCKET, HOSTILE_PREFIX), new ScheduleConfig.Member("m1", "https://10.0.0.2:2379"));
        Files.writeString(dir.resolve("backup.conf"), conf);
        BackupScript.Result r = BackupScript.run(dir, """
                read_conf "$1/backup.conf" "${CONF_KEYS[@]}"
                printf '%s\\n' "$CONF_S3_PREFIX" "$CONF_S3_BUCKET" "$CONF_S3_REGION" "$CONF_ENDPOINT" "$CONF_MEMBER_COUNT"
                """, "", dir.toString());
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals(List.of(HOSTILE_PREFIX, HOSTILE_BUCKET, "eu-west-1", "https://10.0.0.2:2379", "3"),
                List.of(r.stdout().split("\n")));
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith("PWNED")), "nothing of a value ran");
        }
    }

    @Test
    void numbersAndTheStoreTypeAreCheckedBeforeUse(@TempDir Path dir) throws Exception {
        String conf = ScheduleConfig.conf(s3("b", "p/"), new ScheduleConfig.Member("m1", "https://10.0.0.2:2379"));
        Files.writeString(dir.resolve("good.conf"), conf);
        Files.writeString(dir.resolve("bad.conf"), conf.replace("DAILY_FOR_DAYS=730", "DAILY_FOR_DAYS=a[$(touch PWNED-7)]"));
        Files.writeString(dir.resolve("type.conf"), conf.replace("STORE_TYPE=s3", "STORE_TYPE=/tmp/x"));
        BackupScript.Result r = BackupScript.run(dir, """
                read_conf "$1/good.conf" "${CONF_KEYS[@]}"; check_conf && echo good
                read_conf "$1/bad.conf" "${CONF_KEYS[@]}"; check_conf || echo bad-refused
                read_conf "$1/type.conf" "${CONF_KEYS[@]}"; check_conf || echo type-refused
                """, "", dir.toString());
        assertEquals(List.of("good", "bad-refused", "type-refused"), List.of(r.stdout().split("\n")), r.stderr());
        assertTrue(r.stderr().contains("DAILY_FOR_DAYS must be a number"), r.stderr());
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith("PWNED")));
        }
    }

    @Test
    void aValueWithALineBreakIsRefusedNotWritten() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScheduleConfig.checkStore(s3("bucket", "prefix/\nSTORE_TYPE=directory").store()));
        assertTrue(e.getMessage().contains("prefix of store s3"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ScheduleConfig.conf(s3("b\r", "p/"),
                new ScheduleConfig.Member("m1", "https://10.0.0.2:2379")));
    }

    @Test
    void credentialsAreReadAsDataEvenWithQuotesAndExport(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("credentials"), """
                # a comment
                export AWS_ACCESS_KEY_ID="AKIA$(touch PWNED-5)"
                AWS_SECRET_ACCESS_KEY=se=cret`touch PWNED-6`
                AWS_SESSION_TOKEN='tok'
                """);
        BackupScript.Result r = BackupScript.run(dir, """
                read_credentials "$1/credentials"
                printf '%s\\n' "$S3_ID" "$S3_SECRET" "$S3_TOKEN"
                """, "", dir.toString());
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals(List.of("AKIA$(touch PWNED-5)", "se=cret`touch PWNED-6`", "tok"), List.of(r.stdout().split("\n")));
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith("PWNED")));
        }
    }

    /**
     * The ticks fall at the same times of every UTC day, and a tick missed while the host was off is
     * taken when the timer starts again at boot (Persistent=true, which only calendar timers have).
     */
    @Test
    void theTimerTicksAtFixedTimesOfTheDayAndCatchesUpATickMissedWhileTheHostWasOff() {
        String timer = ScheduleConfig.timer(s3("b", "p/"));
        assertTrue(timer.contains("[Timer]\nOnCalendar=*-*-* *:00/15:00 UTC\nPersistent=true\n"), timer);
        assertFalse(timer.contains("OnUnitActiveSec") || timer.contains("OnActiveSec"), timer);
        assertEquals(List.of("*-*-* *:00/1:00 UTC"), ScheduleConfig.calendars(1));
        assertEquals(List.of("*-*-* 00/2:00:00 UTC"), ScheduleConfig.calendars(120));
        assertEquals(List.of("*-*-* 00/3:00:00 UTC", "*-*-* 00/3:45:00 UTC", "*-*-* 01/3:30:00 UTC", "*-*-* 02/3:15:00 UTC"),
                ScheduleConfig.calendars(45));
        assertEquals(List.of("*-*-* 00:00:00 UTC"), ScheduleConfig.calendars(1440));
        assertEquals(List.of("Mon *-*-* 00:00:00 UTC"), ScheduleConfig.calendars(10080));
        assertEquals(List.of("*-*-* 00/1:00:00 UTC"), ScheduleConfig.calendars(60));
        // Every interval that divides a day: its calendars give exactly the day's ticks, evenly spaced,
        // and systemd's own parser takes each (it refused "*:00/60", which this test's reading took).
        List<String> all = new java.util.ArrayList<>(ScheduleConfig.calendars(10080));
        for (int m = 1; m <= 1440; m++) {
            if (1440 % m == 0) {
                all.addAll(ScheduleConfig.calendars(m));
            }
        }
        assertSystemdParses(all);
        for (int m = 1; m <= 1440; m++) {
            if (1440 % m != 0) {
                assertFalse(ScheduleConfig.fitsTheCalendar(m), "" + m);
                continue;
            }
            java.util.Set<Integer> ticks = new java.util.TreeSet<>();
            for (String c : ScheduleConfig.calendars(m)) {
                java.util.regex.Matcher t = java.util.regex.Pattern.compile("\\*-\\*-\\* (\\*|\\d+)(?:/(\\d+))?:(\\d+)(?:/(\\d+))?:00 UTC")
                        .matcher(c);
                assertTrue(t.matches(), c);
                List<Integer> hours = expand(t.group(1), t.group(2), 24);
                List<Integer> minutes = expand(t.group(3), t.group(4), 60);
                hours.forEach(h -> minutes.forEach(mm -> ticks.add(h * 60 + mm)));
            }
            java.util.Set<Integer> expected = new java.util.TreeSet<>();
            for (int t = 0; t < 1440; t += m) {
                expected.add(t);
            }
            assertEquals(expected, ticks, "every " + m + " min");
        }
        assertThrows(IllegalArgumentException.class, () -> ScheduleConfig.calendars(7));
    }

    /** systemd-analyze calendar (the parser the hosts' systemd uses) accepts every one of {@code calendars}. */
    private static void assertSystemdParses(List<String> calendars) {
        try {
            List<String> command = new java.util.ArrayList<>(List.of("systemd-analyze", "calendar"));
            command.addAll(calendars);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), out);
        } catch (java.io.IOException e) {
            throw new AssertionError("systemd-analyze (Debian's systemd package) is needed to check the timers' calendars", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A calendar field: "*", "N" or "N/STEP" below {@code limit}. */
    private static List<Integer> expand(String start, String step, int limit) {
        List<Integer> values = new java.util.ArrayList<>();
        int first = start.equals("*") ? 0 : Integer.parseInt(start);
        int by = step == null ? (start.equals("*") ? 1 : limit) : Integer.parseInt(step);
        for (int v = first; v < limit; v += by) {
            values.add(v);
        }
        return values;
    }

    @Test
    void theServiceRunsTheScriptOnItsConfiguration() {
        String timer = ScheduleConfig.timer(s3("b", "p/"));
        assertTrue(timer.contains("WantedBy=timers.target"), timer);
        String service = ScheduleConfig.service(s3("b", "p/"));
        assertTrue(service.contains("Type=oneshot\nExecStart=/usr/local/lib/etcdwright/etcd-backup /etc/etcdwright/backup\n"), service);
    }
}
