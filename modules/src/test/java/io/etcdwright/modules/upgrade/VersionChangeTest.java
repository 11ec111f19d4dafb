package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.spec.Version;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionChangeTest {
    static final VersionCatalogue CATALOGUE = VersionCatalogue.builtIn();

    static VersionChange change(String target, String... held) {
        return VersionChange.of(Arrays.stream(held).map(Version::parse).toList(), Version.parse(target), CATALOGUE);
    }

    @Test
    void theCatalogueKnowsTheMinorsAndTheirRestoreTools() {
        assertEquals("etcdctl", CATALOGUE.line(Version.parse("3.4.23")).orElseThrow().restoreTool());
        assertEquals("etcdutl", CATALOGUE.line(Version.parse("3.5.16")).orElseThrow().restoreTool());
        assertEquals(Version.parse("3.4.32"), CATALOGUE.line(Version.parse("3.5.0")).orElseThrow().rollingDowngradeTo().orElseThrow());
        assertTrue(CATALOGUE.issuesOf(Version.parse("3.5.30")).isEmpty(), CATALOGUE.issuesOf(Version.parse("3.5.30")).toString());
    }

    @Test
    void sameVersionEverywhereIsNoChange() {
        assertInstanceOf(VersionChange.Unchanged.class, change("3.5.16", "3.5.16", "3.5.16", "3.5.16"));
        assertInstanceOf(VersionChange.Unchanged.class, change("3.5.16"));
    }

    @Test
    void patchChangesRollBothWaysAndAnOldTargetIsWarnedAbout() {
        VersionChange up = change("3.5.30", "3.5.16", "3.5.16", "3.5.16");
        assertEquals(new VersionChange.Patch(Version.parse("3.5.16"), Version.parse("3.5.30"), List.of()), up);
        VersionChange down = change("3.5.16", "3.5.30", "3.5.30", "3.5.16");
        assertInstanceOf(VersionChange.Patch.class, down);
        assertEquals(Version.parse("3.5.30"), ((VersionChange.Patch) down).from());
        assertTrue(down.warnings().stream().anyMatch(w -> w.contains("issues/19557")), down.warnings().toString());
    }

    @Test
    void aKnownBadTargetIsRefusedWithTheReasonAndItsSource() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.5.1", "3.4.23", "3.4.23", "3.4.23"));
        assertTrue(refused.why().contains("v3.5-data-inconsistency.md"), refused.why());
        assertTrue(refused.whatToDo().contains("another patch release of 3.5"), refused.whatToDo());
    }

    @Test
    void oneMinorUpIsARollingUpgradeWithTheNewestPatchAdvice() {
        VersionChange up = change("3.5.16", "3.4.23", "3.4.23", "3.4.23");
        assertEquals(VersionChange.MinorUpgrade.class, up.getClass());
        assertTrue(up.warnings().stream().anyMatch(w -> w.contains("newest 3.4 patch")), up.warnings().toString());
    }

    @Test
    void anInterruptedMinorUpgradeResumesAndCanBeRolledBackWhileMixed() {
        VersionChange resumed = change("3.5.16", "3.4.23", "3.5.16", "3.4.23");
        assertInstanceOf(VersionChange.MinorUpgrade.class, resumed);
        // The plan says what state it found and both ways out of it; not the newest-patch advice of a fresh start.
        assertEquals(List.of("members run 3.4.23 and 3.5.16: a minor upgrade to 3.5 was left half-way and resumes member by"
                + " member; the cluster version stays 3.4 until every member runs 3.5, so until then setting etcd.version back"
                + " to 3.4.23 rolls it back instead"), resumed.warnings().stream().filter(w -> !w.contains("issues/19557")).toList());
        VersionChange back = change("3.4.23", "3.4.23", "3.5.16", "3.4.23");
        assertInstanceOf(VersionChange.MinorRollback.class, back);
        assertTrue(back.warnings().get(back.warnings().size() - 1).contains("cluster version is still 3.4"), back.warnings().toString());
    }

    @Test
    void skippingAMinorIsRefusedWithThePath() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.6.0", "3.4.23", "3.4.23"));
        assertTrue(refused.why().contains("one minor at a time"), refused.why());
        assertEquals("upgrade to a 3.5.x release first (apply), then to 3.6.0", refused.whatToDo());
    }

    @Test
    void aMinorStepFromBelowTheRequiredPatchIsRefusedWithThePatchToReachFirst() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.6.0", "3.5.16", "3.5.16", "3.5.16"));
        assertTrue(refused.whatToDo().startsWith("set etcd.version to 3.5.32 or newer first"), refused.whatToDo());
    }

    @Test
    void aMinorDowngradeIsRefusedWithTheRestorePathAndWhatARollingOneWouldNeed() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.4.23", "3.5.16", "3.5.16", "3.5.16"));
        assertTrue(refused.why().contains("needs 3.4.32 or newer, started with --next-cluster-version-compatible"), refused.why());
        assertTrue(refused.whatToDo().startsWith("take a backup, then restore it with etcd 3.4.23"), refused.whatToDo());
    }

    @Test
    void aMajorChangeIsRefused() {
        assertInstanceOf(VersionChange.Refused.class, change("4.0.0", "3.5.16"));
    }
}
