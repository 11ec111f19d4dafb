package io.etcdwright.modules.backup.schedule;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a run leaves: its record, the failure count, and never a backup that looks complete after a failure. */
class ScriptRunRecordTest {
    @Test
    void aFailedRunRemovesWhatItUploadedAndIsCounted(@TempDir Path dir) throws Exception {
        Path store = Files.createDirectories(dir.resolve("store/2026-11-24T20:15:03Z-000001"));
        Files.writeString(store.resolve("etcd.backup.gz"), "data");
        Files.writeString(store.resolve("_etcd_backup.meta"), "{}");
        Files.createDirectories(dir.resolve("state"));
        BackupScript.Result r = BackupScript.run(dir, """
                STATE_DIR=$1/state CONF_STORE_TYPE=directory CONF_STORE_PATH=$1/store CONF_MEMBER=m1
                WORK=$(mktemp -d)
                NAME=2026-11-24T20:15:03Z-000001
                UPLOADED=("$NAME/etcd.backup.gz" "$NAME/_etcd_backup.meta")
                STAGE="uploading the meta files of $NAME"
                trap on_exit EXIT
                false
                """, "", dir.toString());
        assertEquals(1, r.exitCode());
        assertTrue(r.stderr().contains("FAILED while uploading the meta files of 2026-11-24T20:15:03Z-000001"), r.stderr());
        assertFalse(Files.exists(store), "nothing of the failed run is left");
        assertEquals("1\n", Files.readString(dir.resolve("state/failed-runs")));
        String record = Files.readString(dir.resolve("state/last-run.json"));
        assertTrue(record.startsWith("{\"result\":\"failed\""), record);
        assertTrue(record.contains("\"message\":\"failed while uploading the meta files of 2026-11-24T20:15:03Z-000001\""), record);
    }

    @Test
    void failuresCountUntilARunDoesItsPartThenStartAgain(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("state"));
        BackupScript.Result r = BackupScript.run(dir, """
                STATE_DIR=$1/state CONF_MEMBER='m"1'
                write_status failed "x"; write_status failed "y"; cat "$STATE_DIR/failed-runs"
                write_status not-leader "member m1 did not lead"; cat "$STATE_DIR/failed-runs"
                write_status failed "z"; write_status success "backup b written" b 10; cat "$STATE_DIR/failed-runs"
                cat "$STATE_DIR/last-success.json"
                """, "", dir.toString());
        assertEquals(0, r.exitCode(), r.stderr());
        String[] lines = r.stdout().split("\n");
        assertEquals("2", lines[0]);
        assertEquals("0", lines[1]);
        assertEquals("0", lines[2]);
        assertTrue(lines[3].contains("\"member\":\"m\\\"1\""), "JSON-escaped: " + lines[3]);
        assertTrue(lines[3].contains("\"name\":\"b\",\"objectSize\":10}"), lines[3]);
    }
}
