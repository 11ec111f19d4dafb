package io.etcdwright.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The write-load harness around one command, for bench/: four writers start, the command runs
 * (timed, wall clock), the writers stop, every acknowledged write is checked as the tests check them
 * ({@link WriteLoad#check}), and one line says how it went. It asserts nothing; it exits 3 when a
 * write was lost or the members disagree, so a benchmark never reports the figures of a broken run.
 *
 * <pre>
 * java -cp cli/target/etcdwright.jar:integration/target/test-classes io.etcdwright.it.UnderWrites \
 *     CLIENT_ENV ACK_LOG COMMAND_LOG COMMAND...
 * </pre>
 * CLIENT_ENV is a file holding what 'etcdwright client-env' printed; the command's output goes to
 * COMMAND_LOG, each line stamped with the load's clock (the acknowledgement log's). Prints {@code took_ms=.. exit=.. acknowledged=.. indeterminate=.. lost=..
 * longest_stall_ms=.. (from ..) members_agree=.. watch_ok=..}.
 */
public final class UnderWrites {
    private UnderWrites() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: UnderWrites CLIENT_ENV ACK_LOG COMMAND_LOG COMMAND...");
            System.exit(2);
        }
        Map<String, String> env = Etcdctl.env(Files.readString(Path.of(args[0])));
        List<String> command = List.of(args).subList(3, args.length);
        WriteLoad.Acks acks;
        long tookMillis;
        int exit;
        try (WriteLoad load = WriteLoad.start(env, 4, Path.of(args[1]), Duration.ZERO)) {
            load.awaitMore(100, Duration.ofSeconds(30));
            long start = System.nanoTime();
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            // Each line of the command's output stamped with the load's clock, so a stall in the
            // acknowledgement log can be put beside the step that caused it.
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                 Writer log = Files.newBufferedWriter(Path.of(args[2]), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                         StandardOpenOption.APPEND)) {
                for (String line; (line = out.readLine()) != null; ) {
                    log.write(String.format("[%8d ms] %s%n", load.millisSinceStart(), line));
                }
            }
            exit = p.waitFor();
            tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            load.awaitMore(100, Duration.ofSeconds(30));
            acks = load.stop();
        }
        WriteLoad.Report report = WriteLoad.check(env, acks);
        System.out.printf("took_ms=%d exit=%d acknowledged=%d indeterminate=%d lost=%d longest_stall_ms=%d (from %d ms)"
                        + " members_agree=%b watch_ok=%b%n", tookMillis, exit, acks.acks().size(), acks.unacknowledgedAttempts(),
                report.lostKeys(), acks.longestStallMillis(), acks.longestStallFromMillis(), report.membersAgree(),
                report.watchSawEachOnceInOrder());
        if (!report.lostNothing() || !report.membersAgree() || !report.watchSawEachOnceInOrder()) {
            System.err.println(report);
            System.exit(3);
        }
        System.exit(exit);
    }
}
