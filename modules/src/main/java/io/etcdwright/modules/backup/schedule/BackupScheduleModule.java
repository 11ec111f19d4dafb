package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.timer.HostScripts;
import io.etcdwright.modules.timer.TimerJob;
import io.etcdwright.modules.timer.TimerJob.DesiredFile;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Scheduled backups on one member's host: the backup script, its configuration and the host's
 * credentials (root-only), and a systemd timer that runs it. With no schedule in the spec, what
 * an earlier schedule installed is disabled and removed. Nothing here touches etcd itself: a
 * schedule change never restarts a member.
 */
public final class BackupScheduleModule implements MemberModule {
    private final Optional<ScheduleTarget> target;

    public BackupScheduleModule(Optional<ScheduleTarget> target) {
        this.target = target;
    }

    /** The backup script, as shipped in this jar. */
    public static byte[] script() {
        return HostScripts.load(BackupScheduleModule.class, "etcd-backup.sh");
    }

    /** The files a member's host gets for {@code target}, in the order they are written (units last). */
    public static List<DesiredFile> desiredFiles(ScheduleTarget target, MemberContext member) {
        String clientUrl = Endpoints.clientUrl(member.member(), member.layout());
        List<DesiredFile> files = new ArrayList<>();
        files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.SCRIPT, "0755"), script(), false));
        files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.CONF, "0600"), utf8(ScheduleConfig.conf(target,
                new ScheduleConfig.Member(member.member().name(), clientUrl), member.spec().monitoring().textfileDir())), false));
        target.credentials().ifPresent(c -> files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.CREDENTIALS, "0600"), c, true)));
        target.recipients().ifPresent(r -> files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.RECIPIENTS, "0644"), r, false)));
        target.sftp().ifPresent(s -> files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.KNOWN_HOSTS, "0644"),
                utf8(s.knownHostsLines()), false)));
        files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.SERVICE_FILE, "0644"), utf8(ScheduleConfig.service(target)), false));
        files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.TIMER_FILE, "0644"), utf8(ScheduleConfig.timer(target)), false));
        return files;
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        return target.isPresent() ? install(member, target.get()) : remove(member);
    }

    private Optional<Change> install(MemberContext member, ScheduleTarget target) {
        List<DesiredFile> files = desiredFiles(target, member);
        TimerJob.Differences d = ScheduleLayout.JOB.differences(member.facts()::file, member.facts().schedule(), files);
        if (d.none()) {
            return Optional.empty();
        }
        Step.Builder step = Step.on(member.host(), "backup", "schedule").kind(d.fresh() ? ChangeKind.CREATE : ChangeKind.UPDATE)
                .safety(d.safety()) // a disabled timer enabled again is routine; a new schedule or other files, a change
                .summary("scheduled backups every " + target.schedule().intervalMinutes() + " min to " + target.store().type()
                        + " store '" + target.store().name() + "' (" + ScheduleLayout.TIMER + ")")
                .reason(d.fresh() ? "not installed" : String.join(", ", d.why()))
                .observed(ScheduleLayout.JOB.observed(member.facts()::file, member.facts().schedule()))
                .diff(d.differing().stream().filter(f -> !f.secret() && !f.file().path().equals(ScheduleLayout.SCRIPT)).findFirst()
                        .map(f -> new FileDiff(f.file().path(), member.facts().file(f.file().path()).content().orElse(""),
                                new String(f.content(), StandardCharsets.UTF_8))).orElse(null));
        return Optional.of(new Change(step, ctx -> ScheduleLayout.JOB.apply(ctx.session(), files, d.stale()), Optional.empty()));
    }

    private Optional<Change> remove(MemberContext member) {
        ScheduleHostFacts timer = member.facts().schedule();
        if (!timer.probed() || !ScheduleLayout.JOB.present(member.facts()::file, timer)) {
            return Optional.empty();
        }
        Step.Builder step = Step.on(member.host(), "backup", "schedule").kind(ChangeKind.DELETE)
                .safety(io.etcdwright.engine.plan.SafetyClass.CHANGE) // the spec dropped the schedule
                .summary("remove scheduled backups (" + ScheduleLayout.TIMER + ", its script, configuration and credentials)")
                .reason("the spec has no backup.schedule")
                .observed(ScheduleLayout.JOB.observed(member.facts()::file, timer));
        return Optional.of(new Change(step, ctx -> removeAll(ctx.session()), Optional.empty()));
    }

    /** Disables the timer and removes everything a schedule installed; OK when nothing was there. */
    public static Outcome removeAll(HostSession session) {
        return ScheduleLayout.JOB.removeAll(session);
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
