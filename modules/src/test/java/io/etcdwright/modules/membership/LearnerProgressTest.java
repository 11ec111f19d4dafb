package io.etcdwright.modules.membership;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The 90% estimate that promotion waits for and status shows. */
class LearnerProgressTest {
    @Test
    void caughtUpAtNinetyPercentOfTheLeadersLog() {
        assertTrue(new LearnerProgress(900, 1000).caughtUp());
        assertFalse(new LearnerProgress(899, 1000).caughtUp());
        assertTrue(new LearnerProgress(10, 11).caughtUp(), "ceil(9.9) = 10");
        assertFalse(new LearnerProgress(0, 12).caughtUp(), "a learner that never started");
    }

    @Test
    void percentIsWholeAndNeverAboveAHundred() {
        assertEquals(89, new LearnerProgress(899, 1000).percent());
        assertEquals(100, new LearnerProgress(1005, 1000).percent());
        assertEquals(100, new LearnerProgress(0, 0).percent());
    }

    @Test
    void describedForAnOperator() {
        assertEquals("applied index 400 of the leader's 1000 (40%): catching up; etcd promotes at 90%",
                new LearnerProgress(400, 1000).describe());
    }
}
