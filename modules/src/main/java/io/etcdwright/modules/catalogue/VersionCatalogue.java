package io.etcdwright.modules.catalogue;

import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.spec.VersionRules;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What etcdwright knows about etcd's releases, read from {@code etcd-versions.yaml} beside this
 * class, answered as questions in etcd's own terms: which tool restores 3.6, which patch 3.6 must
 * reach before 3.7, whether this version still refuses an add while a voter is down, what 3.7 calls
 * a 3.5 setting. Modules ask; none compares versions itself. A new release, a newly known bug or a
 * renamed setting is one entry in the YAML.
 */
public final class VersionCatalogue implements VersionRules {

    /** A minor past its end of life: still operated (an upgrade source), warned about. */
    public record EndOfLife(Minor minor, String since, Version last, String link) {
    }

    /**
     * The tool that restores (and reads, {@code snapshot status}) a snapshot for one version.
     *
     * @param binary        etcdctl (3.4) or etcdutl (3.5 on; 3.6 removed etcdctl's restore)
     * @param env           what it must run with (3.4's etcdctl: ETCDCTL_API=3)
     * @param bumpsRevision whether it takes --bump-revision and --mark-compacted
     */
    public record SnapshotTool(String binary, Map<String, String> env, boolean bumpsRevision) {
        public SnapshotTool {
            env = Map.copyOf(env);
        }
    }

    /**
     * etcd's HTTP health endpoints on one version.
     *
     * @param livezAndReadyz        whether /livez and /readyz exist (else /health only)
     * @param readyzRefusesLearners whether /readyz answers 503 for a learner (its non_learner check):
     *                              a learner's readiness is then asked with /livez
     */
    public record HealthEndpoints(boolean livezAndReadyz, boolean readyzRefusesLearners) {
    }

    /** What etcd's upgrade guide asks to check before a minor step. */
    public enum UpgradeCheck {
        /** 3.4 -> 3.5: authentication off (3.5 cannot replay 3.4's auth entries). */
        AUTH_DISABLED("auth-disabled"),
        /** 3.5 -> 3.6: no custom content in the v2 store ({@code etcdutl check v2store} on every member). */
        V2STORE_CLEAN("v2store-clean"),
        /** 3.5 -> 3.6: no learner that should be a voter (a promotion 3.5 did not persist, #19557). */
        LEARNERS_PROMOTED("learners-promoted"),
        /** 3.5 -> 3.6: every member's list names the same members (no "zombie", #20967). */
        MEMBER_LISTS_AGREE("member-lists-agree");

        private final String name;

        UpgradeCheck(String name) {
            this.name = name;
        }

        public String yamlName() {
            return name;
        }

        static UpgradeCheck parse(String text, String where) {
            return Arrays.stream(values()).filter(c -> c.name.equals(text)).findFirst().orElseThrow(() ->
                    new IllegalStateException("etcd-versions.yaml: " + where + ": unknown upgrade check '" + text + "'"));
        }
    }

    /**
     * What each member needs, at its own turn in a minor step, before it may run the newer minor:
     * things the newer release cannot cope with in the member's own files, which no cluster-wide check
     * can clear.
     */
    public enum MemberPreparation {
        /**
         * 3.6 -> 3.7: a raft snapshot past every entry of the member's log etcd 3.5 may have written.
         * 3.5 proposes v2 requests (its members' attributes at each start, the cluster version); 3.7
         * replays the log from the newest snapshot at start and can no longer decode them
         * (etcd-io/etcd#21263: 'unmarshal should never fail', from apply.Apply), and a 3.6 member
         * snapshots only every snapshot-count (10,000) entries.
         */
        SNAPSHOT_PAST_V2_REQUESTS("snapshot-past-v2-requests");

        private final String name;

        MemberPreparation(String name) {
            this.name = name;
        }

        public String yamlName() {
            return name;
        }

        static MemberPreparation parse(String text, String where) {
            return Arrays.stream(values()).filter(c -> c.name.equals(text)).findFirst().orElseThrow(() ->
                    new IllegalStateException("etcd-versions.yaml: " + where + ": unknown member preparation '" + text + "'"));
        }
    }

