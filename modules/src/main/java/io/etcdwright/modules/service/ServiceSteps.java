package io.etcdwright.modules.service;

import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.modules.EtcdLayout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The service module's operations: unit file, start, safe restart. */
public final class ServiceSteps {
    private ServiceSteps() {
    }

    /**
     * Writes the unit if it differs, has systemd load it if it is not loaded as written, and
     * enables it; CHANGED only when any of that had to be done.
     */
    public static Outcome writeUnit(HostSession session, String unitText) {
        boolean written = session.sync(unitText.getBytes(StandardCharsets.UTF_8), RemoteFile.rootOwned(EtcdLayout.UNIT_FILE, "0644"));
        String said = session.run(loadAndEnable(written)).orThrow(session.target().name()).stdout();
        return written || said.contains("changed") ? Outcome.CHANGED : Outcome.OK;
    }

    /**
     * Starts without waiting: a bootstrapping member reports ready only once a quorum of its
     * peers is up, so the members must be started side by side and waited for together. OK when
     * it runs already (an earlier, interrupted apply started it).
     */
    public static Outcome start(HostSession session) {
        String said = session.run(START).orThrow(session.target().name()).stdout().strip();
        return said.equals(ALREADY_RUNNING) ? Outcome.OK : Outcome.CHANGED;
    }

    /**
     * Starts a member joining a running cluster and waits until systemd reports it ready (etcd
     * notifies once it has joined and serves): unlike a bootstrap, a joiner does not need its peers
     * to start with it, and a start that fails says so here, with etcd's last words, instead of
     * leaving the promotion after it to wait for a learner that never came. OK when it runs
     * already (an apply stopped after this step).
     */
    public static Outcome startAndWait(StepContext ctx, Duration within) {
        HostSession session = ctx.session();
        CommandResult started;
        try (Progress waiting = ctx.waiting("etcd to start and join")) {
            waiting.waitingOn("systemctl start " + EtcdLayout.UNIT);
            started = session.run(START_AND_WAIT, within);
        } catch (SshException e) {
            throw notReadyInTime(session, "started to join", within, e);
        }
        if (started.exitCode() != 0) {
            CommandResult journal = session.run(JOURNAL_TAIL);
            throw new IllegalStateException(session.target().name() + ": etcd did not start (systemctl start: "
                    + started.stderr().strip() + "); its last log lines:\n" + journal.stdout().strip());
        }
        return started.stdout().strip().equals(ALREADY_RUNNING) ? Outcome.OK : Outcome.CHANGED;
    }

    /**
     * Stops etcd and waits until it has exited; OK when it was not running. Also ends a crash
     * loop (a unit waiting to be restarted by Restart=on-failure), which a plain look at
     * "active" would miss.
     */
    public static Outcome stop(StepContext ctx, Duration within) {
        HostSession session = ctx.session();
        CommandResult stopped;
        try (Progress waiting = ctx.waiting("etcd to stop")) {
            waiting.waitingOn("systemctl stop " + EtcdLayout.UNIT);
            stopped = session.run(STOP, within);
        }
        stopped.orThrow(session.target().name());
        return stopped.stdout().strip().equals(NOT_RUNNING) ? Outcome.OK : Outcome.CHANGED;
    }

    /**
     * Stops etcd and keeps it from starting again (at boot, or by Restart=on-failure): for a host
     * whose member was removed, whose etcd would otherwise be restarted against its old data for
     * as long as the host runs. The data stays. OK when it was stopped and disabled already.
     */
    public static Outcome stopAndDisable(StepContext ctx, Duration within) {
        HostSession session = ctx.session();
        CommandResult result;
        try (Progress waiting = ctx.waiting("etcd to stop")) {
            waiting.waitingOn("systemctl stop " + EtcdLayout.UNIT);
            result = session.run(STOP_AND_DISABLE, within).orThrow(session.target().name());
        }
        return result.stdout().isBlank() ? Outcome.OK : Outcome.CHANGED;
    }

