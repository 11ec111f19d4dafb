package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.cluster.Endpoints;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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

    /** One file of the schedule as it should be on the host. {@code secret}: shown by digest only. */
    public record DesiredFile(RemoteFile file, byte[] content, boolean secret) {
    }

    /** The backup script, as shipped in this jar. */
    public static byte[] script() {
        try (InputStream in = BackupScheduleModule.class.getResourceAsStream("etcd-backup.sh")) {
            if (in == null) {
                throw new IllegalStateException("etcd-backup.sh is missing from the etcdwright jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The files a member's host gets for {@code target}, in the order they are written (units last). */
    public static List<DesiredFile> desiredFiles(ScheduleTarget target, MemberContext member) {
        String clientUrl = Endpoints.clientUrl(member.member(), member.layout());
        List<DesiredFile> files = new ArrayList<>();
        files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.SCRIPT, "0755"), script(), false));
        files.add(new DesiredFile(RemoteFile.rootOwned(ScheduleLayout.CONF, "0600"), utf8(ScheduleConfig.conf(target,
                new ScheduleConfig.Member(member.member().name(), clientUrl))), false));
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
        List<DesiredFile> differing = new ArrayList<>();
        for (DesiredFile f : files) {
            FileState have = member.facts().file(f.file().path());
            if (!have.hasContent(f.content()) || !have.hasAttributes(f.file().mode(), "root", "root")) {
                differing.add(f);
            }
        }
        List<String> wanted = files.stream().map(f -> f.file().path()).toList();
        List<String> stale = ScheduleLayout.FILES.stream().filter(p -> !wanted.contains(p))
                .filter(p -> member.facts().file(p).exists()).toList();
        ScheduleHostFacts timer = member.facts().schedule();
        boolean timerRunning = timer.timerEnabled() && timer.timerActive() && !timer.needsDaemonReload();
        if (differing.isEmpty() && stale.isEmpty() && timerRunning) {
            return Optional.empty();
        }
        boolean fresh = files.stream().noneMatch(f -> member.facts().file(f.file().path()).exists());
        List<String> why = new ArrayList<>();
        differing.forEach(f -> why.add(name(f.file().path()) + (member.facts().file(f.file().path()).exists()
                ? (f.secret() ? " differs (by digest)" : " differs") : " missing")));
        stale.forEach(p -> why.add(name(p) + " no longer needed"));
        if (!timerRunning) {
            why.add(ScheduleLayout.TIMER + (!timer.timerEnabled() ? " not enabled" : !timer.timerActive() ? " not running"
                    : " changed on disk but not loaded"));
        }
        Step.Builder step = Step.on(member.host(), "backup", "schedule").kind(fresh ? ChangeKind.CREATE : ChangeKind.UPDATE)
                .summary("scheduled backups every " + target.schedule().intervalMinutes() + " min to " + target.store().type()
                        + " store '" + target.store().name() + "' (" + ScheduleLayout.TIMER + ")")
                .reason(fresh ? "not installed" : String.join(", ", why))
                .observed(observed(member))
                .diff(differing.stream().filter(f -> !f.secret() && !f.file().path().equals(ScheduleLayout.SCRIPT)).findFirst()
                        .map(f -> new FileDiff(f.file().path(), member.facts().file(f.file().path()).content().orElse(""),
                                new String(f.content(), StandardCharsets.UTF_8))).orElse(null));
        return Optional.of(new Change(step, ctx -> apply(ctx.session(), files, stale), Optional.empty()));
    }

    private Optional<Change> remove(MemberContext member) {
        ScheduleHostFacts timer = member.facts().schedule();
        List<String> present = ScheduleLayout.FILES.stream().filter(p -> member.facts().file(p).exists()).toList();
        if (!timer.probed() || (present.isEmpty() && !timer.timerEnabled() && !timer.timerActive())) {
            return Optional.empty();
        }
        Step.Builder step = Step.on(member.host(), "backup", "schedule").kind(ChangeKind.DELETE)
                .summary("remove scheduled backups (" + ScheduleLayout.TIMER + ", its script, configuration and credentials)")
                .reason("the spec has no backup.schedule")
                .observed(observed(member));
        return Optional.of(new Change(step, ctx -> removeAll(ctx.session()), Optional.empty()));
    }

    private static String observed(MemberContext member) {
        StringBuilder b = new StringBuilder();
        for (String p : ScheduleLayout.FILES) {
            FileState f = member.facts().file(p);
            b.append(f.exists() ? f.sha256() + " " + f.mode() : "-").append(';');
        }
        ScheduleHostFacts t = member.facts().schedule();
        return b.append("timer enabled=").append(t.timerEnabled()).append(" active=").append(t.timerActive()).toString();
    }

    /** Lands the files (each only when it differs), removes stale ones, then has systemd run the timer. */
    static Outcome apply(HostSession session, List<DesiredFile> files, List<String> stale) {
        boolean changed = false;
        boolean unitsWritten = false;
        boolean timerWritten = false;
        for (DesiredFile f : files) {
            boolean written = session.sync(f.content(), f.file());
            changed |= written;
            unitsWritten |= written && f.file().path().startsWith("/etc/systemd/");
            timerWritten |= written && f.file().path().equals(ScheduleLayout.TIMER_FILE);
        }
        if (!stale.isEmpty()) {
            String said = session.run(RemoteCommand.script(REMOVE_FILES_CODE, stale)).orThrow(session.target().name()).stdout();
            changed |= said.contains("changed");
        }
        String said = session.run(RemoteCommand.script(ENABLE_CODE, ScheduleLayout.TIMER, unitsWritten ? "reload" : "if-needed",
                timerWritten ? "restart" : "keep")).orThrow(session.target().name()).stdout();
        return changed || said.contains("changed") ? Outcome.CHANGED : Outcome.OK;
    }

    /** Disables the timer and removes everything a schedule installed; OK when nothing was there. */
    public static Outcome removeAll(HostSession session) {
        List<String> args = new ArrayList<>(List.of(ScheduleLayout.TIMER, ScheduleLayout.SERVICE));
        args.addAll(ScheduleLayout.FILES);
        args.add(ScheduleLayout.CONF_DIR);
        args.add(ScheduleLayout.STATE_DIR);
        String said = session.run(RemoteCommand.script(REMOVE_CODE, args)).orThrow(session.target().name()).stdout();
        return said.contains("changed") ? Outcome.CHANGED : Outcome.OK;
    }

    /**
     * $1 the timer, $2 "reload" (a unit was just written) or "if-needed", $3 "restart" (the timer
     * changed: its new interval applies only once restarted) or "keep"; prints "changed" when it did anything.
     */
    static final String ENABLE_CODE = """
            c=
            if [ "$2" = reload ] || [ "$(systemctl show -p NeedDaemonReload --value "$1")" = yes ]; then
              systemctl daemon-reload || exit; c=1
            fi
            if [ "$(systemctl is-enabled "$1" 2>/dev/null)" != enabled ]; then
              out=$(systemctl enable "$1" 2>&1) || { echo "$out" >&2; exit 1; }; c=1
            fi
            if [ "$3" = restart ] && systemctl is-active --quiet "$1"; then
              systemctl restart "$1" || exit; c=1
            elif ! systemctl is-active --quiet "$1"; then
              systemctl start "$1" || exit; c=1
            fi
            [ -z "$c" ] || echo changed
            """;

    /** $@ files to remove; prints "changed" when one existed. */
    static final String REMOVE_FILES_CODE = """
            c=
            for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then rm -f -- "$p" || exit; c=1; fi; done
            [ -z "$c" ] || echo changed
            """;

    /** $1 the timer, $2 the service, then the files and directories to remove; prints "changed" when it did anything. */
    static final String REMOVE_CODE = """
            c=
            for u in "$1" "$2"; do
              if systemctl is-enabled --quiet "$u" 2>/dev/null || systemctl is-active --quiet "$u"; then
                out=$(systemctl disable --now "$u" 2>&1) || { echo "$out" >&2; exit 1; }; c=1
              fi
            done
            shift 2
            for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then rm -rf -- "$p" || exit; c=1; fi; done
            if [ -n "$c" ]; then systemctl daemon-reload; systemctl reset-failed "etcdwright-backup.service" 2>/dev/null; echo changed; fi
            true
            """;

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
