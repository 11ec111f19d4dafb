package io.etcdwright.modules.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.maintenance.DefragScheduleModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostScriptsTest {
    @TempDir
    Path dir;

    @Test
    void eachJobsScriptIsOneFileWithTheSharedHelpersPutInOnce() throws Exception {
        for (byte[] script : List.of(BackupScheduleModule.script(), DefragScheduleModule.script())) {
            String text = new String(script, StandardCharsets.UTF_8);
            assertFalse(text.contains("# @include"), text);
            assertEquals(1, count(text, "(?m)^read_conf\\(\\) \\{$"), text);
            assertEquals(1, count(text, "(?m)^json_string\\(\\) \\{$"), text);
            // etcdctl 3.6+ warns on stderr about ETCDCTL_API, which the jobs read with its answers.
            assertEquals(1, count(text, "(?m)^unset ETCDCTL_API$"), text);
            assertEquals(0, count(text, "ETCDCTL_API=3"), text);
            Path file = dir.resolve("script.sh");
            Files.write(file, script);
            Process syntax = new ProcessBuilder("bash", "-n", file.toString()).redirectErrorStream(true).start();
            String out = new String(syntax.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, syntax.waitFor(), out);
        }
    }

    /** Only the names a job lists become variables, and values stay text: a configuration is data. */
    @Test
    void readConfTakesTheListedKeysLiterallyAndIgnoresTheRest() throws Exception {
        Path lib = dir.resolve("lib.sh");
        Files.write(lib, HostScripts.class.getResourceAsStream(HostScripts.LIB).readAllBytes());
        Path conf = dir.resolve("job.conf");
        Path marker = dir.resolve("ran");
        Files.writeString(conf, "# a comment\n\nCLUSTER=demo=1 $(touch " + marker + ") \"q\"\nPATH=/nowhere\nMEMBER;x=1\nMEMBER=m1");
        String test = "set -euo pipefail\nlog() { printf 'job: %s\\n' \"$*\" >&2; }\nsource \"$1\"\n"
                + "read_conf \"$2\" CLUSTER MEMBER\nprintf '%s|%s|%s\\n' \"$CONF_CLUSTER\" \"$CONF_MEMBER\" \"$PATH\"\n";
        Process p = new ProcessBuilder("bash", "-c", test, "test", lib.toString(), conf.toString()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), err);
        assertTrue(out.startsWith("demo=1 $(touch " + marker + ") \"q\"|m1|"), out);
        assertFalse(out.contains("/nowhere"), out);
        assertFalse(Files.exists(marker), "nothing in a value runs");
        assertTrue(err.contains("ignoring unknown setting 'PATH'"), err);
        assertTrue(err.contains("ignoring unknown setting 'MEMBER;x'"), err);
    }

    @Test
    void aMissingConfigurationFailsAndSaysWhere() throws Exception {
        Path lib = dir.resolve("lib.sh");
        Files.write(lib, HostScripts.class.getResourceAsStream(HostScripts.LIB).readAllBytes());
        String test = "log() { printf 'job: %s\\n' \"$*\" >&2; }\nsource \"$1\"\nread_conf \"$2\" CLUSTER";
        Process p = new ProcessBuilder("bash", "-c", test, "test", lib.toString(), dir.resolve("absent.conf").toString()).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.waitFor());
        assertTrue(err.contains("no configuration at " + dir.resolve("absent.conf")), err);
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
