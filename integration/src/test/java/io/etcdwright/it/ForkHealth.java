package io.etcdwright.it;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each test class left behind in the one JVM every integration test shares (surefire reuses
 * its fork): the threads still alive after the class and the CPU they burn while the next classes
 * run. A thread a class forgot to stop (a write load, a watcher, an executor) slows every class
 * after it, and shows here as CPU spent outside the test that owns it. Written to
 * integration/target/fork-health.txt, beside the reports.
 */
public final class ForkHealth implements TestExecutionListener {
    private static final int TOP = 5;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> cpuAtClassStart = new HashMap<>();
    private long startedNanos;

    @Override
    public void executionStarted(TestIdentifier test) {
        if (isClass(test)) {
            startedNanos = System.nanoTime();
            cpuAtClassStart.clear();
            for (long id : threads.getAllThreadIds()) {
                cpuAtClassStart.put(id, Math.max(0, threads.getThreadCpuTime(id)));
            }
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (!isClass(test)) {
            return;
        }
        double seconds = (System.nanoTime() - startedNanos) / 1e9;
        record Spent(String name, Thread.State state, boolean leftFromBefore, double cpuSeconds) {
        }
        List<Spent> spent = new ArrayList<>();
        for (long id : threads.getAllThreadIds()) {
            ThreadInfo info = threads.getThreadInfo(id);
            long cpu = threads.getThreadCpuTime(id);
            if (info == null || cpu < 0) {
                continue;
            }
            Long before = cpuAtClassStart.get(id);
            // The thread running the tests is older than every class, but its CPU is the class's own.
            boolean leftFromBefore = before != null && id != Thread.currentThread().getId();
            spent.add(new Spent(info.getThreadName(), info.getThreadState(), leftFromBefore,
                    (cpu - (before == null ? 0 : before)) / 1e9));
        }
        spent.sort((a, b) -> Double.compare(b.cpuSeconds(), a.cpuSeconds()));
        double fromOlder = spent.stream().filter(Spent::leftFromBefore).mapToDouble(Spent::cpuSeconds).sum();
        StringBuilder line = new StringBuilder(String.format("lane %s: %s: %.1f s, %d threads alive after it, %.1f s CPU in threads older than the class%n",
                Testbed.SETTINGS.get("TESTBED_LANE"), test.getDisplayName(), seconds, spent.size(), fromOlder));
        spent.stream().limit(TOP).forEach(s -> line.append(String.format("    %-60s %-13s %6.1f s CPU%s%n",
                s.name(), s.state(), s.cpuSeconds(), s.leftFromBefore() ? " (older than the class)" : "")));
        // Looked up only now: surefire makes its listeners before it sets the fork's system properties.
        Path report = Testbed.ROOT.resolve("integration/target/fork-health.txt");
        try {
            Files.createDirectories(report.getParent());
            Files.writeString(report, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.err.println("fork-health: cannot write " + report + ": " + e.getMessage());
        }
    }

    private static boolean isClass(TestIdentifier test) {
        return test.getSource().filter(ClassSource.class::isInstance).isPresent();
    }
}
