package io.etcdwright.modules.timer;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A job a member's host runs on its own from a systemd timer (scheduled backups, scheduled
 * defragmentation): a script, its root-only configuration, a oneshot service and its timer, and a
 * state directory where the script records its runs. What the modules of such jobs share: what
 * differs on a host, landing the files and starting the timer, and removing it all.
 *
 * @param files   every file the job may install, in the order they are written (units last)
 * @param metrics where the job's configuration names the textfile directory it writes its metrics to,
 *                and the name of its file there (docs/monitoring.md); empty for a job that writes none
 */
public record TimerJob(String script, String confDir, String stateDir, String service, String timer, List<String> files,
                       Optional<Metrics> metrics) {
    public TimerJob {
        files = List.copyOf(files);
        Objects.requireNonNull(metrics, "metrics");
    }

    public TimerJob(String script, String confDir, String stateDir, String service, String timer, List<String> files) {
        this(script, confDir, stateDir, service, timer, files, Optional.empty());
    }

    /**
     * A job's textfile metrics: {@code conf} (one of its files) holds {@code TEXTFILE_DIR=}, and the
     * job writes {@code textfile} there. What the host's configuration names is where an earlier
     * apply had the job write: read on the host when the directory changes or the job goes, so the
     * old file is not left for node_exporter to serve forever.
     */
    public record Metrics(String conf, String textfile) {
        public static final String CONF_KEY = "TEXTFILE_DIR";
    }

    /** The same job, writing its metrics as {@code metrics} says. */
    public TimerJob withMetrics(String conf, String textfile) {
        return new TimerJob(script, confDir, stateDir, service, timer, files, Optional.of(new Metrics(conf, textfile)));
    }

    public String serviceFile() {
        return "/etc/systemd/system/" + service;
    }

    public String timerFile() {
        return "/etc/systemd/system/" + timer;
    }

    /** One file of the job as it should be on the host. {@code secret}: shown by digest only. */
    public record DesiredFile(RemoteFile file, byte[] content, boolean secret) {
    }

    /**
     * How a host differs from {@code files}: the files to write, those no longer wanted, whether
     * the timer runs as written, and the reasons, for a person.
     */
    public record Differences(List<DesiredFile> differing, List<String> stale, boolean timerRunning, boolean fresh,
                              List<String> why, boolean contentDiffers) {
        public boolean none() {
            return differing.isEmpty() && stale.isEmpty() && timerRunning;
        }

        /**
         * How safe closing them is unattended: {@code routine} when only the timer's state (disabled,
         * stopped, not reloaded) or files' modes differ, which no spec edit changes; {@code change}
         * when the job is new here, a file's content differs or a file is no longer wanted: the spec's
         * schedule or this etcdwright's script may be why, and nothing on the host tells a hand edit
         * apart (the stricter class).
         */
        public io.etcdwright.engine.plan.SafetyClass safety() {
            return fresh || contentDiffers || !stale.isEmpty() ? io.etcdwright.engine.plan.SafetyClass.CHANGE
                    : io.etcdwright.engine.plan.SafetyClass.ROUTINE;
        }
    }

    public Differences differences(HostFiles host, ScheduleHostFacts timerFacts, List<DesiredFile> want) {
        List<DesiredFile> differing = new ArrayList<>();
        for (DesiredFile f : want) {
            FileState have = host.file(f.file().path());
            if (!have.hasContent(f.content()) || !have.hasAttributes(f.file().mode(), "root", "root")) {
                differing.add(f);
            }
        }
        List<String> wanted = want.stream().map(f -> f.file().path()).toList();
        List<String> stale = files.stream().filter(p -> !wanted.contains(p)).filter(p -> host.file(p).exists()).toList();
        boolean timerRunning = timerFacts.timerEnabled() && timerFacts.timerActive() && !timerFacts.needsDaemonReload();
        boolean fresh = want.stream().noneMatch(f -> host.file(f.file().path()).exists());
        List<String> why = new ArrayList<>();
        differing.forEach(f -> why.add(name(f.file().path()) + (host.file(f.file().path()).exists()
                ? (f.secret() ? " differs (by digest)" : " differs") : " missing")));
        stale.forEach(p -> why.add(name(p) + " no longer needed"));
        if (!timerRunning) {
            why.add(timer + (!timerFacts.timerEnabled() ? " not enabled" : !timerFacts.timerActive() ? " not running"
                    : " changed on disk but not loaded"));
        }
        boolean contentDiffers = differing.stream().anyMatch(f -> !host.file(f.file().path()).hasContent(f.content()));
        return new Differences(differing, stale, timerRunning, fresh, why, contentDiffers);
    }

    /** Something is installed that a removal would take away. */
    public boolean present(HostFiles host, ScheduleHostFacts timerFacts) {
        return files.stream().anyMatch(p -> host.file(p).exists()) || timerFacts.timerEnabled() || timerFacts.timerActive();
    }

    /** What the plan records as observed: the files' digests and modes, and the timer's state. */
    public String observed(HostFiles host, ScheduleHostFacts timerFacts) {
        StringBuilder b = new StringBuilder();
        for (String p : files) {
            FileState f = host.file(p);
            b.append(f.exists() ? f.sha256() + " " + f.mode() : "-").append(';');
        }
        return b.append("timer enabled=").append(timerFacts.timerEnabled()).append(" active=").append(timerFacts.timerActive())
                .toString();
    }

    /**
     * Lands the files (each only when it differs), removes stale ones, then has systemd run the timer.
     * With metrics, the file an earlier configuration had the job write elsewhere (another textfile
     * directory, or none any more) is removed first.
     */
    public Outcome apply(HostSession session, List<DesiredFile> want, List<String> stale) {
        boolean changed = false;
        if (metrics.isPresent()) {
            Metrics m = metrics.get();
            String dir = want.stream().filter(f -> f.file().path().equals(m.conf())).findFirst()
                    .map(f -> textfileDir(new String(f.content(), java.nio.charset.StandardCharsets.UTF_8)))
                    .orElse("");
            changed |= session.run(RemoteCommand.script(MOVE_TEXTFILE_CODE, m.conf(), m.textfile(), dir))
                    .orThrow(session.target().name()).stdout().contains("changed");
        }
        boolean unitsWritten = false;
        boolean timerWritten = false;
        for (DesiredFile f : want) {
            boolean written = session.sync(f.content(), f.file());
            changed |= written;
            unitsWritten |= written && f.file().path().startsWith("/etc/systemd/");
            timerWritten |= written && f.file().path().equals(timerFile());
        }
        if (!stale.isEmpty()) {
            String said = session.run(RemoteCommand.script(REMOVE_FILES_CODE, stale)).orThrow(session.target().name()).stdout();
            changed |= said.contains("changed");
        }
        String said = session.run(RemoteCommand.script(ENABLE_CODE, timer, unitsWritten ? "reload" : "if-needed",
                timerWritten ? "restart" : "keep")).orThrow(session.target().name()).stdout();
        return changed || said.contains("changed") ? Outcome.CHANGED : Outcome.OK;
    }

    /** Disables the timer and removes everything the job installed; OK when nothing was there. */
    public Outcome removeAll(HostSession session) {
        boolean changed = false;
        if (metrics.isPresent()) {
            changed = session.run(RemoteCommand.script(MOVE_TEXTFILE_CODE, metrics.get().conf(), metrics.get().textfile(), ""))
                    .orThrow(session.target().name()).stdout().contains("changed");
        }
        List<String> args = new ArrayList<>(List.of(timer, service));
        args.addAll(files);
        args.add(confDir);
        args.add(stateDir);
        String said = session.run(RemoteCommand.script(REMOVE_CODE, args)).orThrow(session.target().name()).stdout();
        return changed || said.contains("changed") ? Outcome.CHANGED : Outcome.OK;
    }

    /**
     * A job's configuration text: KEY=VALUE lines its {@code script} reads as data, each value taken
     * literally; a value with a control character (a line break would add a key) is refused.
     */
    public static String confText(String script, String conf, java.util.Map<String, String> values) {
        StringBuilder text = new StringBuilder("# Managed by etcdwright: edits here are reverted by the next apply.\n"
                + "# Read by " + script + " as data: KEY=VALUE, the value taken literally.\n");
        values.forEach((k, v) -> {
            if (v.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new IllegalArgumentException(k + " holds a control character, which cannot be written into " + conf);
            }
            text.append(k).append('=').append(v).append('\n');
        });
        return text.toString();
    }

    /** The textfile directory a job's configuration text names; empty when it names none. */
    public static String textfileDir(String conf) {
        return conf.lines().filter(l -> l.startsWith(Metrics.CONF_KEY + "=")).map(l -> l.substring(Metrics.CONF_KEY.length() + 1))
                .findFirst().orElse("");
    }

    /**
     * $1 the job's configuration on the host, $2 its textfile's name, $3 the directory it is to be
     * written to from now on (empty: none). The directory the host's configuration names is read as
     * data (the first TEXTFILE_DIR= line, taken literally, used only when absolute); when it is
     * another one, the job's file there is removed. Prints "changed" when one was.
     */
    static final String MOVE_TEXTFILE_CODE = """
            [ -f "$1" ] || exit 0
            old=$(sed -n 's/^TEXTFILE_DIR=//p' -- "$1" | head -n1)
            case $old in /*) ;; *) exit 0 ;; esac
            [ "$old" != "$3" ] || exit 0
            if [ -e "$old/$2" ]; then rm -f -- "$old/$2" || exit; echo changed; fi
            true
            """;

    /**
     * $1 the timer, $2 "reload" (a unit was just written) or "if-needed", $3 "restart" (the timer
     * changed: its new schedule applies only once restarted) or "keep"; prints "changed" when it did anything.
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
            timer=$1 service=$2
            for u in "$timer" "$service"; do
              if systemctl is-enabled --quiet "$u" 2>/dev/null || systemctl is-active --quiet "$u"; then
                out=$(systemctl disable --now "$u" 2>&1) || { echo "$out" >&2; exit 1; }; c=1
              fi
            done
            shift 2
            for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then rm -rf -- "$p" || exit; c=1; fi; done
            if [ -n "$c" ]; then systemctl daemon-reload; systemctl reset-failed "$service" 2>/dev/null; echo changed; fi
            true
            """;

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
