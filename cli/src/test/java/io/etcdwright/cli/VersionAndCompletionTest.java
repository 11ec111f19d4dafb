package io.etcdwright.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionAndCompletionTest {
    @TempDir
    Path dir;

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        return out.toString();
    }

    @Test
    void versionNamesTheEtcdReleasesItKnows() throws Exception {
        String text = run("version");
        assertTrue(text.startsWith("etcdwright " + BuildInfo.current().describe() + "\n"), text);
        assertTrue(text.contains(" (commit "), text);
        assertTrue(text.contains("3.4  restore with etcdctl"), text);
        assertTrue(text.contains("3.5  restore with etcdutl"), text);
        assertTrue(text.contains("refuse etcd 3.5.0 to 3.5.2"), text);
        JsonNode json = new ObjectMapper().readTree(run("version", "-o", "json"));
        assertEquals(1, json.path("version").asInt());
        assertEquals(BuildInfo.current().version(), json.path("etcdwright").asText());
        assertEquals(BuildInfo.current().commit().orElseThrow(), json.path("commit").asText());
        assertEquals("3.5", json.path("etcd_minors").get(1).path("minor").asText(), json.toString());
        assertEquals("3.5.32", json.path("etcd_minors").get(1).path("minimum_patch_before_next_minor").asText());
        assertTrue(run("--version").contains("etcd minors: 3.4, 3.5"));
        // A subcommand's -V is the same text: the catalogue is read for it, though not for the
        // subcommand's own runs.
        assertTrue(run("plan", "-V").contains("etcd minors: 3.4, 3.5"), run("plan", "-V"));
        assertTrue(run("validate", "--version").contains("etcd minors: 3.4, 3.5"));
        assertTrue(Main.asksForVersion(new String[]{"plan", "-V"}));
        assertFalse(Main.asksForVersion(new String[]{"plan", "-i", "hosts.yaml", "-f", "spec.yaml"}));
    }

    /** The script bash gets: loaded by a real bash, it completes commands and a command's options. */
    @Test
    void theBashCompletionScriptLoadsAndCompletes() throws Exception {
        Path script = Files.writeString(dir.resolve("etcdwright.bash"), run("completion", "bash"));
        String probe = "source " + script + " && complete -p etcdwright"
                + " && COMP_WORDS=(etcdwright pl) COMP_CWORD=1 COMP_LINE='etcdwright pl' COMP_POINT=13 && _complete_etcdwright"
                + " && echo \"commands: ${COMPREPLY[*]}\""
                + " && COMP_WORDS=(etcdwright plan --allow) COMP_CWORD=2 COMP_LINE='etcdwright plan --allow' COMP_POINT=23"
                + " && _complete_etcdwright && echo \"options: ${COMPREPLY[*]}\""
                + " && COMP_WORDS=(etcdwright import --ca) COMP_CWORD=2 COMP_LINE='etcdwright import --ca' COMP_POINT=22"
                + " && _complete_etcdwright && echo \"import options: ${COMPREPLY[*]}\"";
        Process bash = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", probe).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes());
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, bash.exitValue(), out);
        assertTrue(out.contains("-F _complete_etcdwright etcdwright"), out);
        assertTrue(out.contains("commands: plan"), out);
        assertTrue(out.contains("options: --allow-downtime"), out);
        assertTrue(out.contains("import options: --ca-key"), out);
        assertTrue(run("completion", "zsh").startsWith("autoload -U +X compinit"));
    }
}
