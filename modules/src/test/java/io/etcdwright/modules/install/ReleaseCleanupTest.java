package io.etcdwright.modules.install;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReleaseCleanupTest {
    @Test
    void keepsTheActiveReleaseAndTheNewestOtherOfEachMinor() {
        assertEquals(List.of(), ReleaseCleanupModule.removable(List.of("3.5.16"), "3.5.16"));
        // Right after an upgrade: the old release is the way back.
        assertEquals(List.of(), ReleaseCleanupModule.removable(List.of("3.4.23", "3.5.16"), "3.5.16"));
        assertEquals(List.of(), ReleaseCleanupModule.removable(List.of("3.4.23", "3.5.16", "3.5.30"), "3.5.16"));
        // A third patch: the oldest goes; the 3.4 restore tool stays.
        assertEquals(List.of("3.5.16"), ReleaseCleanupModule.removable(List.of("3.4.23", "3.5.16", "3.5.20", "3.5.30"), "3.5.30"));
        assertEquals(List.of("3.4.20", "3.5.16"),
                ReleaseCleanupModule.removable(List.of("3.5.16", "3.4.20", "3.4.23", "3.5.20", "3.5.30"), "3.5.30"));
        // Something that is not a version is never a candidate.
        assertEquals(List.of(), ReleaseCleanupModule.removable(List.of("custom", "3.5.30"), "3.5.30"));
    }
}