    /**
     * Restarts etcd and waits until systemd reports it started (etcd notifies once it serves).
     * Whether that is safe (every other member healthy) is the step's precondition, checked before.
     * Between the stop and the start, whatever in {@code dataDir} another user owns is given to
     * etcd's: an adopted etcd that ran as root until this restart goes on writing files (WAL
     * segments, snapshots) after the host's setup gave it the directory, and etcd, starting as its
     * own user, must open them.
     */
    public static Outcome restart(StepContext ctx, String dataDir, Duration timeout) {
        HostSession session = ctx.session();
        try (Progress waiting = ctx.waiting("etcd to restart")) {
            waiting.waitingOn("systemctl restart " + EtcdLayout.UNIT);
            session.run(restartCommand(dataDir, EtcdLayout.USER), timeout).orThrow(session.target().name());
        } catch (SshException e) {
            throw notReadyInTime(session, "restarted", timeout, e);
        }
        return Outcome.CHANGED;
    }

    /**
     * A start or restart that ran out of time: systemd waits for etcd's ready notification, which a
     * member sends only once it has reached a quorum of its peers and they have a leader, so a member
     * cut off from the others (a partition, a firewall on the peer port) leaves systemctl waiting for
     * good. Instead of "command did not finish", the operator learns what systemd and etcd say and
     * what to do. Anything but a timeout (the host went away) is thrown as it was.
     */
    private static RuntimeException notReadyInTime(HostSession session, String action, Duration timeout, SshException e) {
        if (e.reason() != SshException.Reason.TIMEOUT) {
            return e;
        }
        CommandResult found;
        try {
            found = session.run(UNIT_STATE_AND_LOG, UNIT_STATE_TIMEOUT);
        } catch (SshException lost) {
            e.addSuppressed(lost);
            return e;
        }
        String out = found.stdout();
        int firstLine = out.indexOf('\n');
        String state = (firstLine < 0 ? out : out.substring(0, firstLine)).strip();
        String log = firstLine < 0 ? "" : out.substring(firstLine + 1);
        return new IllegalStateException(notReadyMessage(session.target().name(), action, timeout, state, log), e);
    }

    /** The message of {@link #notReadyInTime}: {@code state} is systemd's "ActiveState SubState" of the unit. */
    static String notReadyMessage(String host, String action, Duration timeout, String state, String log) {
        String lastLines = log.lines().filter(l -> !l.isBlank())
                .map(l -> "  " + (l.length() > LOG_LINE_CHARS ? l.substring(0, LOG_LINE_CHARS) + " ..." : l))
                .reduce((a, b) -> a + "\n" + b).map(l -> "\netcd's last log lines on " + host + ":\n" + l).orElse("");
        if (state.startsWith("activating start")) {
            return host + ": etcd was " + action + " but has not reported ready within " + timeout.toSeconds()
                    + " s (systemd: " + state + "). etcd reports ready only once it reaches a quorum of its peers and they"
                    + " have a leader: " + host + " cannot reach the other members (a network partition, a firewall on the"
                    + " peer port 2380), or they have lost quorum. systemd goes on starting it; no later step ran."
                    + " What to do: make sure " + host + " reaches the other members' peer URLs and 'etcdwright status'"
                    + " shows them healthy, then apply again (--restart-timeout gives a slow member longer)." + lastLines;
        }
        return host + ": etcd was " + action + " but did not come up within " + timeout.toSeconds() + " s (systemd: "
                + (state.isEmpty() ? "unknown" : state) + "); no later step ran. What to do: look at 'journalctl -u "
                + EtcdLayout.UNIT + "' on " + host + "; once etcd runs there, apply again." + lastLines;
    }

    private static final int LOG_LINE_CHARS = 300;
    private static final Duration UNIT_STATE_TIMEOUT = Duration.ofSeconds(30);
    /** $1 the unit: "ActiveState SubState" on the first line, then etcd's last log lines. */
    private static final String UNIT_STATE_AND_LOG_CODE = """
            echo "$(systemctl show -p ActiveState --value "$1") $(systemctl show -p SubState --value "$1")"
            journalctl -u "$1" -n 5 --no-pager -o cat
            """;
    static final RemoteCommand UNIT_STATE_AND_LOG = RemoteCommand.script(UNIT_STATE_AND_LOG_CODE, EtcdLayout.UNIT);

