package io.etcdwright.cli;

import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BuildInfoTest {
    /** The build this test runs in filled build.properties: the pom's revision and this checkout's commit. */
    @Test
    void thisBuildKnowsItsVersionAndCommit() {
        BuildInfo build = BuildInfo.current();
        assertTrue(build.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), build.toString());
        assertTrue(build.commit().orElseThrow().matches("[0-9a-f]{40}"), build.toString());
        assertTrue(build.commitTime().orElseThrow().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"), build.toString());
    }

    @Test
    void describesTheCommitShortAndSaysWhenTheTreeHadChanges() {
        Properties p = new Properties();
        p.setProperty("version", "0.2.0");
        p.setProperty("commit", "1860491abcdef0123456789abcdef0123456789a");
        p.setProperty("commit.time", "2026-11-27T16:20:11Z");
        p.setProperty("dirty", "false");
        assertEquals("0.2.0 (commit 1860491abcde, 2026-11-27T16:20:11Z)", BuildInfo.fromProperties(p).describe());
        p.setProperty("dirty", "true");
        assertEquals("0.2.0 (commit 1860491abcde-dirty, 2026-11-27T16:20:11Z)", BuildInfo.fromProperties(p).describe());
    }

    /** Built from a source tree without .git: Maven leaves the placeholders, and nothing pretends to know. */
    @Test
    void aBuildWithoutGitHistorySaysTheCommitIsUnknown() {
        Properties p = new Properties();
        p.setProperty("version", "0.2.0");
        p.setProperty("commit", "${git.commit.id.full}");
        p.setProperty("commit.time", "${git.commit.time}");
        p.setProperty("dirty", "${git.dirty}");
        BuildInfo build = BuildInfo.fromProperties(p);
        assertEquals(Optional.empty(), build.commit());
        assertFalse(build.dirty());
        assertEquals("0.2.0 (commit unknown)", build.describe());
        assertEquals("development build (commit unknown)", BuildInfo.fromProperties(new Properties()).describe());
    }
}
