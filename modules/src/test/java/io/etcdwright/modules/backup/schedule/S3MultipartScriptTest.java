package io.etcdwright.modules.backup.schedule;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hosts' S3 uploads, with curl replaced by a function that records each request and answers
 * as S3 does: an object larger than a part goes up as a multipart upload, its parts cut from the
 * file in order, its query parameters sorted (SigV4 signs them so), the completion naming every
 * part's ETag; a part that fails aborts the upload, so no part is left to be paid for. (S3Proxy
 * proves the same against a real S3 API in BackupScheduleIT.)
 */
class S3MultipartScriptTest {
    /** A curl that logs "METHOD URL BYTES-SENT" and answers like S3; part 2 fails when FAIL_PART2 is set. */
    static final String FAKE_CURL = """
            curl() {
              local method=GET url out headers upload='' data=''
              while [ $# -gt 0 ]; do
                case $1 in
                  -K|-w) shift ;;
                  -o) out=$2; shift ;;
                  -D) headers=$2; shift ;;
                  -X) method=$2; shift ;;
                  -T) upload=$2; method=PUT; shift ;;
                  -H) shift ;;
                  --data-binary) data=${2#@}; shift ;;
                  -sS) ;;
                  *) url=$1 ;;
                esac
                shift
              done
              local sent=0
              [ -z "$upload" ] || sent=$(stat -c %s "$upload")
              [ -z "$data" ] || { sent=$(stat -c %s "$data"); cp "$data" "$LOG.complete"; }
              echo "$method ${url#http://s3.test/bkt/} $sent" >>"$LOG"
              : >"$out"
              [ -z "${headers:-}" ] || printf 'HTTP/1.1 200 OK\\r\\nETag: "etag-%s"\\r\\n\\r\\n' "$sent" >"$headers"
              case "$method $url" in
                *'?uploads=') printf '<InitiateMultipartUploadResult><UploadId>up+1/x</UploadId></InitiateMultipartUploadResult>' >"$out"; printf 200 ;;
                *partNumber=2*) if [ -n "${FAIL_PART2:-}" ]; then printf '<Error><Code>SlowDown</Code></Error>' >"$out"; printf 503; else printf 200; fi ;;
                *) printf 200 ;;
              esac
            }
            WORK=$(mktemp -d) LOG=$1/requests
            CONF_STORE_TYPE=s3 CONF_S3_ENDPOINT=http://s3.test CONF_S3_REGION=r CONF_S3_BUCKET=bkt CONF_S3_PREFIX=c/
            CONF_S3_PATH_STYLE=true CONF_S3_PART_SIZE=5242880 STATE_DIR=$1/state CONF_MEMBER=m1
            """;

    @Test
    void anObjectLargerThanAPartGoesUpInPartsAndIsCompleted(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("state"));
        BackupScript.Result r = BackupScript.run(dir, FAKE_CURL + """
                head -c 12000000 /dev/zero >"$WORK/data"
                s3_put "$WORK/data" 2026-11-27T00:00:00Z-000001/etcd.backup.gz
                head -c 100 /dev/zero >"$WORK/meta"
                s3_put "$WORK/meta" 2026-11-27T00:00:00Z-000001/_etcd_backup.meta
                """, "", dir.toString());
        assertEquals(0, r.exitCode(), r.stderr());
        String key = "c/2026-11-27T00%3A00%3A00Z-000001/etcd.backup.gz";
        assertEquals(List.of("POST " + key + "?uploads= 0",
                "PUT " + key + "?partNumber=1&uploadId=up%2B1%2Fx 5242880",
                "PUT " + key + "?partNumber=2&uploadId=up%2B1%2Fx 5242880",
                "PUT " + key + "?partNumber=3&uploadId=up%2B1%2Fx 1514240",
                "POST " + key + "?uploadId=up%2B1%2Fx 249",
                "PUT c/2026-11-27T00%3A00%3A00Z-000001/_etcd_backup.meta 100"),
                Files.readAllLines(dir.resolve("requests")));
        assertEquals("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"etag-5242880\"</ETag></Part>"
                + "<Part><PartNumber>2</PartNumber><ETag>\"etag-5242880\"</ETag></Part>"
                + "<Part><PartNumber>3</PartNumber><ETag>\"etag-1514240\"</ETag></Part></CompleteMultipartUpload>",
                Files.readString(dir.resolve("requests.complete")));
        assertTrue(r.stderr().contains("uploaded 2026-11-27T00:00:00Z-000001/etcd.backup.gz in 3 parts of at most 5242880 bytes"),
                r.stderr());
    }

    @Test
    void aPartThatFailsAbortsTheUploadAndTheRunSaysWhy(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("state"));
        BackupScript.Result r = BackupScript.run(dir, FAKE_CURL + """
                FAIL_PART2=1 NAME=2026-11-27T00:00:00Z-000001
                head -c 12000000 /dev/zero >"$WORK/data"
                trap on_exit EXIT
                STAGE="uploading $NAME/etcd.backup.gz to the s3 store"
                UPLOADED+=("$NAME/etcd.backup.gz")
                s3_put "$WORK/data" "$NAME/etcd.backup.gz"
                """, "", dir.toString());
        assertEquals(1, r.exitCode(), r.stderr());
        String key = "c/2026-11-27T00%3A00%3A00Z-000001/etcd.backup.gz";
        assertEquals(List.of("POST " + key + "?uploads= 0",
                "PUT " + key + "?partNumber=1&uploadId=up%2B1%2Fx 5242880",
                "PUT " + key + "?partNumber=2&uploadId=up%2B1%2Fx 5242880",
                "DELETE " + key + "?uploadId=up%2B1%2Fx 0",
                "DELETE " + key + " 0"),
                Files.readAllLines(dir.resolve("requests")));
        assertTrue(r.stderr().contains("FAILED while uploading 2026-11-27T00:00:00Z-000001/etcd.backup.gz to the s3 store"
                + " (HTTP 503 SlowDown)"), r.stderr());
    }

    @Test
    void aPartSizeThatIsNoNumberIsRefused(@TempDir Path dir) throws Exception {
        BackupScript.Result r = BackupScript.run(dir, """
                CONF_STORE_TYPE=s3 CONF_MEMBER_COUNT=3 CONF_KEEP_ALL_FOR_HOURS=1 CONF_HOURLY_FOR_DAYS=7 CONF_DAILY_FOR_DAYS=730
                CONF_S3_PART_SIZE='$(touch pwned)'
                check_conf
                """, "", dir.toString());
        assertEquals(1, r.exitCode(), r.stderr());
        assertTrue(r.stderr().contains("S3_PART_SIZE must be a number of bytes"), r.stderr());
        assertTrue(!Files.exists(dir.resolve("pwned")));
    }
}
