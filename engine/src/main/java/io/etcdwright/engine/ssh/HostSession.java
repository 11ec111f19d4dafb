package io.etcdwright.engine.ssh;

import com.jcraft.jsch.ChannelExec;
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

    /** Runs a shell command line (as root when the target says become). */
    public CommandResult run(String command) {
        return run(command, null, defaultTimeout);
    }

    /** Runs a multi-line script fed to {@code sh -s} on stdin: no quoting or length limits. */
    public CommandResult runScript(String script) {
        return run("sh -s", new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)), defaultTimeout);
    }

    public CommandResult runScript(String script, Duration timeout) {
        return run("sh -s", new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)), timeout);
    }

    public CommandResult run(String command, InputStream stdin, Duration timeout) {
        String wire = target.needsSudo() ? "sudo -n -- sh -c " + Shell.quote(command) : command;
        ChannelExec channel;
        try {
            channel = (ChannelExec) session.openChannel("exec");
        } catch (JSchException e) {
            throw lost(e);
        }
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
            timedOut.set(true);
            channel.disconnect();
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            channel.setCommand(wire);
            channel.setErrStream(stderr, true);
            InputStream out = channel.getInputStream();
            OutputStream in = channel.getOutputStream();
            channel.connect((int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            if (stdin != null) {
                stdin.transferTo(in);
            }
            in.close(); // EOF: the remote side stops waiting for input
            out.transferTo(stdout);
            while (!channel.isClosed() && !timedOut.get()) {
                Thread.sleep(1); // the exit status arrives just after the last output
            }
        } catch (IOException | JSchException e) {
            if (!timedOut.get()) {
                throw lost(e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SshException(target.name(), SshException.Reason.TIMEOUT, "interrupted while running a command", e);
        } finally {
            watchdog.cancel(false);
            channel.disconnect();
        }
        if (timedOut.get()) {
            throw new SshException(target.name(), SshException.Reason.TIMEOUT,
                    "command did not finish within " + timeout.toSeconds() + " s: " + abbreviate(command), null);
        }
        return new CommandResult(command, channel.getExitStatus(),
                stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
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
        try (InputStream in = Files.newInputStream(local)) {
            upload(in, sha256, file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + local + ": " + e.getMessage(), e);
        }
    }

    /**
     * Lands a file atomically: written to a temporary file beside the target (private from the
     * start), verified by sha256 on the host, given its owner and mode, then renamed over the
     * target. A reader never sees a half-written or wrongly-permissioned file, and a transfer
     * damaged on the way is refused instead of installed.
     */
    public void upload(InputStream content, String sha256, RemoteFile file) {
        String script = String.join("\n",
                "set -eu",
                "p=" + Shell.quote(file.path()),
                "d=$(dirname \"$p\")",
                "mkdir -p \"$d\"",
                "t=$(mktemp \"$d/.etcdwright-upload.XXXXXX\")",
                "trap 'rm -f \"$t\"' EXIT",
                "cat > \"$t\"",
                "s=$(sha256sum \"$t\"); s=${s%% *}",
                "if [ \"$s\" != " + Shell.quote(sha256) + " ]; then",
                "  echo \"upload of $p arrived damaged (sha256 $s, sent " + sha256 + ")\" >&2; exit 3",
                "fi",
                "chown " + Shell.quote(file.owner() + ":" + file.group()) + " \"$t\"",
                "chmod " + file.mode() + " \"$t\"",
                "mv -f \"$t\" \"$p\"",
                "trap - EXIT");
        // The script is the command and the content is stdin: sh -c keeps stdin free for cat.
        run("sh -c " + Shell.quote(script), content, defaultTimeout).orThrow(target.name());
    }

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

    public boolean isConnected() {
        return session.isConnected();
    }

    @Override
    public void close() {
        session.disconnect();
    }

    private SshException lost(Exception e) {
        return new SshException(target.name(), SshException.Reason.UNREACHABLE,
                "lost the SSH connection (" + e.getMessage() + ")", e);
    }

    private static String abbreviate(String command) {
        String oneLine = command.replace('\n', ' ');
        return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 77) + "...";
    }
}
