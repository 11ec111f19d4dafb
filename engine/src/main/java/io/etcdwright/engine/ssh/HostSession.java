package io.etcdwright.engine.ssh;

import com.jcraft.jsch.Channel;
import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.ChannelSftp;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.Session;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One SSH connection to one host, reused for every command and transfer of a run: a new
 * connection costs a key exchange (about a quarter of a second), a new channel on this one a
 * single round trip.
 */
public final class HostSession implements AutoCloseable {
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ssh-command-timeouts");
        t.setDaemon(true);
        return t;
    });

    /** How often a running command looks whether its session is still up. */
    private static final Duration SESSION_CHECK = Duration.ofMillis(500);

    private final SshTarget target;
    private final Session session;
    private final Duration defaultTimeout;

    HostSession(SshTarget target, Session session, Duration defaultTimeout) {
        this.target = target;
        this.session = session;
        this.defaultTimeout = defaultTimeout;
    }

    public SshTarget target() {
        return target;
    }

    /** Runs a command (as root, through {@code sudo -n --}, when the target says become). */
    public CommandResult run(RemoteCommand command) {
        return run(command, null, defaultTimeout);
    }

    public CommandResult run(RemoteCommand command, Duration timeout) {
        return run(command, null, timeout);
    }

    /** Runs a command with {@code stdin} as its input, within the run's command timeout. */
    public CommandResult run(RemoteCommand command, InputStream stdin) {
        return run(command, stdin, defaultTimeout);
    }

    /**
     * Runs a command with {@code stdin} as its input (null for none). A {@link RemoteCommand.StdinScript}
     * reads its code from stdin, so it takes no other input.
     */
    public CommandResult run(RemoteCommand command, InputStream stdin, Duration timeout) {
        byte[] prefix = command.stdinPrefix();
        if (prefix.length > 0 && stdin != null) {
            throw new IllegalArgumentException("a script read from stdin cannot be given other input: " + command.describe());
        }
        InputStream input = prefix.length > 0 ? new ByteArrayInputStream(prefix) : stdin;
        String wire = command.wire(target.needsSudo());
        String what = command.describe();
        ChannelExec channel;
        try {
            channel = (ChannelExec) session.openChannel("exec");
        } catch (JSchException e) {
            throw lost(e);
        }
        if (channel == null) { // jsch returns null when the session went down while opening the channel
            throw lost(new JSchException("session is down"));
        }
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
            timedOut.set(true);
            channel.disconnect();
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        // The session gone (its sshd killed, the host rebooted: jsch saw the connection close) ends every
        // command on it at once. A command whose input was blocked on the channel's window, or whose open
        // was not confirmed yet, would otherwise wait out the whole timeout on a connection that is no more
        // (a release upload's sshd killed cost the certificates step beside it 300 s, waiting for a channel to open).
        AtomicBoolean sessionLost = new AtomicBoolean();
        ScheduledFuture<?> liveness = WATCHDOG.scheduleWithFixedDelay(() -> {
            if (!session.isConnected()) {
                sessionLost.set(true);
                channel.disconnect();
                // jsch waits for a channel's open confirmation in Object.wait on the channel, for as long as the
                // connect timeout (the command's), and a session going down does not wake it: this does.
                synchronized (channel) {
                    channel.notifyAll();
                }
            }
        }, SESSION_CHECK.toMillis(), SESSION_CHECK.toMillis(), TimeUnit.MILLISECONDS);
        // jsch writes the command's output straight into stdout on its session thread and closes this
        // sink at the command's EOF. Not channel.getInputStream(): that is a PipedInputStream, whose
        // reader may sleep out a whole second (it waits in steps of 1 s and the last bytes do not
        // always wake it), which was a 1 s stall in about a third of all no-op plans.
        java.util.concurrent.CountDownLatch outputEnded = new java.util.concurrent.CountDownLatch(1);
        OutputStream sink = new OutputStream() {
            @Override
            public void write(int b) {
                stdout.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                stdout.write(b, off, len);
            }

            @Override
            public void close() {
                outputEnded.countDown();
            }
        };
        try {
            channel.setCommand(wire);
            channel.setErrStream(stderr, true);
            channel.setOutputStream(sink, false);
            OutputStream in = channel.getOutputStream();
            channel.connect((int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            boolean allSent = input == null || send(input, in);
            try {
                in.close(); // EOF: the remote side stops waiting for input
            } catch (IOException e) {
                if (allSent) {
                    throw e;
                } // else the command closed its input itself: its exit status says why
            }
            while (!outputEnded.await(20, TimeUnit.MILLISECONDS) && !channel.isClosed() && !timedOut.get() && !sessionLost.get()) {
                // the output is still coming; a channel closed without an EOF, or timed out, ends the wait too
            }
            while (!channel.isClosed() && !timedOut.get() && !sessionLost.get()) {
                Thread.sleep(1); // the exit status arrives just after the last output
            }
        } catch (IOException | JSchException e) {
            if (!timedOut.get() || sessionLost.get()) {
                throw lost(e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SshException(target.name(), SshException.Reason.TIMEOUT, "interrupted while running a command", e);
        } finally {
            watchdog.cancel(false);
            liveness.cancel(false);
            channel.disconnect();
        }
        if (sessionLost.get() && channel.getExitStatus() < 0) {
            throw lost(new IOException("the connection closed before the command ended: " + what));
        }
        if (timedOut.get()) {
            throw new SshException(target.name(), SshException.Reason.TIMEOUT,
                    "command did not finish within " + timeout.toSeconds() + " s: " + what, null);
        }
        if (channel.getExitStatus() < 0 && !answers()) {
            throw lost(new IOException("the connection closed before the command ended: " + what));
        }
        return new CommandResult(what, channel.getExitStatus(),
                stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
    }

    /**
     * Copies the input to the channel. A command that exits without reading all of it (it
     * refused the input, or failed early) closes the channel: the rest is dropped, and its exit
     * status and stderr say why, instead of a broken pipe that would read as a lost connection.
     * A failure to read the local input is not the host's fault and is thrown as it is.
     *
     * @return whether all of the input was sent
     */
    private static boolean send(InputStream input, OutputStream channelIn) {
        byte[] buffer = new byte[64 * 1024];
        int n;
        while ((n = readLocal(input, buffer)) >= 0) {
            try {
                channelIn.write(buffer, 0, n);
            } catch (IOException closedByHost) {
                return false;
            }
        }
        return true;
    }

    private static int readLocal(InputStream input, byte[] buffer) {
        try {
            return input.read(buffer);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read the input for the host: " + e.getMessage(), e);
        }
    }

    /** Writes a small file atomically: see {@link #upload(InputStream, String, RemoteFile)}. */
    public void upload(byte[] content, RemoteFile file) {
        upload(new ByteArrayInputStream(content), sha256(content), file);
    }

    /** Streams a local file (a release tarball, a snapshot) without holding it in memory. */
    public void upload(Path local, RemoteFile file) {
        String digest;
        try (InputStream in = Files.newInputStream(local)) {
            digest = sha256(in);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + local + ": " + e.getMessage(), e);
        }
        upload(local, digest, file);
    }

    /** As {@link #upload(Path, RemoteFile)}, for a file whose digest the caller already verified. */
    public void upload(Path local, String sha256, RemoteFile file) {
        upload(local, sha256, file, bytes -> { });
    }

    /** As {@link #upload(Path, String, RemoteFile)}, telling {@code progress} the bytes sent so far. */
    public void upload(Path local, String sha256, RemoteFile file, java.util.function.LongConsumer progress) {
        try (InputStream in = new CountingInputStream(Files.newInputStream(local), progress)) {
            upload(in, sha256, file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + local + ": " + e.getMessage(), e);
        }
    }

    /**
     * Lands a file atomically: written to a temporary file beside the target (private from the
     * start), verified by sha256 on the host, given its owner and mode, then renamed over the
     * target (an identical file is left as it is, its owner and mode put right). A reader never
     * sees a half-written or wrongly-permissioned file, and a transfer damaged on the way is
     * refused instead of installed.
     */
    public void upload(InputStream content, String sha256, RemoteFile file) {
        // The script is the command and the content is stdin: sh -c keeps stdin free for cat.
        run(uploadCommand(sha256, file), content, defaultTimeout).orThrow(target.name());
    }

    /** Path, digest, owner and mode as arguments of a fixed script; the content follows on stdin. */
    static RemoteCommand uploadCommand(String sha256, RemoteFile file) {
        return new RemoteCommand.Script(LAND, List.of(file.path(), sha256, file.owner() + ":" + file.group(), file.mode()));
    }

    /**
     * Makes a small file hold exactly this content, owner and mode, writing it only when it does
     * not already: one round trip, the same script as {@link #upload(InputStream, String, RemoteFile)}.
     * Returns whether anything changed, so a step reports OK when the file was already right (an
     * apply resumed after an interruption, or a drift someone already undid).
     */
    public boolean sync(byte[] content, RemoteFile file) {
        CommandResult result = run(syncCommand(content, file), new ByteArrayInputStream(content), defaultTimeout)
                .orThrow(target.name());
        return result.stdout().strip().equals("changed");
    }

    /** As {@link #uploadCommand}, for content in hand. */
    static RemoteCommand syncCommand(byte[] content, RemoteFile file) {
        return uploadCommand(sha256(content), file);
    }

    /**
     * The one script that lands a file (upload and sync): the content arrives on stdin into a
     * private temporary file beside the target and is verified by sha256; an identical file only
     * gets its owner and mode fixed, in place (its time still says when its content last changed,
     * which tells whether etcd runs with it); anything else is renamed over the target. Prints
     * "changed" when it changed anything.
     */
    private static final String LAND = """
            set -eu
            p=$1 want=$2 owner=$3 mode=$4
            d=$(dirname -- "$p")
            mkdir -p -- "$d"
            t=$(mktemp -- "$d/.etcdwright-upload.XXXXXX")
            trap 'rm -f -- "$t"' EXIT
            cat > "$t"
            s=$(sha256sum < "$t"); s=${s%% *}
            if [ "$s" != "$want" ]; then
              printf 'upload of %s arrived damaged (sha256 %s, sent %s)\n' "$p" "$s" "$want" >&2; exit 3
            fi
            if [ -f "$p" ] && [ ! -L "$p" ] && cmp -s -- "$t" "$p"; then
              # stat prints the mode without a leading zero: 0644 is compared as 644.
              [ "$(stat -c '%a %U:%G' -- "$p")" = "${mode#0} $owner" ] && exit 0
              chown -- "$owner" "$p"
              chmod -- "$mode" "$p"
              echo changed; exit 0
            fi
            chown -- "$owner" "$t"
            chmod -- "$mode" "$t"
            mv -f -- "$t" "$p"
            trap - EXIT
            echo changed
            """;

    public static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (DigestInputStream din = new DigestInputStream(in, md)) {
                din.transferTo(OutputStream.nullOutputStream());
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An SFTP channel on this connection, for file transfers without a shell (a backup store on a
     * host): as the login user, never through sudo; the host key was checked when the session
     * opened. The caller disconnects it; a channel is one round trip, the connection stays.
     */
    public ChannelSftp sftp() {
        try {
            ChannelSftp channel = (ChannelSftp) session.openChannel("sftp");
            channel.connect((int) Math.min(defaultTimeout.toMillis(), Integer.MAX_VALUE));
            return channel;
        } catch (JSchException e) {
            if (session.isConnected()) {
                throw new SshException(target.name(), SshException.Reason.PROTOCOL,
                        "the host refused an SFTP channel (" + e.getMessage() + "); its sshd needs a 'Subsystem sftp' line", e);
            }
            throw lost(e);
        }
    }

    /**
     * Whether the connection still carries traffic, proved by a channel the host confirms. A channel
     * that closed without an exit status is asked about this way, not by {@code isConnected()}
     * alone: when the connection drops, jsch closes the session's channels first and marks the
     * session disconnected only after, so a command cut off by a dropped connection could read as
     * one that ended with no status (a signal) and be reported as a failed command, not a lost host.
     */
    private boolean answers() {
        if (!session.isConnected()) {
            return false;
        }
        Channel probe = null;
        try {
            probe = session.openChannel("exec");
            if (probe == null) {
                return false; // jsch returns null when the session went down while opening the channel
            }
            ((ChannelExec) probe).setCommand("true");
            probe.connect(LIVENESS_TIMEOUT_MS); // waits for the host's confirmation, or for the session to go down
            return true;
        } catch (JSchException e) {
            return false;
        } finally {
            if (probe != null) {
                probe.disconnect();
            }
        }
    }

    private static final int LIVENESS_TIMEOUT_MS = 10_000;

    public boolean isConnected() {
        return session.isConnected();
    }

    @Override
    public void close() {
        session.disconnect();
    }

    private SshException lost(Exception e) {
        return new SshException(target.name(), SshException.Reason.UNREACHABLE,
                "lost the SSH connection (" + inOperatorWords(e) + ")", e);
    }

    /** A Java class name before a message, as jsch and the JDK nest them ("java.net.SocketException: Broken pipe"). */
    private static final java.util.regex.Pattern CLASS_PREFIX =
            java.util.regex.Pattern.compile("(?:[a-z_][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error)(?:: ?|$)");

    /**
     * Why a connection dropped, in the words of the failure without the Java class names the
     * libraries put before them: the operator reads "broken pipe", not a type from a stack trace.
     */
    static String inOperatorWords(Throwable e) {
        String message = e.getMessage() == null && e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
        String words = message == null ? "" : CLASS_PREFIX.matcher(message).replaceAll("").strip();
        if (words.isEmpty()) {
            return "no reason given";
        }
        return Character.toLowerCase(words.charAt(0)) + words.substring(1);
    }
}
