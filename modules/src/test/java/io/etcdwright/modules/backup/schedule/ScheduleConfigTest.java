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

    @Test
    void theTimerTicksEveryIntervalFromWhenItStarts() {
        String timer = ScheduleConfig.timer(s3("b", "p/"));
        assertTrue(timer.contains("OnActiveSec=15min\nOnUnitActiveSec=15min\n"), timer);
        assertTrue(timer.contains("WantedBy=timers.target"), timer);
        String service = ScheduleConfig.service(s3("b", "p/"));
        assertTrue(service.contains("Type=oneshot\nExecStart=/usr/local/lib/etcdwright/etcd-backup /etc/etcdwright/backup\n"), service);
    }
}