    /** $1 the unit, $2 the data directory, $3 the user etcd runs as. */
    private static final String RESTART_CODE = """
            set -eu
            unit=$1 dir=$2 owner=$3
            systemctl stop "$unit"
            if [ -d "$dir" ]; then find "$dir" ! -user "$owner" -exec chown -h "$owner:$owner" {} +; fi
            systemctl start "$unit"
            """;

    static RemoteCommand restartCommand(String dataDir, String owner) {
        return RemoteCommand.script(RESTART_CODE, EtcdLayout.UNIT, dataDir, owner);
    }

    /** $1 the unit, $2 "reload" (the unit was just written) or "if-needed"; prints "changed" when it did anything. */
    private static final String LOAD_AND_ENABLE_CODE = """
            c=
            if [ "$2" = reload ] || [ "$(systemctl show -p NeedDaemonReload --value "$1")" = yes ]; then
              systemctl daemon-reload || exit; c=1
            fi
            if [ "$(systemctl is-enabled "$1" 2>/dev/null)" != enabled ]; then
              out=$(systemctl enable "$1" 2>&1) || { echo "$out" >&2; exit 1; }; c=1
            fi
            [ -z "$c" ] || echo changed
            """;

    static RemoteCommand loadAndEnable(boolean justWritten) {
        return RemoteCommand.script(LOAD_AND_ENABLE_CODE, EtcdLayout.UNIT, justWritten ? "reload" : "if-needed");
    }

    static final String ALREADY_RUNNING = "already running";
    /**
     * A unit that failed before starts again only once its failed state is reset. A unit still
     * stopping (a stop or restart that ran out of time, a member cut off from its peers) is waited
     * for first, up to a minute: started without waiting, the start is queued behind the stop, and
     * the old process, on its way out, goes on answering the health checks that follow the start,
     * which pass while the new process, with the files just written, has not started yet.
     */
    private static final String START_CODE = "if systemctl is-active --quiet \"$1\"; then echo '" + ALREADY_RUNNING
            + "'; exit 0; fi\n"
            + "i=0; while [ \"$(systemctl is-active \"$1\")\" = deactivating ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n"
            + "systemctl reset-failed \"$1\" 2>/dev/null; systemctl start --no-block \"$1\"";
    static final RemoteCommand START = RemoteCommand.script(START_CODE, EtcdLayout.UNIT);
    static final String NOT_RUNNING = "not running";
    private static final String START_AND_WAIT_CODE = "if systemctl is-active --quiet \"$1\"; then echo '"
            + ALREADY_RUNNING + "'; exit 0; fi\n" + "systemctl reset-failed \"$1\" 2>/dev/null; systemctl start \"$1\"";
    static final RemoteCommand START_AND_WAIT = RemoteCommand.script(START_AND_WAIT_CODE, EtcdLayout.UNIT);
    /** inactive and failed are stopped; activating (a restart pending) and active are not. */
    private static final String STOP_CODE = "case $(systemctl is-active \"$1\") in inactive|failed) echo '" + NOT_RUNNING
            + "'; exit 0 ;; esac\n" + "systemctl stop \"$1\"";
    static final RemoteCommand STOP = RemoteCommand.script(STOP_CODE, EtcdLayout.UNIT);
    /** Prints what it did ("stopped", "disabled"), nothing when there was nothing to do. */
    private static final String STOP_AND_DISABLE_CODE = """
            case $(systemctl is-active "$1") in
              inactive|failed) ;;
              *) systemctl stop "$1" || exit; echo stopped ;;
            esac
            case $(systemctl is-enabled "$1" 2>/dev/null) in
              enabled|enabled-runtime) out=$(systemctl disable "$1" 2>&1) || { echo "$out" >&2; exit 1; }; echo disabled ;;
            esac
            """;
    static final RemoteCommand STOP_AND_DISABLE = RemoteCommand.script(STOP_AND_DISABLE_CODE, EtcdLayout.UNIT);
    static final RemoteCommand JOURNAL_TAIL = RemoteCommand.exec("journalctl", "-u", EtcdLayout.UNIT, "-n", "15", "--no-pager",
            "-o", "cat");
}
