package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What changing the members' etcd to the spec's version means, decided from the versions the
 * members hold now: nothing, a patch change (up or down, rolled member by member), a minor upgrade
 * (one minor, rolled member by member, leader last; resumed from a mixed state), a minor downgrade
 * (snapshot and restore with the older minor, with downtime), or a refusal that says which path
 * would work. etcd's rules (etcd-operations.md §4): one minor at a time, from the newest patch of
 * the current minor; a minor downgrade of 3.5 to a 3.4 before 3.4.32 cannot roll.
 */
public sealed interface VersionChange {

    /** Warnings from the catalogue about the target (known issues) and about the path. */
    List<String> warnings();

    /** The version this apply puts on the members: the spec's, or the first hop towards it. */
    default Optional<Version> installs() {
        return Optional.empty();
    }

    record Unchanged(List<String> warnings) implements VersionChange {
    }

    /**
     * A patch change, rolled member by member.
     *
     * @param thenTo the spec's version when this patch is a hop on the way to it: etcd advises the
     *               newest patch of a minor before the next minor, so this apply stops there and the
     *               next one takes the minor step
     */
    record Patch(Version from, Version to, Optional<Version> thenTo, List<String> warnings) implements VersionChange {
        public Patch(Version from, Version to, List<String> warnings) {
            this(from, to, Optional.empty(), warnings);
        }

        @Override
        public Optional<Version> installs() {
            return Optional.of(to);
        }
    }

    record MinorUpgrade(Version from, Version to, List<String> warnings) implements VersionChange {
        @Override
        public Optional<Version> installs() {
            return Optional.of(to);
        }
    }

    /**
     * Back to the older minor from an upgrade that did not finish: possible while some member still
     * runs the older minor, because the cluster version moves only once every member runs the newer.
     */
    record MinorRollback(Version from, Version to, List<String> warnings) implements VersionChange {
        @Override
        public Optional<Version> installs() {
            return Optional.of(to);
        }
    }

    /**
     * A minor downgrade, which cannot roll (an older minor's binary refuses a cluster that speaks the
     * newer one): a verified snapshot restored with the older version, with every member down meanwhile.
     *
     * @param rollingFrom the first release of the older minor that could roll instead (started with
     *                    --next-cluster-version-compatible), when one exists
     */
    record MinorDowngrade(Version from, Version to, Optional<Version> rollingFrom, List<String> warnings)
            implements VersionChange {
        @Override
        public Optional<Version> installs() {
            return Optional.of(to);
        }

        /** What the plan says when the operator has not allowed the downtime. */
        public String whyNotRolling() {
            return "etcd " + to + " cannot join a cluster that speaks " + from.major() + "." + from.minor()
                    + rollingFrom.map(v -> " (a rolling downgrade needs " + v
                    + " or newer, started with --next-cluster-version-compatible)").orElse("");
        }
    }

    record Refused(String why, String whatToDo, List<String> warnings) implements VersionChange {
    }

    /** Which newer patch of a minor the artifact source offers: asked only when a minor step is planned. */
    @FunctionalInterface
    interface PatchOffers {
        /** The newest patch of {@code v}'s minor newer than {@code v} the source offers, if any. */
        Optional<Version> newestAfter(Version v);

        PatchOffers NONE = v -> Optional.empty();
    }

    static VersionChange of(List<Version> held, Version target, VersionCatalogue catalogue) {
        return of(held, target, catalogue, PatchOffers.NONE);
    }

