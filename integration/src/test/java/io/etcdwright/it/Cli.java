package io.etcdwright.it;

import io.etcdwright.cli.Main;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

/** Runs the real etcdwright command line in this JVM and captures what it printed. */
final class Cli {
    record Run(int exitCode, String out, String err) {
        String all() {
            return out + err;
        }
    }

    private Cli() {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        Run run = new Run(code, out.toString(), err.toString());
        // Shown in the surefire report, so a failure explains itself.
        System.out.println("$ etcdwright " + String.join(" ", args) + "\n" + run.out + run.err + "[exit " + code + "]");
        return run;
    }

    static Run run(List<String> args) {
        return run(args.toArray(new String[0]));
    }

    static List<String> args(String... parts) {
        return new ArrayList<>(List.of(parts));
    }
}
