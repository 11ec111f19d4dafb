package io.etcdwright.modules.maintenance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real defrag script's decisions, run in bash against a stand-in etcdctl that answers as etcd
 * would (its calls logged): not worth it, the lock held by another member, a member unhealthy, a
 * leader that hands its leadership over first, a failure, a bad configuration value. Public for its
 * stand-in etcdctl, which monitoring's MemberTextfiles uses for a run that defragments.
 */
public class DefragScriptTest {
    public static final long MIB = 1 << 20;

    /** Answers by its arguments (flags dropped) and FAKE_* variables; logs each call, one a line. */
    public static final String FAKE_ETCDCTL = """
            #!/bin/bash
            args=(); for a in "$@"; do case $a in --*) ;; *) args+=("$a") ;; esac; done
            printf '%s\\n' "${args[*]}" >>"$FAKE_DIR/calls"
            case "${args[0]} ${args[1]:-}" in
              "endpoint status")
                size=$FAKE_SIZE; [ -f "$FAKE_DIR/defragged" ] && size=$FAKE_INUSE
                leader=$FAKE_LEADER; [ -f "$FAKE_DIR/moved" ] && leader=2
                printf '[{"Endpoint":"x","Status":{"header":{"cluster_id":7,"member_id":1},"version":"3.5.16","dbSize":%s,"leader":%s,"dbSizeInUse":%s}}]\\n' "$size" "$leader" "$FAKE_INUSE" ;;
              "lease grant") echo "lease 694d7a2b granted with TTL(15s)" ;;
              "lease keep-alive") exec sleep 30 ;;
              "lease revoke") echo "lease 694d7a2b revoked" ;;
              "txn ") cat >"$FAKE_DIR/txn-input"
                if [ -n "${FAKE_HELD:-}" ]; then printf 'FAILURE\\n\\n/etcdwright/lock/c1\\n%s\\n' "$FAKE_HELD"; else printf 'SUCCESS\\n\\nOK\\n'; fi ;;
              "endpoint health")
                if [ -n "${FAKE_UNHEALTHY:-}" ] && [[ "$*" == *"--endpoints=$FAKE_UNHEALTHY "* ]]; then
                  echo "$FAKE_UNHEALTHY is unhealthy: failed to commit proposal: context deadline exceeded" >&2; exit 1
                fi
                echo "is healthy" ;;
              "member list") printf '1, started, h1, https://a:2380, https://a:2379, false\\n2, started, h2, https://b:2380, https://b:2379, false\\n' ;;
              "move-leader 2") touch "$FAKE_DIR/moved"; echo "Leadership transferred" ;;
              "defrag ") [ -z "${FAKE_DEFRAG_FAILS:-}" ] || { echo "context deadline exceeded" >&2; exit 1; }
                touch "$FAKE_DIR/defragged"; echo "Finished defragmenting" ;;
              *) echo "unexpected call: $*" >&2; exit 2 ;;
            esac
            """;

    record Run(int exitCode, String stderr, String lastRun, List<String> calls, Path dir) {
        String file(String name) throws IOException {
            return Files.readString(dir.resolve(name));
        }
    }