    /**
     * @param held   the versions the members hold data of now (running or installed), one per member
     *               that has data; empty for a new cluster
     * @param target the spec's version
     * @param offers what the artifact source offers, for the newest-patch hop before a minor upgrade
     */
    static VersionChange of(List<Version> held, Version target, VersionCatalogue catalogue, PatchOffers offers) {
        List<String> warnings = new ArrayList<>();
        Optional<VersionChange> bad = knownIssues(target, catalogue, warnings);
        if (bad.isPresent()) {
            return bad.get();
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
            warnings.add("mixed versions: members run " + oldest + " and " + newest + ": the cluster version is still "
                    + minorOf(target) + ", so the upgrade can be rolled back member by member");
            return new MinorRollback(newest, target, warnings);
        }
        if (!oldest.equals(newest) && (target.equals(oldest) || target.equals(newest))) {
            warnings.add("mixed versions: members run " + oldest + " and " + newest + " (an interrupted version change);"
                    + " this plan moves the rest to " + target);
        }
        if (newest.minor() > target.minor()) {
            if (newest.minor() - target.minor() > 1 || oldest.minor() < target.minor()) {
                return new Refused("etcd downgrades one minor at a time (" + newest + " to " + target + ")",
                        "downgrade to a " + target.major() + "." + (newest.minor() - 1) + ".x release first", warnings);
            }
            return new MinorDowngrade(newest, target, catalogue.downgradeFrom(newest.minorLine())
                    .filter(VersionCatalogue.Downgrade.ByRestore.class::isInstance)
                    .flatMap(d -> ((VersionCatalogue.Downgrade.ByRestore) d).rollingFrom())
                    .filter(v -> target.minorLine().contains(v)), warnings);
        }
        if (minorsBelow == 0) {
            return new Patch(newest.equals(target) ? oldest : newest, target, warnings);
        }
        if (minorsBelow > 1) {
            return new Refused("etcd upgrades one minor at a time, and " + oldest + " to " + target + " skips "
                    + (minorsBelow - 1) + " minor release(s)", "take the path " + path(oldest, target, catalogue)
                    + ", one apply per step", warnings);
        }
        Optional<Version> minimum = catalogue.upgradeFrom(oldest.minorLine()).map(VersionCatalogue.UpgradeStep::minimumPatch);
        Optional<Version> newerPatch = oldest.equals(newest) ? offers.newestAfter(oldest) : Optional.empty();
        if (newerPatch.isPresent()) {
            List<String> hopWarnings = new ArrayList<>();
            Optional<VersionChange> hopBad = knownIssues(newerPatch.get(), catalogue, hopWarnings);
            if (hopBad.isEmpty()) {
                hopWarnings.add("etcd advises the newest " + minorOf(oldest) + " patch before a minor upgrade: this apply"
                        + " moves the members to " + newerPatch.get() + " (offered by the artifact source); the next apply"
                        + " upgrades them to " + target);
                return new Patch(oldest, newerPatch.get(), Optional.of(target), hopWarnings);
            }
            warnings.add("the artifact source offers " + newerPatch.get() + " but it has a known problem; upgrading from "
                    + oldest + " directly");
        }
        if (minimum.isPresent() && !oldest.isAtLeast(minimum.get())) {
            return new Refused("etcd " + oldest + " is older than " + minimum.get()
                    + ", the patch etcd requires before upgrading to " + minorOf(target) + " ("
                    + catalogue.upgradeFrom(oldest.minorLine()).orElseThrow().guide() + ")",
                    "set etcd.version to " + minimum.get() + " or newer first (apply), then to " + target, warnings);
        }
        if (oldest.equals(newest)) {
            warnings.add("etcd advises the newest " + minorOf(oldest) + " patch before a minor upgrade; the members run "
                    + oldest + " and the artifact source offers no newer " + minorOf(oldest) + " patch");
        }
        return new MinorUpgrade(oldest, target, warnings);
    }

    /** The catalogue's known problems of {@code v}: a refusal, or warnings added to {@code warnings}. */
    private static Optional<VersionChange> knownIssues(Version v, VersionCatalogue catalogue, List<String> warnings) {
        for (VersionCatalogue.KnownIssue issue : catalogue.issuesOf(v)) {
            if (issue.refuse()) {
                return Optional.of(new Refused("etcd " + v + " has a known problem: " + issue, "choose another patch release of "
                        + minorOf(v), List.of()));
            }
            warnings.add(issue.toString());
        }
        return Optional.empty();
    }

    /** "3.4.23 -> newest 3.4 patch -> 3.5.32 or newer -> 3.6.0": the hops a skipped minor would take. */
    static String path(Version from, Version to, VersionCatalogue catalogue) {
        StringBuilder path = new StringBuilder(from.toString()).append(" -> newest ").append(minorOf(from)).append(" patch");
        for (Minor step = from.minorLine().next(); step.compareTo(to.minorLine()) < 0; step = step.next()) {
            Optional<Version> minimum = catalogue.upgradeFrom(step).filter(VersionCatalogue.UpgradeStep::requiresPatch)
                    .map(VersionCatalogue.UpgradeStep::minimumPatch);
            path.append(" -> ").append(minimum.map(v -> v + " or newer").orElse("newest " + step + " patch"));
        }
        return path.append(" -> ").append(to).toString();
    }

    private static String minorOf(Version v) {
        return v.minorLine().toString();
    }
}