    /**
     * A minor upgrade out of {@code from}, as etcd's guide describes it.
     *
     * @param minimumPatch     the patch every member must run first (X.Y.0 when the guide names none)
     * @param beforeEachMember what each member needs at its turn, before it runs {@code to}
     */
    public record UpgradeStep(Minor from, Minor to, Version minimumPatch, String guide, List<UpgradeCheck> checks,
                              List<MemberPreparation> beforeEachMember) {
        public UpgradeStep {
            checks = List.copyOf(checks);
            beforeEachMember = List.copyOf(beforeEachMember);
        }

        /** A step whose members need nothing of their own before they move. */
        public UpgradeStep(Minor from, Minor to, Version minimumPatch, String guide, List<UpgradeCheck> checks) {
            this(from, to, minimumPatch, guide, checks, List.of());
        }

        /** Whether the guide names a minimum patch (above X.Y.0). */
        public boolean requiresPatch() {
            return minimumPatch.patch() > 0;
        }
    }

    /** How a minor downgrade out of {@code from()} goes. */
    public sealed interface Downgrade {
        Minor from();

        Minor to();

        /**
         * Online, through etcd's downgrade API (3.6 on): validate, enable, wait until every member
         * reports the target storage version, then swap binaries one member at a time.
         */
        record ThroughApi(Minor from, Minor to, String guide) implements Downgrade {
        }

        /**
         * Offline: a verified snapshot restored with the older minor, every member down meanwhile.
         *
         * @param rollingFrom the first release of the older minor that could roll instead (started
         *                    with --next-cluster-version-compatible), when one exists
         */
        record ByRestore(Minor from, Minor to, Optional<Version> rollingFrom) implements Downgrade {
        }
    }

    /** Behaviour fixed in a patch of each line, asked by name ({@link #fixed}). */
    public enum Fix {
        /** Before the fix etcd refuses every member add while any voter is down ("unhealthy cluster"). */
        ADDS_WHILE_A_VOTER_IS_DOWN("adds-while-a-voter-is-down");

        private final String name;

        Fix(String name) {
            this.name = name;
        }
    }

    /** A fix: what it was, where it landed per line, and where it is explained. */
    public record FixNote(String what, Map<Minor, Version> fixedIn, String link) {
        public FixNote {
            fixedIn = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(fixedIn));
        }

        /** "3.5.30 / 3.6.11": the patches that brought it (a line fixed from its first release left out), for messages. */
        public String fixedInText() {
            return String.join(" / ", fixedIn.values().stream().filter(v -> v.patch() > 0).map(Version::toString).toList());
        }

