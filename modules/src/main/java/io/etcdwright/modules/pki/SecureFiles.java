package io.etcdwright.modules.pki;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes certificates (0644) and private keys (0600) on the workstation.
 *
 * <p>Each file is written to a temporary file in the same directory that is created 0600 -- so a
 * key is never readable by others, not even between create and chmod -- then flushed, given its
 * final mode, and renamed over the target. A crash therefore leaves the old file or the new one,
 * never half a key, and a rerun replaces a file that somebody had made world-readable.
 */
public final class SecureFiles {
    static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> PRIVATE_DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private SecureFiles() {
    }

    public static void writePrivate(Path file, String content, String what) {
        write(file, content, PRIVATE, what);
    }

    public static void writePublic(Path file, String content, String what) {
        write(file, content, PUBLIC, what);
    }

    private static void write(Path file, String content, Set<PosixFilePermission> mode, String what) {
        Path target = file.toAbsolutePath();
        Path directory = target.getParent();
        Path temporary = null;
        try {
            // A directory we create holds keys, so only the owner may list it; an existing one is left alone.
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(PRIVATE_DIRECTORY));
            requirePosix(directory, what, target);
            removeLeftovers(target);
            temporary = Files.createTempFile(directory, "." + target.getFileName() + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(PRIVATE));
            // The umask can only have removed bits; make it exactly 0600 before any byte is written.
            Files.setPosixFilePermissions(temporary, PRIVATE);
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.US_ASCII));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            Files.setPosixFilePermissions(temporary, mode);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temporary = null;
            syncDirectory(directory);
        } catch (AtomicMoveNotSupportedException e) {
            throw new PkiException("cannot write " + what + " " + target + ": its file system cannot rename atomically", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new PkiException("cannot write " + what + " " + target + ": " + Pem.describe(e), e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // The write already failed and says so; a leftover 0600 temporary file is harmless.
                }
            }
        }
    }

    /**
     * Removes the temporary files an earlier write of {@code file} left behind: a process killed
     * between creating its temporary and renaming it (an operator's Ctrl-C, a CI runner gone) cannot
     * clean up. Only names this class makes ({@code .NAME.<digits>.tmp} beside the file) are touched.
     */
    public static void removeLeftovers(Path file) {
        Path target = file.toAbsolutePath();
        Path directory = target.getParent();
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (var entries = Files.newDirectoryStream(directory, entry -> isTemporaryOf(entry, target))) {
            for (Path leftover : entries) {
                Files.deleteIfExists(leftover);
            }
        } catch (IOException e) {
            throw new PkiException("cannot remove what an interrupted write of " + target + " left: " + Pem.describe(e), e);
        }
    }

    /** Whether {@code candidate} is a temporary file of a write of {@code target} (see {@link #write}). */
    static boolean isTemporaryOf(Path candidate, Path target) {
        String prefix = "." + target.getFileName() + ".";
        String name = candidate.getFileName().toString();
        return name.startsWith(prefix) && name.endsWith(".tmp") && name.length() > prefix.length() + 4
                && name.substring(prefix.length(), name.length() - 4).chars().allMatch(Character::isDigit);
    }

    private static void requirePosix(Path directory, String what, Path target) throws IOException {
        if (!Files.getFileStore(directory).supportsFileAttributeView(PosixFileAttributeView.class)) {
            throw new PkiException("cannot write " + what + " " + target + ": its file system has no POSIX permissions,"
                    + " so etcdwright cannot keep a private key readable by its owner only");
        }
    }

    /** Makes the rename itself durable: losing a freshly written CA key to a power cut would orphan every certificate. */
    private static void syncDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException ignored) {
            // Some platforms cannot open a directory for syncing; the file itself was already forced.
        }
    }
}
