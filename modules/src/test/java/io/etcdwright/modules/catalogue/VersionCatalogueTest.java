package io.etcdwright.modules.catalogue;

import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.spec.VersionRules.Finding;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionCatalogueTest {
    static final VersionCatalogue CATALOGUE = VersionCatalogue.builtIn();

    static Version v(String text) {
        return Version.parse(text);
    }

    static Minor m(String text) {
        return Minor.parse(text);
    }

    static Map<String, Object> settings(Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return out;
    }

    static List<String> messages(List<Finding> findings) {
        return findings.stream().map(f -> (f.error() ? "error " : "warning ") + f.setting().orElse("etcd.version") + ": "
                + f.message()).toList();
    }

    // ---- releases --------------------------------------------------------------------------------

    @Test
    void itOperatesFourMinorsAndRefusesWhatItDoesNotKnowEitherSide() {
        assertEquals(List.of(m("3.4"), m("3.5"), m("3.6"), m("3.7")), CATALOGUE.minors());
        assertEquals(Optional.empty(), CATALOGUE.unsupported(v("3.7.3")));
        assertEquals(Optional.empty(), CATALOGUE.unsupported(v("3.6.99")), "a patch newer than known is still 3.6");
        assertEquals(Optional.of("etcd 3.3.27 is not supported: etcdwright operates etcd 3.4 to 3.7"), CATALOGUE.unsupported(v("3.3.27")));
        assertTrue(CATALOGUE.unsupported(v("3.8.0")).orElseThrow().contains("newer than the releases this etcdwright knows"));
        assertTrue(CATALOGUE.unsupported(v("4.0.0")).isPresent());
    }

    @Test
    void threeFourIsPastItsEndOfLifeAndWarnedAboutNeverRefused() {
        List<Finding> found = CATALOGUE.check(v("3.4.23"), Map.of());
        assertEquals(1, found.size(), found.toString());
        assertFalse(found.get(0).error());
        assertTrue(found.get(0).message().startsWith("etcd 3.4 is past its end of life (since 2026-06-01; 3.4.45 was its last"
                + " release"), found.get(0).message());
        assertTrue(found.get(0).message().endsWith("upgrade to 3.5"), found.get(0).message());
        assertEquals(List.of(), CATALOGUE.check(v("3.5.33"), Map.of()));
        assertEquals(List.of(), CATALOGUE.check(v("3.7.3"), Map.of()));
        assertEquals(List.of("error etcd.version: etcd 3.3.27 is not supported: etcdwright operates etcd 3.4 to 3.7"),
                messages(CATALOGUE.check(v("3.3.27"), Map.of("heartbeat-interval", 100))));
    }

    @Test
    void theNewestPatchesTheProxyServesAreKnown() {
        assertEquals(Optional.of(v("3.4.45")), CATALOGUE.newestKnownPatch(m("3.4")));
        assertEquals(Optional.of(v("3.5.35")), CATALOGUE.newestKnownPatch(m("3.5")));
        assertEquals(Optional.of(v("3.6.16")), CATALOGUE.newestKnownPatch(m("3.6")));
        assertEquals(Optional.of(v("3.7.3")), CATALOGUE.newestKnownPatch(m("3.7")));
    }

    @Test
    void eachMinorRestoresWithItsOwnToolInItsOwnEnvironment() {
        assertEquals(new VersionCatalogue.SnapshotTool("etcdctl", Map.of("ETCDCTL_API", "3"), false),
                CATALOGUE.restoreTool(v("3.4.23")).orElseThrow());
        assertTrue(CATALOGUE.restoreTool(v("3.4.27")).orElseThrow().bumpsRevision());
        assertEquals(new VersionCatalogue.SnapshotTool("etcdutl", Map.of(), true), CATALOGUE.restoreTool(v("3.5.16")).orElseThrow());
        assertFalse(CATALOGUE.restoreTool(v("3.5.9")).orElseThrow().bumpsRevision());
        // 3.6 removed etcdctl snapshot restore and status.
        assertEquals(new VersionCatalogue.SnapshotTool("etcdutl", Map.of(), true), CATALOGUE.restoreTool(v("3.6.0")).orElseThrow());
        assertEquals(new VersionCatalogue.SnapshotTool("etcdutl", Map.of(), true), CATALOGUE.restoreTool(v("3.7.3")).orElseThrow());
        assertEquals(Optional.empty(), CATALOGUE.restoreTool(v("3.8.0")));
    }

    @Test
    void theUpgradeGuidesMinimumPatchesAndChecksPerStep() {
        VersionCatalogue.UpgradeStep to35 = CATALOGUE.upgradeFrom(m("3.4")).orElseThrow();
        assertEquals(m("3.5"), to35.to());
        assertFalse(to35.requiresPatch());
        assertEquals(List.of(VersionCatalogue.UpgradeCheck.AUTH_DISABLED), to35.checks());
        VersionCatalogue.UpgradeStep to36 = CATALOGUE.upgradeFrom(m("3.5")).orElseThrow();
        assertEquals(v("3.5.32"), to36.minimumPatch());
        assertEquals("https://etcd.io/docs/v3.6/upgrades/upgrade_3_6/", to36.guide());
        assertEquals(List.of(VersionCatalogue.UpgradeCheck.V2STORE_CLEAN, VersionCatalogue.UpgradeCheck.LEARNERS_PROMOTED,
                VersionCatalogue.UpgradeCheck.MEMBER_LISTS_AGREE), to36.checks());
        VersionCatalogue.UpgradeStep to37 = CATALOGUE.upgradeFrom(m("3.6")).orElseThrow();
        assertEquals(v("3.6.11"), to37.minimumPatch());
        assertEquals("https://etcd.io/docs/v3.7/upgrades/upgrade_3_7/", to37.guide());
        assertEquals(List.of(), to37.checks());
        // 3.7 cannot replay the v2 requests 3.5 left in a member's log: each member snapshots past them first.
        assertEquals(List.of(VersionCatalogue.MemberPreparation.SNAPSHOT_PAST_V2_REQUESTS), to37.beforeEachMember());
        assertEquals(List.of(), to36.beforeEachMember());
        assertEquals(List.of(), to35.beforeEachMember());
        assertEquals(Optional.empty(), CATALOGUE.upgradeFrom(m("3.7")));
    }

    @Test
    void threeSixAndThreeSevenDowngradeOnlineThreeFiveByRestore() {
        assertEquals(new VersionCatalogue.Downgrade.ThroughApi(m("3.7"), m("3.6"), "https://etcd.io/docs/v3.7/downgrades/downgrade_3_7/"),
                CATALOGUE.downgradeFrom(m("3.7")).orElseThrow());
        assertInstanceOf(VersionCatalogue.Downgrade.ThroughApi.class, CATALOGUE.downgradeFrom(m("3.6")).orElseThrow());
        assertEquals(new VersionCatalogue.Downgrade.ByRestore(m("3.5"), m("3.4"), Optional.of(v("3.4.32"))),
                CATALOGUE.downgradeFrom(m("3.5")).orElseThrow());
        assertEquals(Optional.empty(), CATALOGUE.downgradeFrom(m("3.4")));
    }

    @Test
    void aFixIsKnownPerLineSoThreeSixZeroIsNotFixedThoughNewerThanThreeFiveThirty() {
        VersionCatalogue.Fix adds = VersionCatalogue.Fix.ADDS_WHILE_A_VOTER_IS_DOWN;
        assertFalse(CATALOGUE.fixed(adds, v("3.4.45")));
        assertFalse(CATALOGUE.fixed(adds, v("3.5.29")));
        assertTrue(CATALOGUE.fixed(adds, v("3.5.30")));
        assertFalse(CATALOGUE.fixed(adds, v("3.6.0")));
        assertFalse(CATALOGUE.fixed(adds, v("3.6.10")));
        assertTrue(CATALOGUE.fixed(adds, v("3.6.11")));
        assertTrue(CATALOGUE.fixed(adds, v("3.7.0")));
        assertTrue(CATALOGUE.fixed(adds, v("3.8.0")), "a minor newer than every line listed has it");
        assertEquals("fixed in 3.6.11", CATALOGUE.fix(adds).whereFixedFor(v("3.6.3")));
        assertEquals("no 3.4 release has the fix; 3.5.30 / 3.6.11 do", CATALOGUE.fix(adds).whereFixedFor(v("3.4.23")));
    }

    @Test
    void healthEndpointsPerPatchAndReadyzRefusesLearnersFromThreeFiveNineteen() {
        assertEquals(new VersionCatalogue.HealthEndpoints(false, false), CATALOGUE.health(v("3.4.23")));
        assertEquals(new VersionCatalogue.HealthEndpoints(true, false), CATALOGUE.health(v("3.4.29")));
        assertEquals(new VersionCatalogue.HealthEndpoints(false, false), CATALOGUE.health(v("3.5.10")));
        assertEquals(new VersionCatalogue.HealthEndpoints(true, false), CATALOGUE.health(v("3.5.16")));
        assertEquals(new VersionCatalogue.HealthEndpoints(true, true), CATALOGUE.health(v("3.5.19")));
        assertEquals(new VersionCatalogue.HealthEndpoints(true, true), CATALOGUE.health(v("3.6.0")));
        assertEquals(new VersionCatalogue.HealthEndpoints(true, true), CATALOGUE.health(v("3.7.3")));
    }

    @Test
    void knownIssuesWarnAboutTheLearnerAndZombieBugsBeforeThreeSix() {
        List<VersionCatalogue.KnownIssue> old = CATALOGUE.issuesOf(v("3.5.16"));
        assertTrue(old.stream().anyMatch(i -> i.why().contains("too many learner members")), old.toString());
        assertTrue(old.stream().anyMatch(i -> i.why().contains("zombie")), old.toString());
        assertTrue(old.stream().noneMatch(VersionCatalogue.KnownIssue::refuse));
        assertEquals(List.of(), CATALOGUE.issuesOf(v("3.5.26")));
        assertTrue(CATALOGUE.issuesOf(v("3.5.1")).stream().anyMatch(VersionCatalogue.KnownIssue::refuse));
        assertEquals(List.of(), CATALOGUE.issuesOf(v("3.6.16")));
    }

    // ---- settings --------------------------------------------------------------------------------

    @Test
    void aThreeSixSettingThatThreeSevenRemovedIsRefusedWithItsReplacementNamed() {
        List<String> found = messages(CATALOGUE.check(v("3.7.3"), settings("experimental-compaction-batch-limit", 1000,
                "experimental-initial-corrupt-check", true)));
        assertEquals(List.of(
                "error experimental-compaction-batch-limit: etcd 3.7.3 no longer has experimental-compaction-batch-limit (etcd 3.7"
                        + " dropped it, and its config file would ignore it without a word): since etcd 3.6 it is"
                        + " compaction-batch-limit; write compaction-batch-limit instead",
                "error experimental-initial-corrupt-check: etcd 3.7.3 no longer has experimental-initial-corrupt-check (etcd 3.7"
                        + " dropped it, and its config file would ignore it without a word): since etcd 3.6 it is the feature gate"
                        + " InitialCorruptCheck; write feature-gates: \"InitialCorruptCheck=true\" (or =false) instead"), found);
    }

    @Test
    void onThreeSixAnOldNameIsWrittenUnderItsNewNameWithAWarningAndBooleansBecomeGates() {
        ConfigSettings on36 = CATALOGUE.settingsFor(v("3.6.16"), settings("experimental-compaction-batch-limit", 1000,
                "experimental-initial-corrupt-check", true, "experimental-stop-grpc-service-on-defrag", false,
                "heartbeat-interval", 100));
        assertEquals(List.of(), on36.errors());
        assertEquals(settings("compaction-batch-limit", 1000, "feature-gates", "InitialCorruptCheck=true,StopGRPCServiceOnDefrag=false",
                "heartbeat-interval", 100), on36.config());
        assertEquals(List.of(
                "warning experimental-compaction-batch-limit: etcd 3.6 renamed experimental-compaction-batch-limit to"
                        + " compaction-batch-limit (etcd 3.7 no longer reads the old name); etcdwright writes compaction-batch-limit"
                        + " for etcd 3.6.16: write compaction-batch-limit in the spec",
                "warning experimental-initial-corrupt-check: etcd 3.6 turned experimental-initial-corrupt-check into the feature"
                        + " gate InitialCorruptCheck (etcd 3.7 no longer reads the old name); etcdwright writes feature-gates:"
                        + " InitialCorruptCheck=true for etcd 3.6.16: write feature-gates: \"InitialCorruptCheck=true\" in the spec",
                "warning experimental-stop-grpc-service-on-defrag: etcd 3.6 turned experimental-stop-grpc-service-on-defrag into"
                        + " the feature gate StopGRPCServiceOnDefrag (etcd 3.7 no longer reads the old name); etcdwright writes"
                        + " feature-gates: StopGRPCServiceOnDefrag=false for etcd 3.6.16: write feature-gates:"
                        + " \"StopGRPCServiceOnDefrag=false\" in the spec"), messages(on36.findings()));
    }

    @Test
    void aSpecWrittenForThreeSixIsWrittenAsThreeFiveSpellsItForAThreeFiveBinary() {
        Map<String, Object> spec36 = settings("compaction-batch-limit", 1000, "feature-gates", "InitialCorruptCheck=true",
                "snapshot-catchup-entries", 5000, "watch-progress-notify-interval", "10m");
        ConfigSettings on35 = CATALOGUE.settingsFor(v("3.5.33"), spec36);
        assertEquals(List.of(), on35.findings());
        assertEquals(settings("experimental-compaction-batch-limit", 1000, "experimental-initial-corrupt-check", true,
                "experimental-snapshot-catch-up-entries", 5000, "experimental-watch-progress-notify-interval", 600_000_000_000L),
                on35.config());
        // The same spec on 3.7: every key as it is, the duration in nanoseconds as etcd's YAML takes it.
        assertEquals(settings("compaction-batch-limit", 1000, "feature-gates", "InitialCorruptCheck=true",
                "snapshot-catchup-entries", 5000, "watch-progress-notify-interval", 600_000_000_000L),
                CATALOGUE.settingsFor(v("3.7.3"), spec36).orThrow());
        // A 3.5 patch before the key existed says from which patch on.
        assertEquals(List.of("error snapshot-catchup-entries: etcd 3.5.13 does not have snapshot-catchup-entries: etcd 3.5 calls"
                        + " it experimental-snapshot-catch-up-entries from 3.5.14 on (set etcd.version to 3.5.14 or newer, or drop it)"),
                messages(CATALOGUE.settingsFor(v("3.5.13"), settings("snapshot-catchup-entries", 5000)).findings()));
    }

    @Test
    void anOldNameAndItsNewNameTogetherAreRefusedOnTheLaterOne() {
        assertEquals(List.of("error compaction-batch-limit: sets the same thing as experimental-compaction-batch-limit (etcd 3.6.16"
                        + " reads both as compaction-batch-limit, and etcd 3.6 refuses to start when an old name and its new name are"
                        + " both set): keep only one"),
                messages(CATALOGUE.settingsFor(v("3.6.16"), settings("experimental-compaction-batch-limit", 1,
                        "compaction-batch-limit", 2)).errors()));
        assertEquals(List.of("error feature-gates: sets the same thing as experimental-initial-corrupt-check (etcd 3.6.16 reads both"
                        + " as feature gate InitialCorruptCheck, and etcd 3.6 refuses to start when an old name and its new name are"
                        + " both set): keep only one"),
                messages(CATALOGUE.settingsFor(v("3.6.16"), settings("experimental-initial-corrupt-check", true,
                        "feature-gates", "InitialCorruptCheck=true")).errors()));
        // On 3.5 the same pair lands on one experimental key.
        assertEquals(1, CATALOGUE.settingsFor(v("3.5.33"), settings("experimental-compaction-batch-limit", 1,
                "compaction-batch-limit", 2)).errors().size());
    }

    @Test
    void featureGatesAreCheckedAgainstTheTargetsOwnGates() {
        assertEquals(List.of("error feature-gates: etcd 3.6.16 does not know the feature gate FastLeaseKeepAlive: it is new in etcd"
                        + " 3.7, and etcd refuses to start with a gate it does not know"),
                messages(CATALOGUE.settingsFor(v("3.6.16"), settings("feature-gates", "FastLeaseKeepAlive=false")).errors()));
        assertEquals(settings("feature-gates", "FastLeaseKeepAlive=false,InitialCorruptCheck=true"),
                CATALOGUE.settingsFor(v("3.7.3"), settings("feature-gates", List.of("InitialCorruptCheck=true",
                        "FastLeaseKeepAlive=false"))).orThrow());
        assertTrue(messages(CATALOGUE.settingsFor(v("3.7.3"), settings("feature-gates", "Bogus=true")).errors()).get(0)
                .contains("Bogus is not a feature gate of etcd 3.7.3 (its gates: CompactHashCheck, FastLeaseKeepAlive,"));
        assertTrue(messages(CATALOGUE.settingsFor(v("3.7.3"), settings("feature-gates", "InitialCorruptCheck")).errors()).get(0)
                .contains("'InitialCorruptCheck' is not Name=true or Name=false"));
        assertEquals(List.of("error feature-gates: etcd 3.5.33 has no feature gates, and SetMemberLocalAddr has no setting of its"
                        + " own in etcd 3.5.33"),
                messages(CATALOGUE.settingsFor(v("3.5.33"), settings("feature-gates", "SetMemberLocalAddr=true")).errors()));
    }

    @Test
    void aKeyNoReleaseReadsIsRefusedBecauseEtcdWouldIgnoreItWithoutAWord() {
        assertEquals(List.of("error heartbeat-intervall: is not a setting of etcd 3.6.16: etcd's config file would ignore it without"
                        + " a word (did you mean heartbeat-interval?)"),
                messages(CATALOGUE.check(v("3.6.16"), settings("heartbeat-intervall", 100))));
        assertEquals(List.of("error totally-made-up: is not a setting of etcd 3.5.16: etcd's config file would ignore it without a"
                        + " word"), messages(CATALOGUE.check(v("3.5.16"), settings("totally-made-up", 1))).subList(0, 1));
    }

    @Test
    void aKeyNewInALaterMinorOrDroppedEarlierSaysSo() {
        assertEquals(List.of("error max-learners: etcd 3.5.33 does not have max-learners: it is new in etcd 3.6 (its config file"
                        + " would ignore it without a word)"),
                messages(CATALOGUE.settingsFor(v("3.5.33"), settings("max-learners", 2)).errors()));
        assertTrue(messages(CATALOGUE.settingsFor(v("3.6.16"), settings("enable-v2", false)).errors()).get(0)
                .contains("etcd 3.6.16 no longer has enable-v2 (etcd 3.6 dropped it"));
        assertTrue(messages(CATALOGUE.settingsFor(v("3.5.16"), settings("debug", true)).errors()).get(0)
                .endsWith("set log-level: debug"));
        assertTrue(messages(CATALOGUE.settingsFor(v("3.4.23"), settings("listen-client-http-urls", "x")).errors()).get(0)
                .contains("it came in 3.4.25"));
    }

    @Test
    void valuesTakeTheFormEtcdsYamlReads() {
        Map<String, Object> config = CATALOGUE.settingsFor(v("3.6.16"), settings("auto-compaction-retention", 1,
                "log-outputs", "stderr", "cors", List.of("https://a", "https://b"), "grpc-keepalive-interval", "1m30s",
                "backend-batch-interval", 100_000_000, "snapshot-count", 10000)).orThrow();
        assertEquals("1", config.get("auto-compaction-retention"), "etcd's YAML refuses a number for a string key");
        assertEquals(List.of("stderr"), config.get("log-outputs"));
        assertEquals("https://a,https://b", config.get("cors"));
        assertEquals(90_000_000_000L, config.get("grpc-keepalive-interval"));
        assertEquals(100_000_000, config.get("backend-batch-interval"));
        assertEquals(10000, config.get("snapshot-count"));
        assertEquals(List.of("error grpc-keepalive-interval: must be a duration like 100ms, 5s or 1m30s (or whole nanoseconds, as"
                        + " etcd's config file takes it), got string 'soon'"),
                messages(CATALOGUE.settingsFor(v("3.6.16"), settings("grpc-keepalive-interval", "soon")).errors()));
        assertEquals(List.of("error pre-vote: must be true or false, got string 'yes'"),
                messages(CATALOGUE.settingsFor(v("3.6.16"), settings("pre-vote", "yes")).errors()));
        assertThrows(IllegalStateException.class, () -> CATALOGUE.settingsFor(v("3.6.16"), settings("pre-vote", "yes")).orThrow());
    }

    @Test
    void goDurationsAreReadAsGoReadsThem() {
        assertEquals(Optional.of(0L), SettingsTable.nanoseconds("0"));
        assertEquals(Optional.of(1_500_000_000L), SettingsTable.nanoseconds("1.5s"));
        assertEquals(Optional.of(3_723_000_000_000L), SettingsTable.nanoseconds("1h2m3s"));
        assertEquals(Optional.of(250_000L), SettingsTable.nanoseconds("250us"));
        for (String bad : List.of("", "5", "s", "5 s", "-5s", "5sec", "1h2")) {
            assertEquals(Optional.empty(), SettingsTable.nanoseconds(bad), bad);
        }
    }

    @Test
    void importSpellsAHandMadeMembersFlagsAsItsReleaseDoesAndKeepsValuesAsGiven() {
        ConfigSettings spelled = CATALOGUE.spelledFor(v("3.6.16"), settings("experimental-watch-progress-notify-interval", "10m",
                "experimental-enable-lease-checkpoint", true));
        assertEquals(settings("watch-progress-notify-interval", "10m", "feature-gates", "LeaseCheckpoint=true"), spelled.config());
    }

    // ---- etcdwright's defaults -----------------------------------------------------------------

    private static final String CHECKS = "etcd's data-corruption checks on by default (etcd.settings can turn them off)";

    @Test
    void theCorruptionChecksAreOnInEveryConfigFileAsEachReleaseSpellsThem() {
        // 3.4 and 3.5 before 3.5.5: the initial check only (the compaction hash check came in 3.5.5).
        assertEquals(settings("experimental-initial-corrupt-check", true), CATALOGUE.configFor(v("3.4.45"), Map.of()).config());
        assertEquals(settings("experimental-initial-corrupt-check", true), CATALOGUE.configFor(v("3.5.4"), Map.of()).config());
        assertEquals(settings("experimental-compact-hash-check-enabled", true, "experimental-initial-corrupt-check", true),
                CATALOGUE.configFor(v("3.5.5"), Map.of()).config());
        // 3.6 and 3.7: the feature gates (3.7 reads no experimental key), merged with the spec's own gates.
        for (String version : List.of("3.6.0", "3.6.16", "3.7.3")) {
            ConfigSettings config = CATALOGUE.configFor(v(version), Map.of());
            assertEquals(settings("feature-gates", "CompactHashCheck=true,InitialCorruptCheck=true"), config.config(), version);
            assertEquals(List.of(CHECKS), config.defaults());
            assertEquals(List.of(), config.findings());
        }
        assertEquals(settings("feature-gates", "CompactHashCheck=true,InitialCorruptCheck=true,LeaseCheckpoint=true"),
                CATALOGUE.configFor(v("3.6.16"), settings("feature-gates", "LeaseCheckpoint=true")).config());
        // The spec's settings alone (validate, import) carry no defaults.
        assertEquals(Map.of(), CATALOGUE.settingsFor(v("3.6.16"), Map.of()).config());
        assertEquals(List.of(), CATALOGUE.settingsFor(v("3.6.16"), Map.of()).defaults());
    }

    @Test
    void theSpecTurnsACheckOffUnderAnyNameItsReleaseReads() {
        // The gate on 3.6, the experimental key (read as the gate, with its warning) on 3.6, the gate on 3.5.
        assertEquals(settings("feature-gates", "CompactHashCheck=true,InitialCorruptCheck=false"),
                CATALOGUE.configFor(v("3.6.16"), settings("feature-gates", "InitialCorruptCheck=false")).config());
        ConfigSettings old = CATALOGUE.configFor(v("3.6.16"), settings("experimental-compact-hash-check-enabled", false));
        assertEquals(settings("feature-gates", "CompactHashCheck=false,InitialCorruptCheck=true"), old.config());
        assertEquals(List.of(), old.errors());
        assertEquals(settings("experimental-compact-hash-check-enabled", false, "experimental-initial-corrupt-check", true),
                CATALOGUE.configFor(v("3.5.33"), settings("feature-gates", "CompactHashCheck=false")).config());
        // Both off: nothing of etcdwright's is written, and no reason is given for it.
        ConfigSettings off = CATALOGUE.configFor(v("3.5.33"), settings("experimental-initial-corrupt-check", false,
                "experimental-compact-hash-check-enabled", false));
        assertEquals(settings("experimental-compact-hash-check-enabled", false, "experimental-initial-corrupt-check", false),
                off.config());
        assertEquals(List.of(), off.defaults());
        // A 3.5 spec that turned one off keeps it off once its members run 3.6 (the upgrade's translation).
        assertEquals(settings("feature-gates", "CompactHashCheck=true,InitialCorruptCheck=false"),
                CATALOGUE.configFor(v("3.6.16"), settings("experimental-initial-corrupt-check", false)).config());
    }

    @Test
    void aDefaultNamingAGateTheCatalogueDoesNotHaveStopsTheLoad() {
        String doc = """
                minors:
                  "3.6":
                    newestKnownPatch: "3.6.16"
                    restore: {tool: etcdutl, bumpRevisionFrom: "3.6.0"}
                    health: {livezReadyzFrom: "3.6.0"}
                fixes:
                  adds-while-a-voter-is-down: {what: x, fixedIn: {"3.6": "3.6.11"}, link: y}
                knownIssues: []
                settings:
                  feature-gates: {type: gates, in: "3.6-"}
                featureGates:
                  InitialCorruptCheck: {in: "3.6-", default: false}
                defaults:
                  - {why: w, link: l, gates: {InitialCorruptChek: true}}
                """;
        assertTrue(assertThrows(IllegalStateException.class, () -> VersionCatalogue.read(new Yaml().load(doc))).getMessage()
                .contains("defaults[0].gates names InitialCorruptChek, which featureGates does not have"));
        assertEquals(settings("feature-gates", "InitialCorruptCheck=true"), VersionCatalogue.read(new Yaml().load(
                doc.replace("InitialCorruptChek", "InitialCorruptCheck"))).configFor(v("3.6.16"), Map.of()).config());
    }

    // ---- the YAML itself -------------------------------------------------------------------------

    @Test
    void theCatalogueIsReadStrictlySoATypoStopsTheBuildInsteadOfTurningARuleOff() {
        String good = """
                minors:
                  "3.6":
                    newestKnownPatch: "3.6.16"
                    restore: {tool: etcdutl, bumpRevisionFrom: "3.6.0"}
                    health: {livezReadyzFrom: "3.6.0"}
                fixes:
                  adds-while-a-voter-is-down: {what: x, fixedIn: {"3.6": "3.6.11"}, link: y}
                knownIssues: []
                settings:
                  heartbeat-interval: {type: int, in: "3.6-"}
                featureGates: {}
                defaults: []
                """;
        VersionCatalogue small = VersionCatalogue.read(new Yaml().load(good));
        assertEquals(List.of(m("3.6")), small.minors());
        assertTrue(assertThrows(IllegalStateException.class, () -> VersionCatalogue.read(new Yaml().load(
                good.replace("newestKnownPatch", "newestKnownPach")))).getMessage().contains("newestKnownPatch is missing"));
        assertTrue(assertThrows(IllegalStateException.class, () -> VersionCatalogue.read(new Yaml().load(
                good.replace("bumpRevisionFrom: \"3.6.0\"", "bumpRevisionFrom: \"3.6.0\", extra: 1")))).getMessage()
                .contains("unknown key 'extra'"));
        assertTrue(assertThrows(IllegalStateException.class, () -> VersionCatalogue.read(new Yaml().load(
                good.replace("newestKnownPatch: \"3.6.16\"", "newestKnownPatch: \"3.5.16\"")))).getMessage()
                .contains("must be a patch of 3.6"));
        assertTrue(assertThrows(IllegalStateException.class, () -> VersionCatalogue.read(new Yaml().load(
                good.replace("{type: int, in: \"3.6-\"}", "{type: int, in: \"3.6\", renamed: {in: \"3.6\", to: nowhere}}"))))
                .getMessage().contains("renamed to nowhere, which the table does not have"));
    }
}
