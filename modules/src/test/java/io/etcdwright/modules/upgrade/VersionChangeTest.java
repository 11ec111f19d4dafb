package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionChangeTest {
    static final VersionCatalogue CATALOGUE = VersionCatalogue.builtIn();

    static VersionChange change(String target, String... held) {
        return VersionChange.of(Arrays.stream(held).map(Version::parse).toList(), Version.parse(target), CATALOGUE);
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
        assertTrue(up.warnings().stream().anyMatch(w -> w.contains("newest 3.4 patch")
                && w.contains("the artifact source offers no newer 3.4 patch")), up.warnings().toString());
    }

    @Test
    void anInterruptedMinorUpgradeResumesAndCanBeRolledBackWhileMixed() {
        assertInstanceOf(VersionChange.MinorUpgrade.class, change("3.5.16", "3.4.23", "3.5.16", "3.4.23"));
        VersionChange back = change("3.4.23", "3.4.23", "3.5.16", "3.4.23");
        assertInstanceOf(VersionChange.MinorRollback.class, back);
        assertTrue(back.warnings().get(back.warnings().size() - 1).contains("cluster version is still 3.4"), back.warnings().toString());
    }

    @Test
    void skippingAMinorIsRefusedWithThePath() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.6.0", "3.4.23", "3.4.23"));
        assertTrue(refused.why().contains("one minor at a time"), refused.why());
        assertEquals("take the path 3.4.23 -> newest 3.4 patch -> 3.5.32 or newer -> 3.6.0, one apply per step",
                refused.whatToDo());
    }

    @Test
    void aMinorStepFromBelowTheRequiredPatchIsRefusedWithThePatchToReachFirst() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.6.0", "3.5.16", "3.5.16", "3.5.16"));
        assertTrue(refused.whatToDo().startsWith("set etcd.version to 3.5.32 or newer first"), refused.whatToDo());
    }

    @Test
    void aMinorDowngradeGoesThroughRestoreAndSaysWhatARollingOneWouldNeed() {
        VersionChange.MinorDowngrade down = assertInstanceOf(VersionChange.MinorDowngrade.class,
                change("3.4.23", "3.5.16", "3.5.16", "3.5.16"));
        assertEquals(Version.parse("3.5.16"), down.from());
        assertEquals(Version.parse("3.4.32"), down.rollingFrom().orElseThrow());
        assertTrue(down.whyNotRolling().contains("needs 3.4.32 or newer, started with --next-cluster-version-compatible"),
                down.whyNotRolling());
        assertEquals(Version.parse("3.4.23"), down.installs().orElseThrow());
    }

    @Test
    void twoMinorsDownIsRefused() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.4.23", "3.6.0", "3.6.0"));
        assertTrue(refused.whatToDo().startsWith("downgrade to a 3.5.x release first"), refused.whatToDo());
    }

    @Test
    void aMinorUpgradeFirstHopsToTheNewestPatchTheSourceOffers() {
        VersionChange hop = VersionChange.of(List.of(Version.parse("3.4.23"), Version.parse("3.4.23")), Version.parse("3.5.16"),
                CATALOGUE, v -> v.minor() == 4 ? Optional.of(Version.parse("3.4.35")) : Optional.empty());
        VersionChange.Patch patch = assertInstanceOf(VersionChange.Patch.class, hop);
        assertEquals(Version.parse("3.4.35"), patch.to());
        assertEquals(Version.parse("3.5.16"), patch.thenTo().orElseThrow());
        assertEquals(Version.parse("3.4.35"), hop.installs().orElseThrow());
        assertTrue(hop.warnings().stream().anyMatch(w -> w.contains("the next apply upgrades them to 3.5.16")), hop.warnings().toString());
        // Once there, the minor step itself; and a mixed state resumes without another hop.
        assertInstanceOf(VersionChange.MinorUpgrade.class, VersionChange.of(List.of(Version.parse("3.4.35")),
                Version.parse("3.5.16"), CATALOGUE, v -> Optional.empty()));
        assertInstanceOf(VersionChange.MinorUpgrade.class, VersionChange.of(List.of(Version.parse("3.4.23"), Version.parse("3.5.16")),
                Version.parse("3.5.16"), CATALOGUE, v -> Optional.of(Version.parse("3.4.35"))));
    }

    @Test
    void aHopToAKnownBadPatchIsNotTaken() {
        VersionChange up = VersionChange.of(List.of(Version.parse("3.5.0")), Version.parse("3.6.0"), CATALOGUE,
                v -> Optional.of(Version.parse("3.5.2")));
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, up);
        assertTrue(refused.whatToDo().startsWith("set etcd.version to 3.5.32"), refused.whatToDo());
        assertTrue(up.warnings().stream().anyMatch(w -> w.contains("offers 3.5.2 but it has a known problem")), up.warnings().toString());
    }

    @Test
    void theProbeFindsTheNewestOfferedPatchBelowAndAboveTheCataloguesNewest() {
        List<Version> asked = new java.util.ArrayList<>();
        PatchProbe sparseMirror = new PatchProbe(CATALOGUE, v -> {
            asked.add(v);
            return v.equals(Version.parse("3.4.27"));
        });
        assertEquals(Optional.of(Version.parse("3.4.27")), sparseMirror.newestAfter(Version.parse("3.4.23")));
        assertEquals(Version.parse("3.4.45"), asked.get(0));
        PatchProbe upstream = new PatchProbe(CATALOGUE, v -> v.patch() <= 39);
        assertEquals(Optional.of(Version.parse("3.4.39")), upstream.newestAfter(Version.parse("3.4.23")));
        assertEquals(Optional.empty(), new PatchProbe(CATALOGUE, v -> false).newestAfter(Version.parse("3.4.23")));
        assertEquals(Optional.of(Version.parse("3.5.40")), new PatchProbe(CATALOGUE, v -> v.patch() <= 40)
                .newestAfter(Version.parse("3.5.35")));
    }

    @Test
    void aMajorChangeIsRefused() {
        assertInstanceOf(VersionChange.Refused.class, change("4.0.0", "3.5.16"));
    }
}
