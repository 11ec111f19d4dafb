package io.etcdwright.modules.lock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The workstation's side of a cluster's lock: a POSIX lock on {@code $ETCDWRIGHT_HOME/clusters/NAME/lock},
 * holding the holder's description. It covers what the lock in etcd cannot: a cluster that does not
 * run yet (two creates at once) or whose etcd does not answer. The operating system releases it when
 * its process ends, however it ends, so it is never stale; the file itself stays (removing a lock
 * file races with the next taker).
 */
public final class WorkstationLock implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(500);

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private WorkstationLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    public Path file() {
        return file;
    }

    /**
     * Takes the lock, waiting up to {@code wait} (zero: not at all) while another process holds it.
     *
     * @throws ClusterLockedException naming the holder when it is still held after {@code wait}
     */
    public static WorkstationLock take(Path file, LockHolder holder, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            Files.createDirectories(file.getParent());
            while (true) {
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                FileLock lock = null;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    // Held by this very JVM (another run in the same process): as held as by any other.
                }
                if (lock != null) {
                    channel.truncate(0);
                    channel.write(ByteBuffer.wrap((holder.toJson() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
                    channel.force(false);
                    return new WorkstationLock(file, channel, lock);
                }
                channel.close();
                if (System.nanoTime() >= deadline) {
                    throw new ClusterLockedException("the cluster is locked on this workstation by "
                            + heldBy(file).map(h -> h.describe(Instant.now())).orElse("another etcdwright process (it has not said who yet)")
                            + " (" + file + "). Wait for it to finish, or pass --lock-timeout to wait here;"
                            + " the lock goes with its process, so it is never left behind by one that died");
                }
                Thread.sleep(POLL.toMillis());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot take the lock " + file + ": " + e.getMessage(), e);
        }
    }

    /** Who the lock file names (its last holder, who may be gone: only a held lock means anything). */
    public static Optional<LockHolder> heldBy(Path file) {
        try {
            return LockHolder.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether a process holds it now (asked by taking it for an instant). */
    public static boolean isHeld(Path file) {
        if (!Files.exists(file)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the lock " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            channel.truncate(0);
            lock.release();
            channel.close();
        } catch (IOException e) {
            // Closing the channel (or the process ending) releases it anyway.
        }
    }
}
