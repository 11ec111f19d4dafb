package io.etcdwright.it;

import io.etcdwright.cli.Main;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    /**
     * The real launcher (bin/etcdwright) in a process of its own, as an operator runs it: for what
     * an in-process run cannot do, being SIGKILLed at a chosen point (a lost laptop, a killed CI
     * runner) or answering the confirmation question after the test changed something. Its stdout
     * and stderr are read as they come by a thread of its own, which also does the kill, so the kill
     * follows the awaited output at once.
     */
    static final class Launched implements AutoCloseable {
        private final String command;
        private final Process process;
        private final StringBuilder output = new StringBuilder();
        private final Thread reader;
        private volatile Pattern killAt;
        private volatile boolean killed;

        private Launched(String command, Process process) {
            this.command = command;
            this.process = process;
            this.reader = new Thread(this::read, "launched-etcdwright");
            reader.setDaemon(true);
            reader.start();
        }

        private static boolean archiveCurrent;

        /**
         * The launcher maps the class-data-sharing archive only when it was made for this very jar,
         * and this test run's Maven build has just repackaged the jar: without a new archive, each
         * launched run would load every class from the jar (a kill chain launches a hundred).
         */
        private static synchronized void currentArchive() {
            if (!archiveCurrent) {
                Testbed.Result made = Testbed.exec(List.of(Testbed.ROOT.resolve("scripts/cds-archive").toString()));
                assertEquals(0, made.exitCode(), "scripts/cds-archive: " + made.stdout() + made.stderr());
                archiveCurrent = true;
            }
        }

        /** Starts {@code bin/etcdwright ARGS} with {@code home} as its ETCDWRIGHT_HOME. */
        static Launched start(Path home, String... args) {
            return start(home, java.util.Map.of(), args);
        }

        /** As {@link #start(Path, String...)}, with {@code env} added to its environment (credentials, keys). */
        static Launched start(Path home, java.util.Map<String, String> env, String... args) {
            currentArchive();
            List<String> cmd = new ArrayList<>();
            cmd.add(Testbed.ROOT.resolve("bin/etcdwright").toString());
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("ETCDWRIGHT_HOME", home.toString());
            pb.environment().putAll(env);
            try {
                return new Launched("etcdwright " + String.join(" ", args), pb.start());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + cmd, e);
            }
        }

        private void read() {
            Reader in = new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8);
            char[] buffer = new char[4096];
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    synchronized (output) {
                        output.append(buffer, 0, n);
                        Pattern at = killAt;
                        if (at != null && !killed && at.matcher(output).find()) {
                            kill();
                        }
                        output.notifyAll();
                    }
                }
            } catch (IOException e) {
                // The process was killed or closed its output: what it printed until then is kept.
            } finally {
                synchronized (output) {
                    output.notifyAll();
                }
            }
        }

        private void kill() {
            killed = true;
            process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }

        /**
         * Waits until the output matches {@code pattern} (it may go on printing meanwhile); fails when the
         * process ends or {@code within} passes first. Returns the output so far.
         */
        String await(Pattern pattern, Duration within) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            synchronized (output) {
                while (!pattern.matcher(output).find()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || !reader.isAlive()) {
                        throw new AssertionError((left <= 0 ? "no '" + pattern + "' within " + within : "it ended without '"
                                + pattern + "'") + " from " + command + ":\n" + output);
                    }
                    output.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)));
                }
                return output.toString();
            }
        }

        /**
         * Waits until the output matches {@code pattern}, as {@link #await}, or the process ends on its
         * own (empty then: what it printed is for {@link #finish}); fails when {@code within} passes first.
         */
        java.util.Optional<String> awaitUnlessEnded(Pattern pattern, Duration within) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            synchronized (output) {
                while (!pattern.matcher(output).find()) {
                    if (!reader.isAlive()) {
                        return java.util.Optional.empty();
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new AssertionError("no '" + pattern + "' within " + within + " from " + command + ":\n" + output);
                    }
                    output.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)));
                }
                return java.util.Optional.of(output.toString());
            }
        }

        /**
         * SIGKILLs the process as soon as its output matches {@code pattern} and returns what it printed
         * (which may run a little past the match: output already in the pipe); fails if it does not get there.
         */
        String killAfter(Pattern pattern, Duration within) throws InterruptedException {
            killWhen(pattern);
            try {
                await(pattern, within);
            } finally {
                if (!killed) {
                    kill();
                }
                process.waitFor();
                reader.join(TimeUnit.SECONDS.toMillis(10));
            }
            String printed;
            synchronized (output) {
                printed = output.toString();
            }
            System.out.println("$ " + command + "   (own process, SIGKILLed after '" + pattern + "')\n" + printed + "[killed]");
            return printed;
        }

        /**
         * Arms the kill: SIGKILLs the process as soon as its output matches {@code pattern}, without
         * waiting (before answering a question, so that the run cannot pass the point unwatched).
         */
        void killWhen(Pattern pattern) {
            synchronized (output) {
                killAt = pattern;
                if (pattern.matcher(output).find()) {
                    kill();
                }
            }
        }

        /** Writes one line to its standard input, as a person at the terminal would. */
        void answer(String line) {
            try {
                OutputStream in = process.getOutputStream();
                in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot answer " + command, e);
            }
        }

        /** Waits for it to end on its own; what it printed is the run's output (stderr included). */
        Run finish(Duration within) throws InterruptedException {
            if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
                process.waitFor();
                reader.join(TimeUnit.SECONDS.toMillis(10));
                throw new AssertionError(command + " did not end within " + within + ":\n" + output);
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
            Run run;
            synchronized (output) {
                run = new Run(process.exitValue(), output.toString(), "");
            }
            System.out.println("$ " + command + "   (own process)\n" + run.out + "[exit " + run.exitCode + "]");
            return run;
        }

        /** Never leaves it running behind a failed test. */
        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                kill();
                process.waitFor();
            }
        }
    }
}
