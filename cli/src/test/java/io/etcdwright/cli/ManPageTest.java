package io.etcdwright.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ManPageTest {
    @TempDir
    Path dir;

    /** Every command and every option the program has is on the page, so a new one cannot be left off. */
    @Test
    void thePageHasEveryCommandAndOption() {
        String page = ManPage.render(BuildInfo.current());
        List<String> missing = new ArrayList<>();
        walk(Main.commandLine(new String[0]), "etcdwright", page, missing);
        assertTrue(missing.isEmpty(), "not on the page: " + missing);
        assertTrue(page.contains(".SS \"etcdwright backups list\""), "nested commands too");
        assertTrue(page.startsWith(".\\\" Generated"), page.substring(0, 80));
        assertTrue(page.contains(".TH ETCDWRIGHT 1 \"" + BuildInfo.current().commitTime().orElseThrow().substring(0, 10) + "\""),
                "dated by the commit, not the clock");
        assertEquals(page, ManPage.render(BuildInfo.current()), "the same bytes each time");
    }

    private static void walk(CommandLine cmd, String name, String page, List<String> missing) {
        for (Map.Entry<String, CommandLine> e : cmd.getSubcommands().entrySet()) {
            CommandLine sub = e.getValue();
            if (sub.getCommand() instanceof CommandLine.HelpCommand) {
                continue;
            }
            String full = name + " " + e.getKey();
            if (!page.contains(".SS \"" + ManPage.escape(full) + "\"")) {
                missing.add(full);
            }
            for (OptionSpec o : sub.getCommandSpec().options()) {
                for (String n : o.names()) {
                    if (!o.hidden() && !page.contains("\\fB" + ManPage.escape(n) + "\\fR")) {
                        missing.add(full + " " + n);
                    }
                }
            }
            walk(sub, full, page, missing);
        }
    }

    /** groff itself reads the page: no warning, and the text shows options as typed. */
    @Test
    void groffReadsThePageWithoutAWarning() throws Exception {
        Path page = dir.resolve("etcdwright.1");
        ManPage.main(new String[]{page.toString()});
        Process groff = new ProcessBuilder("groff", "-man", "-Tutf8", "-ww", "-K", "utf8", page.toString())
                .redirectError(ProcessBuilder.Redirect.to(dir.resolve("groff.err").toFile())).start();
        String text = new String(groff.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                .replaceAll(".\b", "");
        assertTrue(groff.waitFor(60, TimeUnit.SECONDS));
        String warnings = Files.readString(dir.resolve("groff.err"));
        assertEquals(0, groff.exitValue(), warnings);
        assertTrue(warnings.isBlank(), warnings);
        assertTrue(text.contains("--detailed-exitcode"), text);
        assertTrue(text.contains("etcdwright plan"), text);
        assertFalse(text.contains("%n"), "picocli's line breaks are not printed as such");
    }
}
