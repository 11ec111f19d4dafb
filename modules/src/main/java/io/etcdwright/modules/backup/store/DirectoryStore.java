package io.etcdwright.modules.backup.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Backups in a local directory. Backups hold every secret of the cluster, so directories are
 * made 0700 and files 0600 from their creation on, never chmod-ed afterwards. A write goes to a
 * temporary file in the target's own directory (same filesystem, so the rename is atomic), is
 * fsync-ed, renamed over the target, and the directory fsync-ed: after a crash the key holds the
 * old content or the new, whole.
 */
public final class DirectoryStore implements Store {
    private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private final Path root;

    public DirectoryStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public String describe() {
        return root + "/";
    }

    @Override
    public void put(String key, Path file) throws IOException {
        write(key, out -> {
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = in.size();
                for (long copied = 0; copied < size; ) {
                    long n = in.transferTo(copied, size - copied, out);
                    if (n == 0 && in.size() <= copied) {
                        // transferTo answers 0 at the end of a file that shrank: without this, a loop forever
                        throw new IOException(file + " shrank from " + size + " to " + in.size() + " bytes while it was stored");
                    }
                    copied += n;
                }
            }
        });
    }

    @Override
    public void put(String key, byte[] content) throws IOException {
        write(key, out -> {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                out.write(b);
            }
        });
    }

    private interface Body {
        void writeTo(FileChannel out) throws IOException;
    }

    private void write(String key, Body body) throws IOException {
        Path target = resolve(key);
        Path dir = target.getParent();
        makeDirectories(dir);
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".part",
                PosixFilePermissions.asFileAttribute(FILE_MODE));
        boolean done = false;
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                body.writeTo(out);
                out.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            done = true;
            syncDirectory(dir);
        } finally {
            if (!done) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** Creates the missing directories between the root and {@code dir}, each 0700 from the start. */
    private void makeDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!dir.equals(root)) {
            makeDirectories(dir.getParent());
        }
        FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(DIR_MODE);
        try {
            Files.createDirectory(dir, mode);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir)) {
                throw new IOException("cannot store backups under " + dir + ": it exists and is not a directory", e);
            }
        } catch (NoSuchFileException e) {
            throw new IOException("cannot create the backup directory " + dir + ": its parent does not exist"
                    + " (create " + root.getParent() + " first)", e);
        }
    }

    /** A rename is durable only once its directory is: Linux fsyncs a directory opened for reading. */
    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    @Override
    public InputStream open(String key) throws IOException {
        return Files.newInputStream(resolve(key));
    }

    @Override
    public List<StoredObject> list(String prefix) throws IOException {
        StoreKeys.checkPrefix(prefix);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<StoredObject> found = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!a.isRegularFile() || StoreKeys.isTemporary(p.getFileName().toString())) {
                    continue;
                }
                String key = root.relativize(p).toString();
                if (key.startsWith(prefix)) {
                    found.add(new StoredObject(key, a.size(), a.lastModifiedTime().toInstant()));
                }
            }
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        found.sort(Comparator.comparing(StoredObject::key));
        return found;
    }

    @Override
    public void delete(String key) throws IOException {
        Path target = resolve(key);
        Files.deleteIfExists(target);
        // An emptied backup directory goes too: what remains says which backups exist.
        for (Path dir = target.getParent(); !dir.equals(root); dir = dir.getParent()) {
            try {
                Files.delete(dir);
            } catch (DirectoryNotEmptyException | NoSuchFileException e) {
                break;
            }
        }
    }

    private Path resolve(String key) {
        Path p = root.resolve(StoreKeys.check(key)).normalize();
        if (!p.startsWith(root) || p.equals(root)) {
            throw new IllegalArgumentException("store key '" + key + "' leaves " + root);
        }
        return p;
    }

    /** One monitor a lock file, for threads of this JVM: a POSIX lock decides only between processes. */
    private static final ConcurrentHashMap<Path, Object> IN_PROCESS = new ConcurrentHashMap<>();

    @Override
    public Optional<Versioned> read(String key) throws IOException {
        Path target = resolve(key);
        try {
            byte[] content = Files.readAllBytes(target);
            return Optional.of(new Versioned(content, StoreKeys.sha256(content)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public String putIfVersion(String key, byte[] content, Optional<String> expected) throws IOException {
        Path target = resolve(key);
        makeDirectories(target.getParent());
        return underLock(target, () -> {
            Optional<String> current = read(key).map(Versioned::version);
            if (!current.equals(expected)) {
                throw new VersionConflictException(describe(), key, expected, current);
            }
            put(key, content);
            return StoreKeys.sha256(content);
        });
    }

    @Override
    public void deleteIfVersion(String key, String expected) throws IOException {
        Path target = resolve(key);
        if (!Files.isDirectory(target.getParent())) {
            throw new VersionConflictException(describe(), key, Optional.of(expected), Optional.empty());
        }
        underLock(target, () -> {
            Optional<String> current = read(key).map(Versioned::version);
            if (!current.equals(Optional.of(expected))) {
                throw new VersionConflictException(describe(), key, Optional.of(expected), current);
            }
            Files.delete(target);
            syncDirectory(target.getParent());
            return expected;
        });
    }

    private interface Locked {
        String run() throws IOException;
    }

    /**
     * Runs {@code body} holding the key's lock file ({@code .NAME.cas.part} beside it, never listed,
     * never removed: removing a lock file others may have open would let two writers hold "the" lock).
     * Every writer of every process takes it, on a local disk or NFS with its lock manager.
     */
    private String underLock(Path target, Locked body) throws IOException {
        Path lockFile = target.resolveSibling("." + target.getFileName() + ".cas.part");
        synchronized (IN_PROCESS.computeIfAbsent(lockFile, f -> new Object())) {
            try (FileChannel channel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(FILE_MODE));
                 java.nio.channels.FileLock held = channel.lock()) {
                return body.run();
            }
        }
    }

    @Override
    public void close() {
        // nothing held open between calls
    }
}
