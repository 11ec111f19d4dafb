package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.spec.Version;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What changing the members' etcd to the spec's version means, decided from the versions the
 * members hold now: nothing, a patch change (up or down, rolled member by member), a minor upgrade
 * (one minor, rolled member by member, leader last; resumed from a mixed state), or a refusal
 * that says which path would work. etcd's rules (etcd-operations.md §4): one minor at a time;
 * a minor downgrade of 3.5 to a 3.4 before 3.4.32 cannot roll and needs snapshot and restore.
 */
public sealed interface VersionChange {

    /** Warnings from the catalogue about the target (known issues). */
    List<String> warnings();

    record Unchanged(List<String> warnings) implements VersionChange {
    }

    record Patch(Version from, Version to, List<String> warnings) implements VersionChange {
    }

    record MinorUpgrade(Version from, Version to, List<String> warnings) implements VersionChange {
    }

    /**
     * Back to the older minor from an upgrade that did not finish: possible while some member still
     * runs the older minor, because the cluster version moves only once every member runs the newer.
     */
    record MinorRollback(Version from, Version to, List<String> warnings) implements VersionChange {
    }

    record Refused(String why, String whatToDo, List<String> warnings) implements VersionChange {
    }

    /**
     * @param held   the versions the members hold data of now (running or installed), one per member
     *               that has data; empty for a new cluster
     * @param target the spec's version
     */
    static VersionChange of(List<Version> held, Version target, VersionCatalogue catalogue) {
        List<String> warnings = new ArrayList<>();
        for (VersionCatalogue.KnownIssue issue : catalogue.issuesOf(target)) {
            if (issue.refuse()) {
                return new Refused("etcd " + target + " has a known problem: " + issue, "choose another patch release of "
                        + target.major() + "." + target.minor(), List.of());
            }
            warnings.add(issue.toString());
        }
        if (held.isEmpty() || held.stream().allMatch(target::equals)) {
            // A new cluster or no change: the catalogue's warnings are about moving to a version, not staying.
            return new Unchanged(List.of());
        }
        Version oldest = held.stream().min(Comparator.naturalOrder()).orElseThrow();
        Version newest = held.stream().max(Comparator.naturalOrder()).orElseThrow();
        if (oldest.major() != target.major() || newest.major() != target.major()) {
            return new Refused("a major version change (" + oldest + " to " + target + ")", "no such path is known", warnings);
        }
        int minorsBelow = target.minor() - oldest.minor();
        if (newest.minor() == target.minor() + 1 && oldest.minor() == target.minor()) {
            warnings.add("members run " + oldest + " and " + newest + ": the cluster version is still " + target.major() + "."
                    + target.minor() + ", so the upgrade can be rolled back member by member");
            return new MinorRollback(newest, target, warnings);
        }
        if (newest.minor() > target.minor()) {
            return minorDowngrade(newest, target, catalogue, warnings);
        }
        if (minorsBelow == 0) {
            return new Patch(newest.equals(target) ? oldest : newest, target, warnings);
        }
        if (minorsBelow > 1) {
            Version next = new Version(oldest.major(), oldest.minor() + 1, 0);
            return new Refused("etcd upgrades one minor at a time, and " + oldest + " to " + target + " skips "
                    + (minorsBelow - 1) + " minor release(s)", "upgrade to a " + next.major() + "." + next.minor()
                    + ".x release first (apply), then to " + target, warnings);
        }
        Optional<VersionCatalogue.MinorLine> line = catalogue.line(oldest);
        if (line.isPresent() && !oldest.isAtLeast(line.get().minimumPatchBeforeNextMinor())) {
            return new Refused("etcd " + oldest + " is older than " + line.get().minimumPatchBeforeNextMinor()
                    + ", the patch etcd requires before upgrading to " + target.major() + "." + target.minor(),
                    "set etcd.version to " + line.get().minimumPatchBeforeNextMinor() + " or newer first (apply), then to "
                            + target, warnings);
        }
        if (newest.minor() == target.minor()) {
            // Some members run the new minor already: an upgrade was interrupted between members. The
            // newest-patch advice is moot now (the old minor's members leave it by this very change).
            warnings.add("members run " + oldest + " and " + newest + ": a minor upgrade to " + target.major() + "."
                    + target.minor() + " was left half-way and resumes member by member; the cluster version stays "
                    + oldest.major() + "." + oldest.minor() + " until every member runs " + target.major() + "." + target.minor()
                    + ", so until then setting etcd.version back to " + oldest + " rolls it back instead");
        } else {
            warnings.add("etcd advises the newest " + oldest.major() + "." + oldest.minor() + " patch before a minor upgrade;"
                    + " the members run " + oldest + " (a newer patch, if your artifact source has one, is one apply away)");
        }
        return new MinorUpgrade(oldest, target, warnings);
    }

    private static VersionChange minorDowngrade(Version from, Version to, VersionCatalogue catalogue, List<String> warnings) {
        Optional<Version> rolling = catalogue.line(from).flatMap(VersionCatalogue.MinorLine::rollingDowngradeTo);
        String rollingNote = rolling.map(v -> " (a rolling downgrade needs " + v + " or newer, started with"
                + " --next-cluster-version-compatible)").orElse("");
        return new Refused("a minor downgrade from " + from + " to " + to + " cannot roll member by member" + rollingNote,
                "take a backup, then restore it with etcd " + to + " (the downtime is the restore's); or keep "
                        + from.major() + "." + from.minor() + ".x", warnings);
    }
}
