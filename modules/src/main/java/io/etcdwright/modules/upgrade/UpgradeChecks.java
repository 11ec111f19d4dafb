package io.etcdwright.modules.upgrade;

import io.etcd.jetcd.api.Member;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.backup.MemberRpc;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.modules.membership.Health;
import io.grpc.StatusRuntimeException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks etcd's upgrade guide asks for before a minor step ({@link VersionCatalogue.UpgradeCheck};
 * for 3.5 -> 3.6 all three), made when the apply runs: after the patch hop that brought the members
 * to the patch the step requires, before any member moves to the new minor.
 * <ul>
 * <li>{@code v2store-clean}: {@code etcdutl check v2store} on every member still on the older minor,
 *     with that member's own etcdutl (the 3.5.32+ one the hop installed: its check reads the WAL too);
 *     a 3.6 member does not start on custom v2 content;</li>
 * <li>{@code learners-promoted}: no member is a learner in any member's list (a promotion 3.5 did not
 *     persist comes back in 3.6 as "too many learner members", etcd-io/etcd#19557);</li>
 * <li>{@code member-lists-agree}: each member's own list (answered locally, not through the leader)
 *     names the same members (a removed "zombie" member the v2 store still holds comes back in 3.6,
 *     etcd-io/etcd#20967).</li>
 * </ul>
 * Every finding is reported at once, with what it is and how to fix it; nothing has moved to the new
 * minor when it fails.
 *
 * @param members the spec's members, each with the version it runs on the older minor (whose etcdutl
 *                checks its data), empty when it already runs the new minor
 * @param walDir  the spec's wal-dir, when the WAL lives outside the data directory
 * @param change  what is being checked for, for the messages: "minor upgrade to 3.6.16"
 */
