package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.modules.upgrade.VersionChange;
import io.etcdwright.modules.upgrade.UpgradeChecks;
import io.etcdwright.modules.upgrade.VersionPreflight;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The parts of a converge plan that belong to a version change ({@link VersionChange}): what the
 * members hold, the refusal when the change cannot be made, the preflight every host step waits
 * for, and the snapshot's name. The rolling restarts themselves are the converge plan's: a new
 * binary is one more reason to restart, like a new certificate.
 */
final class VersionSteps {
    private VersionSteps() {
    }

    /** What moving the members to the spec's version means, from the versions they hold now ({@link #held}). */
    static VersionChange change(ConvergePlanner.Inputs in, Map<String, Version> held) {
        Version want = Version.parse(in.desired().spec().etcd().version());
        return VersionChange.of(List.copyOf(held.values()), want, VersionCatalogue.builtIn(), in.versions().offers());
    }

    /**
     * The version each member with data runs (as it answers on its host), or has installed when it
     * does not run; by member name.
     */
    static Map<String, Version> held(ConvergePlanner.Inputs in) {
        Map<String, Version> held = new LinkedHashMap<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (f == null || !f.member().hasMemberData()) {
                continue;
            }
            f.member().status().map(MemberFacts.LocalStatus::version).filter(v -> !v.isEmpty())
                    .or(() -> f.install().etcdVersion())
                    .flatMap(Version::tryParse).ifPresent(v -> held.put(m.name(), v));
        }
        return held;
    }

    /** Why the change cannot be planned, if it cannot. */
    static Optional<Refusal> refusal(VersionChange change, boolean allowDowntime, String cluster) {
        if (change instanceof VersionChange.Refused refused) {
            return Optional.of(new Refusal("version-change-refused", "cluster " + cluster,
                    "cannot move to that etcd version: " + refused.why(), refused.whatToDo()));
        }
        if (change instanceof VersionChange.MinorDowngrade down && !allowDowntime) {
            return Optional.of(new Refusal("downtime-not-allowed", "cluster " + cluster,
                    "a minor downgrade from " + down.from() + " to " + down.to() + " cannot roll member by member: "
                            + down.whyNotRolling() + ". The way is a verified snapshot restored with etcd " + down.to()
                            + ", every member stopped meanwhile",
                    "stop the writers (kube-apiservers) and apply with --allow-downtime; or keep " + down.from().major() + "."
                            + down.from().minor() + ".x"));
        }
        return Optional.empty();
    }

    /**
     * The spec's settings as the release this apply installs reads them: validate checked them against
     * the spec's version, but a hop (the newest patch of the older minor first) installs another release,
     * which may spell a setting otherwise (written so) or not have it (refused here, before any host).
     *
     * @param spec the spec with the version this apply installs
     */
    static List<Refusal> settingsRefusals(ClusterSpec spec, VersionChange change) {
        Version installs = spec.etcd().parsedVersion();
        return VersionCatalogue.builtIn().settingsFor(installs, spec.etcd().settings()).errors().stream()
                .map(e -> new Refusal("setting-not-in-release", "etcd.settings." + e.setting().orElse("?"),
                        "this apply installs etcd " + installs + (change instanceof VersionChange.Patch p && p.thenTo().isPresent()
                                ? " first (the newest patch before " + p.thenTo().get() + ")" : "") + ", and " + e.message(),
                        "keep to settings etcd " + installs + " has until the members run the spec's version (apply once"
                                + " without it, then put it back), or set etcd.version to a release that has it"))
                .toList();
    }

    /**
     * The checks a version change must pass when the apply runs, before any host is touched:
     * {@link VersionPreflight} on the members running when planned (a member down then is started by
     * the plan on the new version; the restarts keep quorum with their own checks).
     */
    static Optional<Step> preflight(VersionChange change, Map<String, Version> held, ConvergePlanner.Context c,
                                    ConvergePlanner.Inputs in, List<Step> after) {
        Optional<Version> target = change.installs();
        if (target.isEmpty() || change instanceof VersionChange.MinorDowngrade) {
            return Optional.empty();
        }
        Map<String, String> running = new LinkedHashMap<>();
        for (Member m : c.members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (held.containsKey(m.name()) && f != null && f.service().running()) {
                running.put(m.name(), Endpoints.clientUrl(m, c.layout()));
            }
        }
        if (running.isEmpty()) {
            return Optional.empty();
        }
        Set<String> allowed = new LinkedHashSet<>();
        held.values().forEach(v -> allowed.add(v.toString()));
        allowed.add(target.get().toString());
        List<String> from = new ArrayList<>(new LinkedHashSet<>(held.values().stream().map(Version::toString).toList()));
        String what = describe(change);
        boolean refuseAuth = minorStep(change).map(up -> checksBefore(up).contains(VersionCatalogue.UpgradeCheck.AUTH_DISABLED))
                .orElse(false);
        // Every version change converge plans is one the spec asked for (a downgrade is another planner's, never).
        return Optional.of(Step.cluster("version", "version-preflight").kind(ChangeKind.ACTION).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("check the members before the " + what)
                .reason("members on " + String.join(" and ", from) + " when planned; checked again when applied")
                .requires(new VersionPreflight(c.access(), running, allowed, refuseAuth, what))
                .after(after)
                .does(ctx -> Outcome.OK));
    }

    /**
     * The minor step of a change: the change itself, or the one a patch hop leads to in the same plan
     * (the hop to the patch etcd requires before the next minor, then the minor step).
     */
    static Optional<VersionChange.MinorUpgrade> minorStep(VersionChange change) {
        if (change instanceof VersionChange.MinorUpgrade up) {
            return Optional.of(up);
        }
        if (change instanceof VersionChange.Patch patch) {
            return patch.minorAfter();
        }
        return Optional.empty();
    }

    /**
     * A minor step whose checks include learners, planned while the cluster's own list has a learner:
     * refused now (the apply would refuse it too, after the hop), saying which member and what to do.
     */
    static List<Refusal> learnerRefusals(VersionChange change, ConvergePlanner.Inputs in) {
        Optional<VersionChange.MinorUpgrade> up = minorStep(change);
        if (up.isEmpty() || in.cluster().isEmpty() || !checksBefore(up.get())
                .contains(VersionCatalogue.UpgradeCheck.LEARNERS_PROMOTED)) {
            return List.of();
        }
        String running = up.get().from().toString();
        return in.cluster().get().members().stream().filter(io.etcdwright.modules.membership.MemberStatus::learner)
                .map(m -> new Refusal("learner-before-minor-upgrade", "member " + m.name(),
                        "is a learner, and etcd's guide asks for none before the upgrade to " + up.get().to().major() + "."
                                + up.get().to().minor() + ": 3.6 allows one learner at most and reads membership from its own"
                                + " store, where a promotion 3.5 did not persist shows the member as a learner again ('too many"
                                + " learner members', etcd-io/etcd#19557)",
                        "finish its join first: apply with etcd.version: " + held(in).values().stream().max(
                                java.util.Comparator.naturalOrder()).map(Version::toString).orElse(running)
                                + " (etcdwright promotes it once it is in sync), then set " + up.get().to() + " again"))
                .toList();
    }

    /**
     * The checks etcd's guide asks for before the minor step ({@link UpgradeChecks}), when the step's
     * older minor has any beyond authentication (which the preflight checks): when the apply runs,
     * after {@code after} (the hop's last restart, or the preflight), before any member moves.
     *
     * @param olderMinor each member's version on the older minor when the checks run (the hop's
     *                   target after a hop); members already on the new minor are left out
     */
    static Optional<Step> upgradeChecks(VersionChange.MinorUpgrade up, Map<String, Version> olderMinor,
                                        ConvergePlanner.Context c, ConvergePlanner.Inputs in, List<Step> after) {
        List<VersionCatalogue.UpgradeCheck> checks = checksBefore(up).stream()
                .filter(check -> check != VersionCatalogue.UpgradeCheck.AUTH_DISABLED).toList();
        if (checks.isEmpty()) {
            return Optional.empty();
        }
        List<UpgradeChecks.Subject> subjects = c.members().stream().map(m -> new UpgradeChecks.Subject(m.name(), m.host().name(),
                        Endpoints.clientUrl(m, c.layout()), Optional.ofNullable(olderMinor.get(m.name()))
                        .filter(v -> v.minorLine().equals(up.from().minorLine()))))
                .toList();
        Optional<String> walDir = Optional.ofNullable(in.desired().spec().etcd().settings().get("wal-dir"))
                .map(Object::toString);
        String what = "minor upgrade to " + up.to();
        UpgradeChecks condition = new UpgradeChecks(c.access(), subjects, checks, c.layout().dataDir(), walDir, what);
        return Optional.of(Step.cluster("version", "upgrade-checks").kind(ChangeKind.ACTION).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("etcd's checks before the " + what + ": " + condition.description())
                .reason("etcd's upgrade guide for " + up.to().major() + "." + up.to().minor() + ", with the etcdutl of "
                        + String.join(" and ", new LinkedHashSet<>(subjects.stream().flatMap(s -> s.olderMinorVersion().stream())
                        .map(Version::toString).toList())))
                .requires(condition)
                .after(after)
                .does(ctx -> Outcome.OK));
    }

    /** What etcd's guide asks to check before the minor step {@code up} (the catalogue's upgrade checks). */
    static List<VersionCatalogue.UpgradeCheck> checksBefore(VersionChange.MinorUpgrade up) {
        return VersionCatalogue.builtIn().upgradeFrom(up.from().minorLine()).map(VersionCatalogue.UpgradeStep::checks)
                .orElse(List.of());
    }

    /** The safety snapshot's label for a version change. */
    static Optional<String> snapshotLabel(VersionChange change) {
        if (minorStep(change).isPresent()) {
            return Optional.of("before-minor-upgrade");
        }
        if (change instanceof VersionChange.MinorRollback) {
            return Optional.of("before-minor-rollback");
        }
        if (change instanceof VersionChange.Patch) {
            return Optional.of("before-patch-change");
        }
        return Optional.empty();
    }

    private static String describe(VersionChange change) {
        if (change instanceof VersionChange.Patch patch && patch.thenTo().isPresent()) {
            return "patch hop to " + patch.to() + " and minor upgrade to " + patch.thenTo().get();
        }
        if (change instanceof VersionChange.MinorUpgrade up) {
            return "minor upgrade to " + up.to();
        }
        if (change instanceof VersionChange.MinorRollback back) {
            return "rollback to " + back.to();
        }
        if (change instanceof VersionChange.Patch patch) {
            return "patch change to " + patch.to();
        }
        return "version change";
    }
}
