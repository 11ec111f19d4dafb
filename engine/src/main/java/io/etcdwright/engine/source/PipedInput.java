package io.etcdwright.engine.source;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Input given as a pipe: {@code -f <(sops -d spec.yaml)} (process substitution hands over
 * {@code /dev/fd/63}) or a FIFO made with {@code mkfifo}. A pipe has no size to check first and
 * may never end, so it is read on a thread of its own, at most {@link InputLimits#MAX_FILE_BYTES}
 * plus one byte, and given up after a timeout; and it can be read only once, so what came is kept
 * for the rest of the run (every later read of the same path gets the same text).
 */
public final class PipedInput {
    /** Long enough for a decryption that asks a key service (sops with KMS), short enough for a hung writer. */
    public static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final Map<Path, byte[]> READ = new ConcurrentHashMap<>();

    private PipedInput() {
    }

    /** Whether {@code file} is a pipe or FIFO (following links, as /dev/fd/N is one). */
    public static boolean isPipe(Path file) {
        try {
            Object mode = Files.getAttribute(file, "unix:mode");
            return mode instanceof Integer m && (m & S_IFMT) == S_IFIFO;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Whether {@code file} is a file descriptor the shell handed over ({@code /dev/fd/N},
     * {@code /proc/self/fd/N}): its directory means nothing, so paths written inside it are
     * relative to the working directory instead.
     */
    public static boolean isHandedOverDescriptor(Path file) {
        Path parent = file.toAbsolutePath().normalize().getParent();
        if (parent == null) {
            return false;
        }
        String dir = parent.toString();
        return dir.equals("/dev/fd") || dir.matches("/proc/[^/]+/fd");
    }

    /**
     * The bytes that came through the pipe until its writer closed it: at most {@code limit + 1}
     * (the caller refuses more than {@code limit}).
     *
     * @throws IOException with the reason, also when nothing ended the input within {@code timeout}
     */
    public static byte[] read(Path file, int limit, Duration timeout) throws IOException {
        Path key = file.toAbsolutePath().normalize();
        byte[] earlier = READ.get(key);
        if (earlier != null) {
            return earlier;
        }
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        // Opening a FIFO blocks until a writer opens it, and reading blocks until it closes: neither
        // can be interrupted, so the reader is a daemon thread left behind when time runs out.
        Thread reader = new Thread(() -> {
            try (InputStream in = Files.newInputStream(file)) {
                done.complete(in.readNBytes(limit + 1));
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, "pipe-reader " + file);
        reader.setDaemon(true);
        reader.start();
        try {
            byte[] bytes = done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            READ.put(key, bytes);
            return bytes;
        } catch (TimeoutException e) {
            throw new IOException("the pipe did not end within " + (timeout.toMillis() % 1000 == 0
                    ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms") + " (is the command that"
                    + " writes it still running, or waiting for input?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the pipe");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? io : new IOException(String.valueOf(cause.getMessage()), cause);
        }
    }
}