public record UpgradeChecks(Health.Access access, List<Subject> members, List<VersionCatalogue.UpgradeCheck> checks,
                            String dataDir, Optional<String> walDir, String change) implements Condition {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CHECK_TIMEOUT = Duration.ofMinutes(2);
    /** What a clean {@code etcdutl check v2store} prints (3.5.32+). */
    static final String CLEAN = "No custom content found";
    static final String GUIDE = "https://etcd.io/docs/v3.6/upgrades/upgrade_3_6/";

    /** One member: where it runs, and the older-minor version it runs (whose etcdutl checks its data). */
    public record Subject(String name, String host, String clientUrl, Optional<Version> olderMinorVersion) {
    }

    public UpgradeChecks {
        members = List.copyOf(members);
        checks = List.copyOf(checks);
    }

    @Override
    public String description() {
        List<String> what = new ArrayList<>();
        if (checks.contains(VersionCatalogue.UpgradeCheck.V2STORE_CLEAN)) {
            what.add("etcdutl check v2store clean on every member");
        }
        if (checks.contains(VersionCatalogue.UpgradeCheck.LEARNERS_PROMOTED)) {
            what.add("no learner");
        }
        if (checks.contains(VersionCatalogue.UpgradeCheck.MEMBER_LISTS_AGREE)) {
            what.add("every member's own member list the same");
        }
        return String.join(", ", what);
    }

    @Override
    public void verify(StepContext context) {
        List<String> problems = new ArrayList<>();
        if (checks.contains(VersionCatalogue.UpgradeCheck.LEARNERS_PROMOTED)
                || checks.contains(VersionCatalogue.UpgradeCheck.MEMBER_LISTS_AGREE)) {
            memberLists(problems);
        }
        if (checks.contains(VersionCatalogue.UpgradeCheck.V2STORE_CLEAN)) {
            for (Subject m : members) {
                m.olderMinorVersion().ifPresent(v -> v2store(context, m, v, problems));
            }
        }
        if (!problems.isEmpty()) {
            throw new ConditionNotMetException("not starting the " + change + ": " + String.join("; ", problems)
                    + ". No member has moved to the new minor; etcd's upgrade guide: " + GUIDE + ". Fix it, then plan and"
                    + " apply again.");
        }
        context.note("checked before the " + change + ": " + description());
    }

    /** Each member's own list, asked of it alone: learners, and members some list names and another does not. */
    private void memberLists(List<String> problems) {
        Map<String, Set<String>> views = new LinkedHashMap<>();
        Map<String, String> learners = new LinkedHashMap<>();
        for (Subject m : members) {
            try (MemberRpc rpc = MemberRpc.connect(m.clientUrl(), access.tls(), CALL_TIMEOUT)) {
                Set<String> view = new TreeSet<>();
                for (Member listed : rpc.members()) {
                    String who = describe(listed);
                    view.add(who);
                    if (listed.getIsLearner()) {
                        learners.putIfAbsent(who, m.name());
                    }
                }
                views.put(m.name(), view);
            } catch (StatusRuntimeException e) {
                problems.add("member " + m.name() + " at " + m.clientUrl() + " does not answer its member list ("
                        + e.getStatus().getCode() + (e.getStatus().getDescription() == null ? "" : ": "
                        + e.getStatus().getDescription()) + ")");
            }
        }
        if (checks.contains(VersionCatalogue.UpgradeCheck.LEARNERS_PROMOTED)) {
            learners.forEach((who, listedBy) -> problems.add(learnerProblem(who, listedBy)));
        }
        if (checks.contains(VersionCatalogue.UpgradeCheck.MEMBER_LISTS_AGREE)
                && new LinkedHashSet<>(views.values()).size() > 1) {
            problems.add(disagreement(views));
        }
    }

    static String learnerProblem(String who, String listedBy) {
        return "member " + who + " is a learner (in " + listedBy + "'s list): etcd 3.6 allows one learner at most and reads"
                + " membership from its own store, where a promotion 3.5 did not persist shows the member as a learner again"
                + " ('too many learner members', etcd-io/etcd#19557). Fix: promote it once it is in sync ('etcdctl member"
                + " promote ID'; an apply with etcd.version left at the version the members run finishes an interrupted"
                + " join), or remove it if it should not be a member";
    }

    static String disagreement(Map<String, Set<String>> views) {
        Set<String> everyone = new TreeSet<>();
        views.values().forEach(everyone::addAll);
        Set<String> disputed = new TreeSet<>();
        for (String who : everyone) {
            if (views.values().stream().anyMatch(v -> !v.contains(who))) {
                disputed.add(who);
            }
        }
        List<String> lists = new ArrayList<>();
        views.forEach((name, view) -> lists.add(name + " lists " + view));
        return "the members' own lists disagree about " + String.join(", ", disputed) + " (" + String.join("; ", lists)
                + "): a member removed in one store but kept in the other (a 'zombie', etcd-io/etcd#20967) comes back"
                + " as a member in 3.6. Fix: etcd 3.5.26 and newer sync the v2 store's members to the v3 store when they"
                + " start, so restart the members on the patch they run (the hop did, if this plan made one) and check"
                + " 'etcdctl member list' on each; a member that should be gone is removed with 'etcdctl member remove ID'";
    }

    private static String describe(Member m) {
        return (m.getName().isEmpty() ? "(unstarted)" : m.getName()) + " " + Long.toHexString(m.getID());
    }

    /** etcdutl check v2store on the member's own data, read-only, with the etcdutl of the version it runs. */
    private void v2store(StepContext context, Subject m, Version running, List<String> problems) {
        List<String> argv = new ArrayList<>(List.of(EtcdLayout.versionDir(running.toString()) + "/etcdutl", "check", "v2store",
                "--data-dir", dataDir));
        walDir.ifPresent(w -> argv.addAll(List.of("--wal-dir", w)));
        CommandResult result = context.session(m.host()).run(new RemoteCommand.Exec(argv), CHECK_TIMEOUT);
        if (result.exitCode() == 0 && result.stdout().contains(CLEAN)) {
            return;
        }
        problems.add(v2storeProblem(m.name(), result));
    }

    static String v2storeProblem(String member, CommandResult result) {
        String said = lastLine(result.stderr()).or(() -> lastLine(result.stdout())).orElse("exit " + result.exitCode());
        boolean walOnly = said.contains("WAL records") && !said.contains("v2store and WAL");
        return "member " + member + ": 'etcdutl check v2store' says: " + said + ". A 3.6 member does not start on custom"
                + " v2 content ('detected disallowed custom content in v2store'). Fix: "
                + (walOnly ? "it is only in the WAL, which the member's next v2 snapshot leaves behind: set"
                + " etcd.settings.snapshot-count: 1, apply, set it back, apply, and check again"
                : "delete the keys written through the v2 API (ETCDCTL_API=2 etcdctl rm, on a member started with"
                + " enable-v2), let each member take a snapshot (snapshot-count: 1 for one apply), and check again");
    }

    private static Optional<String> lastLine(String text) {
        List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        String last = lines.get(lines.size() - 1);
        // etcdutl's zap logger writes JSON lines; its error exit says "Error: ..." last.
        return Optional.of(last.startsWith("Error: ") ? last.substring(7) : last);
    }
}
