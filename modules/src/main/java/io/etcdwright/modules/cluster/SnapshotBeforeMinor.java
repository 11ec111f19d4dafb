package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.catalogue.VersionCatalogue;
import io.etcdwright.modules.config.ConfigFileModule;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.EtcdAdminException;
import io.etcdwright.modules.membership.EtcdHttp;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.RaftSnapshot;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.upgrade.VersionChange;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A member's raft snapshot past every log entry etcd 3.5 may have written, taken at its turn in the
 * step 3.6 -> 3.7 before it runs 3.7 (the catalogue's {@code beforeEachMember:
 * [snapshot-past-v2-requests]}).
 *
 * <p>Why: 3.5 proposes v2 requests (its attributes at each member start, the cluster version); etcd
 * 3.7 replays a member's log from its newest snapshot at start and no longer decodes them
 * (etcd-io/etcd#21263), so it panics ('unmarshal should never fail'). A 3.6 member snapshots only
 * every snapshot-count entries (10,000 by default), so a cluster born on 3.5 and taken to 3.6 keeps
 * such entries in each member's log for as long as it takes to write that many.
 *
 * <p>How it is known to be safe: once no member runs a minor older than the step's (checked when
 * the step runs; a 3.5 binary refuses to start once the cluster version is 3.6), nothing proposes
 * v2 requests any more, so every one of them lies at or below the highest index any member has
 * committed. A newest snapshot at or past that index covers them all: the member is left as it is.
 * Otherwise it restarts once on the release it runs with a config written for this restart only
 * ({@code snapshot-count: 1}, etcd's own advice for dropping v2 entries from the log), a write or two
 * (a lease granted and revoked, the keyspace untouched) make it snapshot, and once the snapshot is
 * past that index its usual config is written back: the restart onto the newer minor, next, reads
 * that one. Resumed after a kill with the one-restart config running, the member is not restarted
 * again: it snapshots at every other entry already.
 */
public final class SnapshotBeforeMinor {
    /** The line that marks the config written for this restart only: the next plan knows it by it. */
    public static final String MARKER = "# etcdwright: written for one restart with snapshot-count 1, until this member's raft"
            + " snapshot is past every entry etcd 3.5 may have written (etcd 3.7 cannot replay them); the upgrade writes"
            + " the usual config back.";
    /** A snapshot at every other entry: applied - snapshot index > 1 triggers one (etcd's shouldSnapshotToDisk). */
    static final int SNAPSHOT_COUNT = 1;
    private static final String PAST = "snapshot-past";
    private static final RemoteFile CONFIG = RemoteFile.rootOwned(EtcdLayout.CONFIG_FILE, "0644");
    private static final String NEWEST = "ls -- \"$1/member/snap\" 2>/dev/null | grep -E '^[0-9a-f]{16}-[0-9a-f]{16}\\.snap$'"
            + " | sort | tail -n 1\n";

    private SnapshotBeforeMinor() {
    }

    /** How the member is brought to its snapshot. */
    enum Way {
        /** Restarted once with the one-restart config. */
        RESTART,
        /** Already running the one-restart config (an apply killed after that restart): writes alone. */
        WRITES
    }

    /**
     * The step for member {@code m} at its turn, when the catalogue asks for it and the facts do not
     * show its newest snapshot past the highest index any member committed already.
     *
     * @param runs  the release the member runs when its turn comes (the hop's, after a hop)
     * @param after what it waits for (the previous member's restart, this member's new release)
     */
    static Optional<Step> plan(VersionChange.MinorUpgrade up, Member m, Version runs, DesiredState desired,
                               ConvergePlanner.Context c, ConvergePlanner.Inputs in, MemberContext.Bootstrap bootstrap,
                               List<Member> restartedBefore, List<Step> after) {
        boolean asked = VersionCatalogue.builtIn().upgradeFrom(up.from().minorLine())
                .map(step -> step.beforeEachMember().contains(VersionCatalogue.MemberPreparation.SNAPSHOT_PAST_V2_REQUESTS))
                .orElse(false);
        EtcdHostFacts f = in.facts().get(m.host().name());
        if (!asked || f == null) {
            return Optional.empty();
        }
        Optional<RaftSnapshot> newest = f.member().newestSnapshot();
        OptionalLong committed = highestCommitted(c, in, up);
        if (committed.isPresent() && newest.isPresent() && newest.get().index() >= committed.getAsLong()) {
            return Optional.empty();
        }
        MemberContext usual = new MemberContext(m, f, desired.withEtcdVersion(runs.toString()).spec(), c.layout(), bootstrap);
        Map<String, Object> settings = new LinkedHashMap<>(desired.spec().etcd().settings());
        settings.put("snapshot-count", SNAPSHOT_COUNT);
        MemberContext once = new MemberContext(m, f, desired.withEtcdVersion(runs.toString()).withEtcdSettings(settings).spec(),
                c.layout(), bootstrap);
        String onceConfig = oneRestartConfig(ConfigFileModule.desired(once));
        // Written back once the snapshot is there: what the member ran before, unless that was the one-restart
        // config itself (then the usual one for its release).
        String usualConfig = f.file(EtcdLayout.CONFIG_FILE).content().filter(text -> !text.contains(MARKER))
                .orElseGet(() -> ConfigFileModule.desired(usual));
        boolean runningOnce = f.file(EtcdLayout.CONFIG_FILE).content().map(text -> text.contains(MARKER)).orElse(false)
                && RestartPending.causes(f).isEmpty() && f.service().running();
        Way way = runningOnce ? Way.WRITES : Way.RESTART;
        String past = committed.isPresent() ? "index " + committed.getAsLong() : "the highest index committed";
        String summary = way == Way.RESTART
                ? "restart etcd " + runs + " once with snapshot-count " + SNAPSHOT_COUNT + " until it snapshots past " + past
                + ", then write its config back"
                : "wait for a raft snapshot past " + past + " (etcd runs with snapshot-count " + SNAPSHOT_COUNT
                + " already), then write its config back";
        String name = m.name();
        List<String> others = c.members().stream().filter(o -> o != m).map(o -> Endpoints.clientUrl(o, c.layout())).toList();
        List<String> before = restartedBefore.stream().map(Member::name).toList();
        String stepId = m.host().name() + "/raft-snapshot-" + HostPreparation.MINOR_TAG;
        Step.Builder step = Step.on(m.host().name(), "service", "raft-snapshot").tagged(HostPreparation.MINOR_TAG)
                .kind(ChangeKind.ACTION).safety(io.etcdwright.engine.plan.SafetyClass.CHANGE) // part of a minor upgrade
                .summary(summary)
                .reason("etcd " + up.to().minorLine() + " replays the log from the newest raft snapshot and cannot read the v2"
                        + " requests etcd 3.5 wrote there"
                        + " (etcd-io/etcd#21263); newest snapshot "
                        + newest.map(s -> "at index " + s.index()).orElse("none known") + ", " + past + " committed")
                .observed(newest.map(RaftSnapshot::fileName).orElse("no snapshot"))
                .after(after)
                .requires(new ClusterConditions.OthersHealthy(c.access(), name, others, c.members().size()))
                .requires(new NoOlderMinor(c.access(), c.clientUrls(), up.from()))
                .readyWhen(new SnapshotPast(c.layout().dataDir(), stepId, committed))
                .readyWhen(new ClusterConditions.AllHealthy(c.access(), c.clientUrls(), c.timeouts().ready()))
                .readyWhen(new ClusterConditions.WritesCommitThrough(c.access(), name, Endpoints.clientUrl(m, c.layout()),
                        c.timeouts().ready()));
        String clientUrl = Endpoints.clientUrl(m, c.layout());
        return Optional.of(step.does(ctx -> run(ctx, c, name, clientUrl, before, way, onceConfig, usualConfig)));
    }

    /** {@code rendered} marked as the one-restart config, after etcdwright's own first line. */
    public static String oneRestartConfig(String rendered) {
        int firstLine = rendered.indexOf('\n');
        return rendered.substring(0, firstLine + 1) + MARKER + "\n" + rendered.substring(firstLine + 1);
    }

    /**
     * The highest index any member had committed when the facts were gathered, when every member then
     * answered on the step's older minor or a newer one (otherwise unknown: a v2 request may still come).
     */
    static OptionalLong highestCommitted(ConvergePlanner.Context c, ConvergePlanner.Inputs in, VersionChange.MinorUpgrade up) {
        long highest = -1;
        for (Member member : c.members()) {
            EtcdHostFacts f = in.facts().get(member.host().name());
            Optional<MemberFacts.LocalStatus> status = f == null ? Optional.empty() : f.member().status();
            Optional<Version> version = status.flatMap(s -> Version.tryParse(s.version()));
            if (version.isEmpty() || version.get().minorLine().compareTo(up.from().minorLine()) < 0) {
                return OptionalLong.empty();
            }
            highest = Math.max(highest, status.get().raftIndex());
        }
        return highest < 0 ? OptionalLong.empty() : OptionalLong.of(highest);
    }

    private static Outcome run(StepContext ctx, ConvergePlanner.Context c, String name, String clientUrl, List<String> before,
                               Way way, String onceConfig, String usualConfig) throws InterruptedException {
        long past = committedNow(c);
        ctx.output(PAST, Long.toString(past));
        Optional<RaftSnapshot> newest = newestOn(ctx.session(), c.layout().dataDir());
        if (newest.isPresent() && newest.get().index() >= past) {
            ctx.note(name + "'s newest raft snapshot (index " + newest.get().index() + ") is past index " + past
                    + ", the highest committed: nothing of etcd 3.5's is left to replay");
            return Outcome.OK;
        }
        boolean restarted = false;
        if (way == Way.RESTART) {
            ctx.session().sync(onceConfig.getBytes(StandardCharsets.UTF_8), CONFIG);
            if (c.members().size() > 1) {
                RollingRestart.handOffIfLeading(ctx, c, name, before);
            }
            ServiceSteps.restart(ctx, c.layout().dataDir(), c.timeouts().restart());
            restarted = true;
        }
        RaftSnapshot taken = awaitSnapshot(ctx, c, name, clientUrl, past);
        ctx.note(name + " snapshotted at index " + taken.index() + ", past index " + past);
        // Changed when it restarted etcd or put a config back (the one-restart config an earlier apply left running).
        boolean configBack = ctx.session().sync(usualConfig.getBytes(StandardCharsets.UTF_8), CONFIG);
        return restarted || configBack ? Outcome.CHANGED : Outcome.OK;
    }

    /** The highest index the members have committed, asked of them now. */
    private static long committedNow(ConvergePlanner.Context c) {
        try (EtcdHttp etcd = EtcdHttp.connect(c.access(), c.clientUrls(), Health.ATTEMPT_TIMEOUT)) {
            ClusterStatus status = etcd.status();
            return status.members().stream().map(MemberStatus::raftIndex).filter(OptionalLong::isPresent)
                    .mapToLong(OptionalLong::getAsLong).max()
                    .orElseThrow(() -> new IllegalStateException("no member said how far its log goes (Status)"));
        }
    }

    /**
     * Writes through the member (a lease granted and revoked: two entries) until its newest snapshot is
     * past {@code past}, within the readiness timeout.
     */
    private static RaftSnapshot awaitSnapshot(StepContext ctx, ConvergePlanner.Context c, String name, String clientUrl, long past)
            throws InterruptedException {
        Duration within = c.timeouts().ready();
        long deadline = System.nanoTime() + within.toNanos();
        String last = "no snapshot yet";
        try (EtcdHttp etcd = EtcdHttp.connect(c.access(), List.of(clientUrl), Health.ATTEMPT_TIMEOUT);
             Progress waiting = ctx.waiting("a raft snapshot on " + name + " past index " + past)) {
            while (true) {
                Optional<RaftSnapshot> newest = newestOn(ctx.session(), c.layout().dataDir());
                if (newest.isPresent() && newest.get().index() >= past) {
                    return newest.get();
                }
                last = newest.map(s -> "newest at index " + s.index()).orElse("no snapshot yet");
                waiting.waitingOn(last);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " took no raft snapshot past index " + past + " within "
                            + within.toSeconds() + " s (" + last + "), though it runs with snapshot-count " + SNAPSHOT_COUNT
                            + ". It must not run etcd 3.7 before it has: look at 'journalctl -u " + EtcdLayout.UNIT
                            + "' on its host ('triggering snapshot', 'saved snapshot'), then apply again.");
                }
                try {
                    etcd.leaseRoundTrip(clientUrl);
                } catch (EtcdHttp.Refused e) {
                    waiting.waitingOn(last + "; a write through it was refused: " + e.getMessage());
                } catch (java.io.IOException e) {
                    waiting.waitingOn(last + "; " + etcd.describe(e));
                }
                Thread.sleep(200);
            }
        }
    }

    /** The newest raft snapshot in {@code dataDir}/member/snap on the host, as the facts read it. */
    static Optional<RaftSnapshot> newestOn(HostSession session, String dataDir) {
        String out = session.run(RemoteCommand.script(NEWEST, dataDir)).orThrow(session.target().name()).stdout();
        return RaftSnapshot.fromFileName(out);
    }

    /**
     * No member runs a minor older than {@code from}: nothing proposes v2 requests any more, so the
     * highest committed index is past all of them. Asked of every member when the step runs.
     */
    record NoOlderMinor(Health.Access access, List<String> clientUrls, Version from) implements Condition {
        @Override
        public String description() {
            return "every member answering on etcd " + from.minorLine() + " or newer";
        }

        @Override
        public void verify(StepContext context) {
            ClusterStatus status;
            try (EtcdHttp etcd = EtcdHttp.connect(access, clientUrls, Health.ATTEMPT_TIMEOUT)) {
                status = etcd.status();
            } catch (EtcdAdminException e) {
                throw new ConditionNotMetException("the members could not be asked: " + e.getMessage());
            }
            for (MemberStatus member : status.members()) {
                Optional<Version> version = member.version().flatMap(Version::tryParse);
                if (version.isEmpty()) {
                    throw new ConditionNotMetException("member " + member.name() + " did not say which etcd it runs"
                            + member.error().map(e -> " (" + e + ")").orElse("") + "; one on an older minor would still"
                            + " write log entries etcd " + from.minorLine() + "'s successor cannot read. Bring it back, then"
                            + " apply again.");
                }
                if (version.get().minorLine().compareTo(from.minorLine()) < 0) {
                    throw new ConditionNotMetException("member " + member.name() + " runs etcd " + version.get()
                            + ": the step from " + from.minorLine() + " needs every member on " + from.minorLine()
                            + " or newer first (apply with etcd.version " + from + " to finish that step)");
                }
            }
        }
    }

    /**
     * The member's newest raft snapshot is past the index the step found committed when it ran (or,
     * when it did not run in this apply, the one planned).
     */
    record SnapshotPast(String dataDir, String stepId, OptionalLong planned) implements Condition {
        @Override
        public String description() {
            return "a raft snapshot on the member past "
                    + (planned.isPresent() ? "index " + planned.getAsLong() : "the highest index committed");
        }

        @Override
        public void verify(StepContext context) {
            OptionalLong past = context.outputOf(stepId, PAST).map(v -> OptionalLong.of(Long.parseLong(v))).orElse(planned);
            if (past.isEmpty()) {
                throw new ConditionNotMetException("the highest committed index is not known");
            }
            Optional<RaftSnapshot> newest = newestOn(context.session(), dataDir);
            if (newest.isEmpty() || newest.get().index() < past.getAsLong()) {
                throw new ConditionNotMetException("newest raft snapshot "
                        + newest.map(s -> "at index " + s.index()).orElse("none") + ", not past index " + past.getAsLong());
            }
        }
    }
}
