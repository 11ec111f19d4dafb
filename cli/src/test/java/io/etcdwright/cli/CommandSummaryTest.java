package io.etcdwright.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code etcdwright --help} (and a group's own help, like {@code backups --help}) lists each command
 * with one line: its header, or else the first line of its description. That line is all a
 * newcomer reads of a command, so it must say something whole; the detail belongs below it, in
 * the command's own help.
 */
class CommandSummaryTest {

    @Test
    void everyCommandsSummaryIsOneWholeSentence() {
        List<String> notWhole = new ArrayList<>();
        walk(Main.commandLine(new String[0]), "etcdwright", notWhole);
        // 'certs issue-reader' runs under a parent of its own (Main.CertsGroup), with its own line.
        walk(Main.commandLine(new String[]{"certs", "issue-reader"}), "etcdwright", notWhole);
        assertTrue(notWhole.isEmpty(), "summaries that are not one whole sentence:\n" + String.join("\n", notWhole));
    }

    @Test
    void aSummaryCutMidSentenceIsNotWhole() {
        // The check itself, on the kinds of line --help used to show.
        assertTrue(wholeSentenceProblem("Take a backup now: a snapshot from the leader, verified, compressed, encrypted when the spec")
                .isPresent());
        assertTrue(wholeSentenceProblem("Print the kube-apiserver flags that connect it to this cluster,").isPresent());
        assertTrue(wholeSentenceProblem("Print the ETCDCTL_* settings, one line each:").isPresent());
        assertTrue(wholeSentenceProblem("Stop etcd (and remove its unit.").isPresent());
        assertTrue(wholeSentenceProblem("").isPresent());
        assertTrue(wholeSentenceProblem("Show what apply would change, and why, without changing anything.").isEmpty());
    }

    private static void walk(CommandLine command, String name, List<String> notWhole) {
        String summary = summary(command.getCommandSpec().usageMessage());
        wholeSentenceProblem(summary).ifPresent(problem -> notWhole.add(name + ": " + problem + ": \"" + summary + "\""));
        for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
            walk(sub.getValue(), name + " " + sub.getKey(), notWhole);
        }
    }

    /** What picocli's command list shows for a command: the header's first line, else the description's. */
    private static String summary(UsageMessageSpec usage) {
        String[] lines = usage.header().length > 0 ? usage.header() : usage.description();
        return lines.length == 0 ? "" : String.format(lines[0]).strip();
    }

    private static Optional<String> wholeSentenceProblem(String line) {
        if (line.isEmpty()) {
            return Optional.of("empty");
        }
        if (line.contains("\n")) {
            return Optional.of("more than one line");
        }
        if (!Character.isUpperCase(line.codePointAt(0))) {
            return Optional.of("does not start a sentence");
        }
        if (!line.endsWith(".") || line.endsWith("..")) {
            return Optional.of("does not end with a full stop");
        }
        if (line.chars().filter(c -> c == '(').count() != line.chars().filter(c -> c == ')').count()) {
            return Optional.of("leaves a parenthesis open");
        }
        return Optional.empty();
    }
}
