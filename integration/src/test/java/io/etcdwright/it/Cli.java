package io.etcdwright.it;

import io.etcdwright.cli.Main;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

    /**
     * The real launcher (bin/etcdwright) in its own process with this $ETCDWRIGHT_HOME, SIGKILLed (as a
     * lost laptop or a killed CI runner) once it has printed {@code line}; returns what it printed.
     */
    static String killedAfter(Path home, String line, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Testbed.ROOT.resolve("bin/etcdwright").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDWRIGHT_HOME", home.toString());
        Process process = pb.start();
        StringBuilder out = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        InputStream in = process.getInputStream();
        byte[] buffer = new byte[1];
        while (System.nanoTime() < deadline && out.indexOf(line) < 0 && in.read(buffer) == 1) {
            out.append(new String(buffer, StandardCharsets.ISO_8859_1));
        }
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        System.out.println("$ etcdwright " + String.join(" ", args) + "\n" + out + "[killed after '" + line + "']");
        return out.toString();
    }

    static List<String> args(String... parts) {
        return new ArrayList<>(List.of(parts));
    }
}