    static Run run(Path dir, String minPercent, Map<String, String> env) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.writeString(bin.resolve("etcdctl"), FAKE_ETCDCTL);
        Files.setPosixFilePermissions(bin.resolve("etcdctl"), PosixFilePermissions.fromString("rwx------"));
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("defrag.conf"), String.join("\n", "# test", "CLUSTER=c1", "MEMBER=h1",
                "ENDPOINT=https://10.0.0.11:2379", "ENDPOINTS=https://10.0.0.11:2379,https://10.0.0.12:2379,https://10.0.0.13:2379",
                "TLS=true", "CACERT=/x/ca.crt", "CERT=/x/hc.crt", "KEY=/x/hc.key", "ETCD_BIN_DIR=" + bin,
                "LOCK_KEY=/etcdwright/lock/c1", "MIN_FRAGMENTATION_PERCENT=" + minPercent, "MIN_DB_SIZE_BYTES=" + 8 * MIB, ""));
        Path script = dir.resolve("etcd-defrag.sh");
        Files.write(script, DefragScheduleModule.script());
        Map<String, String> fakes = new java.util.HashMap<>(Map.of("FAKE_DIR", dir.toString(), "FAKE_LEADER", "2"));
        fakes.putAll(env);
        io.etcdwright.modules.monitoring.MemberTextfiles.Run ran = io.etcdwright.modules.monitoring.MemberTextfiles.run(dir, script,
                conf, "ETCDWRIGHT_DEFRAG_STATE", fakes);
        Path calls = dir.resolve("calls");
        Path lastRun = dir.resolve("state/last-run.json");
        return new Run(ran.exitCode(), ran.stderr(), Files.exists(lastRun) ? Files.readString(lastRun) : "",
                Files.exists(calls) ? Files.readAllLines(calls) : List.of(), dir);
    }

    static Map<String, String> sizes(long size, long inUse) {
        return Map.of("FAKE_SIZE", Long.toString(size), "FAKE_INUSE", Long.toString(inUse));
    }

    @Test
    void aMemberNotWorthItIsLeftAloneWithoutTakingTheLock(@TempDir Path dir) throws Exception {
        Run r = run(dir, "20", sizes(100 * MIB, 90 * MIB));
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.lastRun().contains("\"result\":\"not-worth-it\""), r.lastRun());
        assertTrue(r.lastRun().contains("its database is 100.0 MiB with 90.0 MiB in use: 10% free, under 20%"), r.lastRun());
        assertEquals(List.of("endpoint status -w json"), r.calls(), "nothing but the question");

        Run small = run(Files.createDirectories(dir.resolve("small")), "0", sizes(4 * MIB, 0));
        assertTrue(small.lastRun().contains("its database is 4.0 MiB, under the minimum of 8.0 MiB"), small.lastRun());
    }

    @Test
    void aLockHeldElsewhereIsASkipNamingTheHolder(@TempDir Path dir) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(sizes(100 * MIB, 10 * MIB));
        env.put("FAKE_HELD", "{\"user\":\"root\",\"host\":\"h2\",\"pid\":42,\"command\":\"scheduled defrag of member h2\","
                + "\"since\":\"2026-11-27T03:10:00Z\",\"token\":\"SECRET-TOKEN\",\"process_space\":\"\"}");
        Run r = run(dir, "20", env);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.lastRun().contains("\"result\":\"skipped\""), r.lastRun());
        assertTrue(r.lastRun().contains("the cluster's lock /etcdwright/lock/c1 is held by root@h2 (scheduled defrag of member h2)"
                + " since 2026-11-27T03:10:00Z"), r.lastRun());
        assertFalse(r.lastRun().contains("SECRET-TOKEN"), "a holder's token is never shown");
        assertFalse(r.calls().contains("defrag"), r.calls().toString());
        assertTrue(r.calls().contains("lease revoke 694d7a2b"), "its own lease is given back: " + r.calls());
    }

    @Test
    void anUnhealthyMemberIsASkipAndTheLockIsReleased(@TempDir Path dir) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(sizes(100 * MIB, 10 * MIB));
        env.put("FAKE_UNHEALTHY", "https://10.0.0.13:2379");
        Run r = run(dir, "20", env);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.lastRun().contains("\"result\":\"skipped\"") && r.lastRun().contains("the member at https://10.0.0.13:2379 is"
                + " not healthy"), r.lastRun());
        assertFalse(r.calls().contains("defrag"), r.calls().toString());
        assertEquals("lease revoke 694d7a2b", r.calls().get(r.calls().size() - 1));
    }

    @Test
    void aFollowerTakesTheLockChecksEveryMemberAndDefragments(@TempDir Path dir) throws Exception {
        Run r = run(dir, "20", sizes(100 * MIB, 10 * MIB));
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.lastRun().contains("\"result\":\"defragmented\"") && r.lastRun().contains("member h1 defragmented: 100.0 MiB"
                + " -> 10.0 MiB\""), r.lastRun());
        assertTrue(r.lastRun().contains("\"objectSize\":" + 10 * MIB + ",\"dbSizeBefore\":" + 100 * MIB), r.lastRun());
        // The keep-alive runs in the background from the lock on: where its call lands is the scheduler's business.
        assertTrue(r.calls().indexOf("lease keep-alive 694d7a2b") > r.calls().indexOf("txn"), r.calls().toString());
        assertEquals(List.of("endpoint status -w json", "lease grant 15", "txn", "endpoint health", "endpoint health",
                "endpoint health", "endpoint status -w json", "defrag", "endpoint health", "endpoint status -w json",
                "lease revoke 694d7a2b"), r.calls().stream().filter(c -> !c.startsWith("lease keep-alive")).toList());
        String txn = r.file("txn-input");
        assertTrue(txn.startsWith("create(\"/etcdwright/lock/c1\") = \"0\"\n\nput --lease=694d7a2b \"/etcdwright/lock/c1\" "
                + "\"{\\\"user\\\":\\\"root\\\",\\\"host\\\":\\\"h1\\\","), txn);
        assertEquals("0", r.file("state/failed-runs").strip());
        assertTrue(r.file("state/last-success.json").contains("defragmented"));
    }

    @Test
    void theLeaderHandsItsLeadershipToAnotherMemberFirst(@TempDir Path dir) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(sizes(100 * MIB, 10 * MIB));
        env.put("FAKE_LEADER", "1");
        Run r = run(dir, "20", env);
        assertEquals(0, r.exitCode(), r.stderr());
        int move = r.calls().indexOf("move-leader 2");
        assertTrue(move > 0 && move < r.calls().indexOf("defrag"), r.calls().toString());
        assertTrue(r.lastRun().contains("100.0 MiB -> 10.0 MiB; leadership handed to 2 first"), r.lastRun());
    }

    @Test
    void aFailedDefragmentationIsRecordedCountedAndReleasesTheLock(@TempDir Path dir) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(sizes(100 * MIB, 10 * MIB));
        env.put("FAKE_DEFRAG_FAILS", "1");
        Run r = run(dir, "20", env);
        assertNotEquals(0, r.exitCode());
        assertTrue(r.lastRun().contains("\"result\":\"failed\"") && r.lastRun().contains("failed while defragmenting"), r.lastRun());
        assertEquals("1", r.file("state/failed-runs").strip());
        assertEquals("lease revoke 694d7a2b", r.calls().get(r.calls().size() - 1));
        run(dir, "20", env);
        assertEquals("2", r.file("state/failed-runs").strip(), "failures in a row are counted");
    }

    @Test
    void aConfigurationValueIsDataNeverArithmetic(@TempDir Path dir) throws Exception {
        Run r = run(dir, "a[$(touch " + dir.resolve("pwned") + ")]", sizes(100 * MIB, 10 * MIB));
        assertEquals(1, r.exitCode());
        assertTrue(r.stderr().contains("MIN_FRAGMENTATION_PERCENT must be 0 to 100"), r.stderr());
        assertFalse(Files.exists(dir.resolve("pwned")));
        assertEquals(List.of(), r.calls());
    }
}
