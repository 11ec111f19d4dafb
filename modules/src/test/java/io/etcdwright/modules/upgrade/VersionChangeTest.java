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
    void aDowngradeOutOf36OrNewerGoesOnlineThroughEtcdsDowngradeApi() {
        VersionChange.OnlineMinorDowngrade down = assertInstanceOf(VersionChange.OnlineMinorDowngrade.class,
                change("3.5.35", "3.6.16", "3.6.16", "3.6.16"));
        assertEquals(Version.parse("3.6.16"), down.from());
        assertEquals(Version.parse("3.5.35"), down.installs().orElseThrow());
        assertTrue(down.warnings().isEmpty(), down.warnings().toString());
        assertInstanceOf(VersionChange.OnlineMinorDowngrade.class, change("3.6.16", "3.7.3", "3.7.3", "3.7.3"));
        // 3.5 has no downgrade API to offer: out of it, a restore (with the downtime allowed).
        assertInstanceOf(VersionChange.MinorDowngrade.class, change("3.4.23", "3.5.35", "3.5.35", "3.5.35"));
    }

    @Test
    void anOnlineDowngradeBelowThePatchAWayBackNeedsSaysSo() {
        VersionChange.OnlineMinorDowngrade down = assertInstanceOf(VersionChange.OnlineMinorDowngrade.class,
                change("3.5.30", "3.6.16", "3.6.16", "3.6.16"));
        assertEquals(List.of("etcd 3.5.30 is older than 3.5.32, the patch etcd requires before upgrading to 3.6 again: a way"
                + " back would first move the members to 3.5.32 or newer"), down.warnings());
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
        assertTrue(hop.warnings().stream().anyMatch(w -> w.contains("this plan first moves the members to 3.4.35 (offered by the"
                + " artifact source), then upgrades them to 3.5.16")), hop.warnings().toString());
        // One plan carries both hops: the minor step from the patch the hop reaches.
        assertEquals(new VersionChange.MinorUpgrade(Version.parse("3.4.35"), Version.parse("3.5.16"), List.of()),
                patch.minorAfter().orElseThrow());
        // Once there, the minor step itself; and a mixed state resumes without another hop.
        assertInstanceOf(VersionChange.MinorUpgrade.class, VersionChange.of(List.of(Version.parse("3.4.35")),
                Version.parse("3.5.16"), CATALOGUE, v -> Optional.empty()));
        assertInstanceOf(VersionChange.MinorUpgrade.class, VersionChange.of(List.of(Version.parse("3.4.23"), Version.parse("3.5.16")),
                Version.parse("3.5.16"), CATALOGUE, v -> Optional.of(Version.parse("3.4.35"))));
    }

    @Test
    void theStepTo36HopsToTheRequiredPatchFirstInTheSamePlan() {
        VersionChange hop = VersionChange.of(List.of(v("3.5.16"), v("3.5.16"), v("3.5.16")), v("3.6.16"), CATALOGUE,
                offering("3.5.35"));
        VersionChange.Patch patch = assertInstanceOf(VersionChange.Patch.class, hop);
        assertEquals(v("3.5.35"), patch.to());
        assertEquals(new VersionChange.MinorUpgrade(v("3.5.35"), v("3.6.16"), List.of()), patch.minorAfter().orElseThrow());
        assertTrue(hop.warnings().stream().anyMatch(w -> w.startsWith("etcd requires 3.5.32 or newer before 3.6 and advises the"
                + " newest 3.5 patch: this plan first moves the members to 3.5.35")), hop.warnings().toString());
        // Killed during the hop: the same two steps from where it stopped, without asking the source again.
        VersionChange.Patch resumed = assertInstanceOf(VersionChange.Patch.class, VersionChange.of(List.of(v("3.5.35"), v("3.5.16"),
                v("3.5.16")), v("3.6.16"), CATALOGUE, VersionChange.PatchOffers.NONE));
        assertEquals(v("3.5.16"), resumed.from());
        assertEquals(v("3.5.35"), resumed.to());
        assertTrue(resumed.warnings().stream().anyMatch(w -> w.contains("(the newest a member runs)")), resumed.warnings().toString());
        // Killed during the minor step: the rest of it; or back, member by member, while a member runs 3.5.
        VersionChange.MinorUpgrade rest = assertInstanceOf(VersionChange.MinorUpgrade.class,
                VersionChange.of(List.of(v("3.5.35"), v("3.6.16"), v("3.5.35")), v("3.6.16"), CATALOGUE, offering("3.5.36")));
        assertEquals(v("3.5.35"), rest.from());
        assertTrue(rest.warnings().get(0).contains("this plan moves the rest to 3.6.16"), rest.warnings().toString());
        assertInstanceOf(VersionChange.MinorRollback.class, change("3.5.35", "3.5.35", "3.6.16", "3.5.35"));
        // On the required patch already, with nothing newer offered: the minor step alone.
        assertEquals(VersionChange.MinorUpgrade.class, VersionChange.of(List.of(v("3.5.32")), v("3.6.16"), CATALOGUE,
                VersionChange.PatchOffers.NONE).getClass());
    }

    @Test
    void aHopThatWouldStayBelowTheRequiredPatchIsRefusedSayingWhatToMakeAvailable() {
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, VersionChange.of(List.of(v("3.5.16"),
                v("3.5.16")), v("3.6.16"), CATALOGUE, offering("3.5.30")));
        assertTrue(refused.why().contains("the newest 3.5 patch the artifact source offers or a member runs is 3.5.30"),
                refused.why());
        assertTrue(refused.whatToDo().startsWith("make a 3.5.32 or newer release available at the artifact source"),
                refused.whatToDo());
    }

    @Test
    void theStepTo37NeedsThe36PatchItsGuideNames() {
        VersionChange.Patch hop = assertInstanceOf(VersionChange.Patch.class, VersionChange.of(List.of(v("3.6.5"), v("3.6.5")),
                v("3.7.3"), CATALOGUE, offering("3.6.16")));
        assertEquals(v("3.6.16"), hop.to());
        assertEquals(v("3.7.3"), hop.minorAfter().orElseThrow().to());
        assertTrue(hop.warnings().stream().anyMatch(w -> w.startsWith("etcd requires 3.6.11 or newer before 3.7")),
                hop.warnings().toString());
        VersionChange.Refused refused = assertInstanceOf(VersionChange.Refused.class, change("3.7.3", "3.6.5", "3.6.5"));
        assertTrue(refused.whatToDo().startsWith("set etcd.version to 3.6.11 or newer first"), refused.whatToDo());
        assertEquals(VersionChange.MinorUpgrade.class, change("3.7.3", "3.6.16", "3.6.16").getClass());
    }

    @Test
    void theCatalogueNamesTheChecksBeforeEachMinorStep() {
        assertEquals(List.of(VersionCatalogue.UpgradeCheck.AUTH_DISABLED), checks("3.4.23"));
        assertEquals(List.of(VersionCatalogue.UpgradeCheck.V2STORE_CLEAN, VersionCatalogue.UpgradeCheck.LEARNERS_PROMOTED,
                VersionCatalogue.UpgradeCheck.MEMBER_LISTS_AGREE), checks("3.5.35"));
        assertEquals(List.of(), checks("3.6.16"));
    }

    static List<VersionCatalogue.UpgradeCheck> checks(String from) {
        return CATALOGUE.upgradeFrom(v(from).minorLine()).orElseThrow().checks();
    }

    static Version v(String text) {
        return Version.parse(text);
    }

    static VersionChange.PatchOffers offering(String newest) {
        Version offered = Version.parse(newest);
        return current -> current.minor() == offered.minor() && offered.compareTo(current) > 0 ? Optional.of(offered)
                : Optional.empty();
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