        /** Where {@code v}'s line got the fix: "fixed in 3.6.11", or that its line never did. */
        public String whereFixedFor(Version v) {
            Version first = fixedIn.get(v.minorLine());
            return first != null ? "fixed in " + first : "no " + v.minorLine() + " release has the fix; " + fixedInText() + " do";
        }
    }

    /** A range of versions with a problem worth refusing or mentioning. */
    public record KnownIssue(Version from, Version to, boolean refuse, String why, String link) {
        public boolean covers(Version v) {
            return v.isAtLeast(from) && to.isAtLeast(v);
        }

        @Override
        public String toString() {
            return "etcd " + from + " to " + to + ": " + why + " (" + link + ")";
        }
    }

    private record Line(Minor minor, Optional<EndOfLife> endOfLife, Version newestKnownPatch, String restoreTool,
                        Map<String, String> restoreEnv, Version bumpRevisionFrom, Version livezReadyzFrom,
                        Optional<Version> readyzRefusesLearnersFrom, boolean gatewayOffInConfigFile,
                        Optional<UpgradeStep> upgrade, Optional<Downgrade> downgrade) {
    }

    private static final VersionCatalogue BUILT_IN = load();

    private final Map<Minor, Line> lines;
    private final Map<Fix, FixNote> fixes;
    private final List<KnownIssue> knownIssues;
    private final SettingsTable settings;

    private VersionCatalogue(Map<Minor, Line> lines, Map<Fix, FixNote> fixes, List<KnownIssue> knownIssues, SettingsTable settings) {
        this.lines = lines;
        this.fixes = fixes;
        this.knownIssues = knownIssues;
        this.settings = settings;
    }

    public static VersionCatalogue builtIn() {
        return BUILT_IN;
    }

    // ---- which releases ------------------------------------------------------------------------

    /** The minors etcdwright operates, oldest first. */
    public List<Minor> minors() {
        return List.copyOf(lines.keySet());
    }

    /** Why etcdwright does not operate {@code v}, if it does not: a minor older or newer than it knows. */
    public Optional<String> unsupported(Version v) {
        if (lines.containsKey(v.minorLine())) {
            return Optional.empty();
        }
        Minor oldest = minors().get(0);
        Minor newest = minors().get(minors().size() - 1);
        return Optional.of(v.minorLine().compareTo(oldest) < 0
                ? "etcd " + v + " is not supported: etcdwright operates etcd " + oldest + " to " + newest
                : "etcd " + v + " is newer than the releases this etcdwright knows (" + oldest + " to " + newest + "): their"
                + " settings, tools and upgrade rules are not in its catalogue; use a newer etcdwright");
    }

    public Optional<EndOfLife> endOfLife(Minor m) {
        return line(m).flatMap(Line::endOfLife);
    }

    /** The newest patch of {@code m} known when the catalogue was written: where asking a release source starts. */
    public Optional<Version> newestKnownPatch(Minor m) {
        return line(m).map(Line::newestKnownPatch);
    }

    /** The known problems of a version. */
    public List<KnownIssue> issuesOf(Version v) {
        return knownIssues.stream().filter(i -> i.covers(v)).toList();
    }

    public List<KnownIssue> knownIssues() {
        return knownIssues;
    }

    // ---- tools and endpoints -------------------------------------------------------------------

    /** The tool that restores a snapshot with {@code v}; empty for a minor etcdwright does not know. */
    public Optional<SnapshotTool> restoreTool(Version v) {
        return line(v.minorLine()).map(l -> new SnapshotTool(l.restoreTool(), l.restoreEnv(), v.isAtLeast(l.bumpRevisionFrom())));
    }

    /** The first patch of {@code m} whose restore tool bumps the revision. */
    public Optional<Version> bumpRevisionFrom(Minor m) {
        return line(m).map(Line::bumpRevisionFrom);
    }

    /** Which health endpoints {@code v} serves (none of /livez, /readyz for a version not known). */
    public HealthEndpoints health(Version v) {
        return line(v.minorLine()).map(l -> new HealthEndpoints(v.isAtLeast(l.livezReadyzFrom()),
                        l.readyzRefusesLearnersFrom().map(v::isAtLeast).orElse(false)))
                .orElse(new HealthEndpoints(false, false));
    }

    /**
     * Whether {@code v}'s etcd, started with a config file, serves its gRPC gateway only when the file
     * says {@code enable-grpc-gateway: true} (3.4): etcdwright asks etcd through the gateway, so the
     * config it writes for such a release says so.
     */
    public boolean gatewayNeedsEnabling(Version v) {
        return line(v.minorLine()).map(Line::gatewayOffInConfigFile).orElse(false);
    }

    // ---- version changes -----------------------------------------------------------------------

    /** The step from {@code from} to the next minor, when etcdwright knows that minor. */
    public Optional<UpgradeStep> upgradeFrom(Minor from) {
        return line(from).flatMap(Line::upgrade);
    }

    /** How a downgrade from {@code from} to the minor below goes, when etcdwright knows both. */
    public Optional<Downgrade> downgradeFrom(Minor from) {
        return line(from).flatMap(Line::downgrade);
    }

    /** Whether {@code v} has the fix: by its line's patch; a minor newer than every line listed has it. */
    public boolean fixed(Fix fix, Version v) {
        FixNote note = fix(fix);
        Version first = note.fixedIn().get(v.minorLine());
        if (first != null) {
            return v.isAtLeast(first);
        }
        return note.fixedIn().keySet().stream().allMatch(m -> v.minorLine().compareTo(m) > 0);
    }

    public FixNote fix(Fix fix) {
        return fixes.get(fix);
    }

    // ---- settings ------------------------------------------------------------------------------

    /**
     * The spec's etcd.settings as the binary of {@code readBy} reads them: every key as that
     * release spells it, booleans that became feature gates in its {@code feature-gates} string,
     * durations in nanoseconds; refusals for what it does not have. Config rendering passes the
     * version of the binary that will read the file (in a version change, members read different ones).
     */
    public ConfigSettings settingsFor(Version readBy, Map<String, Object> written) {
        return settings.render(readBy, written);
    }

    /**
     * The settings as a spec for {@code version} would write them: every key under the name that
     * release gives it, booleans that became feature gates in {@code feature-gates}, values as given
     * (import writes a hand-made cluster's flags so).
     */
    public ConfigSettings spelledFor(Version version, Map<String, Object> written) {
        return settings.render(version, written, false, false);
    }

    /**
     * What the config file of a member {@code readBy} runs holds beyond etcdwright's own keys: the
     * spec's settings ({@link #settingsFor}), and etcdwright's defaults (the catalogue's
     * {@code defaults}: etcd's data-corruption checks) for what they do not set under any name.
     */
    public ConfigSettings configFor(Version readBy, Map<String, Object> written) {
        return settings.render(readBy, written, true, true);
    }

    /** How etcd's config file holds {@code key} (any release that has it); empty for a key none has. */
    public Optional<SettingType> settingType(String key) {
        return settings.typeOf(key);
    }

    /** {@link VersionRules}: the version (not operated: an error; past its end of life: a warning) and its settings. */
    @Override
    public List<Finding> check(Version version, Map<String, Object> written) {
        Optional<String> unsupported = unsupported(version);
        if (unsupported.isPresent()) {
            return List.of(Finding.aboutVersion(true, unsupported.get()));
        }
        List<Finding> findings = new ArrayList<>();
        endOfLife(version.minorLine()).ifPresent(eol -> findings.add(Finding.aboutVersion(false, "etcd " + eol.minor()
                + " is past its end of life (since " + eol.since() + "; " + eol.last() + " was its last release, " + eol.link()
                + "): etcdwright still operates and upgrades it, but it gets no fixes; upgrade to " + eol.minor().next())));
        findings.addAll(settingsFor(version, written).findings());
        return findings;
    }

    private Optional<Line> line(Minor m) {
        return Optional.ofNullable(lines.get(m));
    }

    // ---- loading -------------------------------------------------------------------------------

    private static VersionCatalogue load() {
        try (InputStream in = VersionCatalogue.class.getResourceAsStream("etcd-versions.yaml")) {
            if (in == null) {
                throw new IllegalStateException("etcd-versions.yaml is missing from the jar");
            }
            return read(new Yaml(new SafeConstructor(new LoaderOptions())).load(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a catalogue document strictly (tests read their own). */
    static VersionCatalogue read(Object document) {
        StrictYaml doc = StrictYaml.of(document, "the document");
        Map<Minor, Line> lines = new LinkedHashMap<>();
        Map<Minor, StrictYaml> minorNodes = new LinkedHashMap<>();
        doc.mapping("minors").entries().forEach((text, node) -> {
            Minor m = Minor.tryParse(text).orElseThrow(() -> new IllegalStateException("etcd-versions.yaml: minors." + text
                    + " is not a minor X.Y"));
            if (!minorNodes.isEmpty() && !m.equals(List.copyOf(minorNodes.keySet()).get(minorNodes.size() - 1).next())) {
                throw new IllegalStateException("etcd-versions.yaml: minors must go up one at a time, oldest first; " + m
                        + " follows " + List.copyOf(minorNodes.keySet()).get(minorNodes.size() - 1));
            }
            minorNodes.put(m, node);
        });
        minorNodes.forEach((m, node) -> lines.put(m, line(m, node, minorNodes)));
        Map<Fix, FixNote> fixes = new LinkedHashMap<>();
        Map<String, StrictYaml> fixNodes = doc.mapping("fixes").entries();
        for (Fix fix : Fix.values()) {
            StrictYaml node = Optional.ofNullable(fixNodes.remove(fix.name)).orElseThrow(() ->
                    new IllegalStateException("etcd-versions.yaml: fixes." + fix.name + " is missing"));
            Map<Minor, Version> fixedIn = new LinkedHashMap<>();
            node.mapping("fixedIn").stringEntries().forEach((minor, patch) -> {
                Version v = Version.tryParse(patch).filter(p -> p.minorLine().toString().equals(minor)).orElseThrow(() ->
                        new IllegalStateException("etcd-versions.yaml: fixes." + fix.name + ".fixedIn." + minor
                                + " must be a patch of " + minor + ", got " + patch));
                fixedIn.put(v.minorLine(), v);
            });
            fixes.put(fix, new FixNote(node.string("what"), fixedIn, node.string("link")));
            node.done();
        }
        if (!fixNodes.isEmpty()) {
            throw new IllegalStateException("etcd-versions.yaml: fixes has unknown entries " + fixNodes.keySet());
        }
        List<KnownIssue> issues = new ArrayList<>();
        for (StrictYaml issue : doc.mappings("knownIssues")) {
            String severity = issue.string("severity");
            if (!severity.equals("refuse") && !severity.equals("warn")) {
                throw new IllegalStateException("etcd-versions.yaml: " + issue.where() + ".severity must be refuse or warn, got "
                        + severity);
            }
            issues.add(new KnownIssue(issue.version("from"), issue.version("to"), severity.equals("refuse"), issue.string("why"),
                    issue.string("link")));
            issue.done();
        }
        SettingsTable settings = SettingsTable.read(doc.mapping("settings"), doc.mapping("featureGates"),
                doc.mappings("defaults"), List.copyOf(lines.keySet()));
        doc.done();
        return new VersionCatalogue(java.util.Collections.unmodifiableMap(lines), Map.copyOf(fixes), List.copyOf(issues), settings);
    }

    private static Line line(Minor m, StrictYaml node, Map<Minor, StrictYaml> all) {
        Optional<EndOfLife> eol = node.optionalMapping("endOfLife").map(e -> {
            EndOfLife x = new EndOfLife(m, e.string("since"), e.version("last"), e.string("link"));
            e.done();
            return x;
        });
        Version newest = patchOf(m, node, "newestKnownPatch");
        StrictYaml restore = node.mapping("restore");
        String tool = restore.string("tool");
        Map<String, String> env = restore.optionalMapping("env").map(StrictYaml::stringEntries).orElse(Map.of());
        Version bump = patchOf(m, restore, "bumpRevisionFrom");
        restore.done();
        StrictYaml health = node.mapping("health");
        Version livez = patchOf(m, health, "livezReadyzFrom");
        Optional<Version> readyzLearners = health.optionalString("readyzRefusesLearnersFrom").map(x -> patchOf(m, health,
                "readyzRefusesLearnersFrom"));
        boolean gatewayOff = health.optionalBool("gatewayOffInConfigFile", false);
        health.done();
        Optional<UpgradeStep> upgrade = node.optionalMapping("upgrade").map(u -> {
            if (!all.containsKey(m.next())) {
                throw new IllegalStateException("etcd-versions.yaml: minors." + m + ".upgrade leads to " + m.next()
                        + ", which the catalogue does not have");
            }
            UpgradeStep step = new UpgradeStep(m, m.next(), patchOf(m, u, "minimumPatch"), u.string("guide"),
                    u.strings("checks").stream().map(c -> UpgradeCheck.parse(c, u.where())).toList(),
                    u.optionalStrings("beforeEachMember").orElse(List.of()).stream()
                            .map(p -> MemberPreparation.parse(p, u.where())).toList());
            u.done();
            return step;
        });
        if (upgrade.isEmpty() && all.containsKey(m.next())) {
            throw new IllegalStateException("etcd-versions.yaml: minors." + m + " has no upgrade to " + m.next());
        }
        Optional<Downgrade> downgrade = node.optionalMapping("downgrade").map(d -> {
            Minor to = m.previous().filter(all::containsKey).orElseThrow(() -> new IllegalStateException(
                    "etcd-versions.yaml: minors." + m + ".downgrade leads to a minor the catalogue does not have"));
            String method = d.string("method");
            Downgrade down = switch (method) {
                case "downgrade-api" -> new Downgrade.ThroughApi(m, to, d.string("guide"));
                case "restore" -> new Downgrade.ByRestore(m, to, d.optionalVersion("rollingFrom"));
                default -> throw new IllegalStateException("etcd-versions.yaml: " + d.where()
                        + ".method must be downgrade-api or restore, got " + method);
            };
            d.done();
            return down;
        });
        node.done();
        return new Line(m, eol, newest, tool, env, bump, livez, readyzLearners, gatewayOff, upgrade, downgrade);
    }

    private static Version patchOf(Minor m, StrictYaml node, String key) {
        Version v = node.version(key);
        if (!m.contains(v)) {
            throw new IllegalStateException("etcd-versions.yaml: " + node.where() + "." + key + " must be a patch of " + m
                    + ", got " + v);
        }
        return v;
    }
}
