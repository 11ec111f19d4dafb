package io.etcdwright.modules.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The workstation's note of removed members' hosts whose etcd is still to be stopped. */
class PendingStopsTest {
    @Test
    void aHostIsNotedUntilItsStopIsDone(@TempDir Path dir) {
        PendingStops pending = new PendingStops(dir.resolve("clusters/c/removed-hosts"));
        assertEquals(Map.of(), pending.pending(), "no directory yet: nothing pending");
        pending.add("node-4", "h4");
        pending.add("node-5", "h5");
        pending.add("node-4", "h4"); // a removal tried again
        assertEquals(Map.of("node-4", "h4", "node-5", "h5"), pending.pending());
        pending.done("node-4");
        pending.done("node-4"); // a stop run again
        assertEquals(Map.of("node-5", "h5"), new PendingStops(dir.resolve("clusters/c/removed-hosts")).pending());
    }

    @Test
    void anyHostNameMakesASafeFileName(@TempDir Path dir) {
        PendingStops pending = new PendingStops(dir);
        pending.add("..", "m1");
        pending.add("a/b", "m2");
        assertEquals(Map.of("..", "m1", "a/b", "m2"), pending.pending());
        pending.done("..");
        assertEquals(Map.of("a/b", "m2"), pending.pending());
    }
}
