package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.spec.Version;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What etcdwright knows about etcd's versions, read from {@code etcd-versions.yaml} beside this
 * class: data, so that a new release or a newly known bug is one entry, not a code change.
 */
public record VersionCatalogue(Map<String, MinorLine> minors, List<KnownIssue> knownIssues) {

    /**
     * One minor release line (3.4, 3.5).
     *
     * @param bumpRevisionFrom the first patch whose restore tool takes {@code --bump-revision} and
     *                         {@code --mark-compacted}; empty when none of the line does
     * @param newestKnownPatch the newest patch this catalogue was written with, where probing a
     *                         release source for newer patches starts
     */
    public record MinorLine(String minor, String restoreTool, Version minimumPatchBeforeNextMinor,
                            Optional<Version> rollingDowngradeTo, Optional<Version> bumpRevisionFrom,
                            Optional<Version> newestKnownPatch, List<UpgradeCheck> upgradeChecks) {
        public MinorLine {
            upgradeChecks = List.copyOf(upgradeChecks);
        }

        /** Whether this version's restore tool can raise the revision and mark it compacted. */
        public boolean bumpsRevision(Version v) {
            return bumpRevisionFrom.map(v::isAtLeast).orElse(false);
        }
    }

    /** What etcd's upgrade guide asks to check before the minor step out of a line. */
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
            return java.util.Arrays.stream(values()).filter(c -> c.name.equals(text)).findFirst().orElseThrow(() ->
                    new IllegalStateException("etcd-versions.yaml: " + where + ": unknown upgrade check '" + text + "'"));
        }
    }

    /** The checks etcd's guide asks for before the minor step out of {@code from}'s line. */
    public List<UpgradeCheck> upgradeChecks(Version from) {
        return line(from).map(MinorLine::upgradeChecks).orElse(List.of());
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

    private static final VersionCatalogue BUILT_IN = load();

    public static VersionCatalogue builtIn() {
        return BUILT_IN;
    }

    public Optional<MinorLine> line(Version v) {
        return Optional.ofNullable(minors.get(v.major() + "." + v.minor()));
    }

    /** The known issues of a version. */
    public List<KnownIssue> issuesOf(Version v) {
        return knownIssues.stream().filter(i -> i.covers(v)).toList();
    }

    @SuppressWarnings("unchecked")
    private static VersionCatalogue load() {
        try (InputStream in = VersionCatalogue.class.getResourceAsStream("etcd-versions.yaml")) {
            if (in == null) {
                throw new IllegalStateException("etcd-versions.yaml is missing from the jar");
            }
            Map<String, Object> doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            Map<String, MinorLine> minors = new LinkedHashMap<>();
            ((Map<String, Map<String, Object>>) doc.get("minors")).forEach((minor, line) -> minors.put(minor,
                    new MinorLine(minor, (String) line.get("restoreTool"),
                            Version.parse((String) line.get("minimumPatchBeforeNextMinor")),
                            Optional.ofNullable((String) line.get("rollingDowngradeTo")).map(Version::parse),
                            Optional.ofNullable((String) line.get("bumpRevisionFrom")).map(Version::parse),
                            Optional.ofNullable((String) line.get("newestKnownPatch")).map(Version::parse),
                            ((List<String>) line.getOrDefault("upgradeChecks", List.of())).stream()
                                    .map(c -> UpgradeCheck.parse(c, "minors." + minor + ".upgradeChecks")).toList())));
            List<KnownIssue> issues = new ArrayList<>();
            for (Map<String, Object> issue : (List<Map<String, Object>>) doc.get("knownIssues")) {
                String severity = (String) issue.get("severity");
                if (!severity.equals("refuse") && !severity.equals("warn")) {
                    throw new IllegalStateException("etcd-versions.yaml: severity must be refuse or warn, got " + severity);
                }
                issues.add(new KnownIssue(Version.parse((String) issue.get("from")), Version.parse((String) issue.get("to")),
                        severity.equals("refuse"), (String) issue.get("why"), (String) issue.get("link")));
            }
            return new VersionCatalogue(Map.copyOf(minors), List.copyOf(issues));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
