package io.etcdwright.modules.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The part of a workstation's {@code $ETCDWRIGHT_HOME/clusters/NAME} that is the cluster's shared
 * state, as files: each root (the PKI directory, the removed members' hosts still to stop) under a
 * name of its own, so a file is {@code pki/ca.key} or {@code removed-hosts/h3} wherever the roots
 * are. What else is there (snapshots, the lock file, backup work) belongs to this workstation only.
 *
 * <p>Leftovers of interrupted writes ({@code .NAME.RANDOM.tmp}) are not state and are skipped; a
 * symbolic link is refused (state is files, and a link would carry a path of this machine).
 */
public final class SharedTree {
    /** A file of the state: its path under a root's name, private (0600) or public (0644), its bytes. */
    public record Entry(String path, boolean secret, byte[] content) {
        public Entry {
            content = content.clone();
        }

        @Override
        public byte[] content() {
            return content.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.path.equals(path) && e.secret == secret && Arrays.equals(e.content, content);
        }

        @Override
        public int hashCode() {
            return path.hashCode();
        }

        @Override
        public String toString() {
            return path + (secret ? " (secret)" : "") + " " + content.length + " bytes";
        }
    }

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private final Map<String, Path> roots;

    /** @param roots each root's name (the first segment of its files' paths) and its directory */
    public SharedTree(Map<String, Path> roots) {
        this.roots = new LinkedHashMap<>(roots);
    }

    public Map<String, Path> roots() {
        return Map.copyOf(roots);
    }

    /** Every file of the state as it is on disk now, by path. */
    public SortedMap<String, Entry> read() {
        SortedMap<String, Entry> files = new TreeMap<>();
        roots.forEach((name, dir) -> {
            if (!Files.isDirectory(dir)) {
                return;
            }
            try {
                Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        if (isLeftover(file.getFileName().toString())) {
                            return FileVisitResult.CONTINUE;
                        }
                        if (attrs.isSymbolicLink() || !attrs.isRegularFile()) {
                            throw new IOException(file + " is not a regular file: the shared state holds files only"
                                    + " (replace the link by the file it points to, or remove it)");
                        }
                        String path = name + "/" + dir.relativize(file).toString();
                        boolean secret = !Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
                                .contains(PosixFilePermission.OTHERS_READ);
                        files.put(path, new Entry(path, secret, Files.readAllBytes(file)));
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the state under " + dir + ": " + e.getMessage(), e);
            }
        });
        return files;
    }

    /** Leftovers of an interrupted atomic write: a hidden name ending in .tmp or .part. */
    static boolean isLeftover(String fileName) {
        return fileName.startsWith(".") && (fileName.endsWith(".tmp") || fileName.endsWith(".part"));
    }

    /** One digest of a whole tree: paths, modes and contents, in path order. */
    public static String digest(Map<String, Entry> files) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (Entry e : new TreeMap<>(files).values()) {
                d.update(e.path().getBytes(StandardCharsets.UTF_8));
                d.update((byte) 0);
                d.update((byte) (e.secret() ? 1 : 0));
                d.update(ByteBuffer.allocate(8).putLong(e.content.length).array());
                d.update(e.content);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * Makes the files on disk exactly {@code wanted}: each file that differs written whole (a
     * temporary file beside it, private from its first byte, renamed over it), each one not wanted
     * removed. Not atomic as a whole: callers mark the cache as being replaced before and done
     * after ({@link CacheRecord}), so an interrupted replace is redone, never taken for local work.
     */
    public void replace(Map<String, Entry> wanted) {
        for (Entry e : wanted.values()) {
            String root = e.path().substring(0, Math.max(0, e.path().indexOf('/')));
            if (!roots.containsKey(root)) {
                throw new IllegalArgumentException("'" + e.path() + "' is under no root of the shared state ("
                        + String.join(", ", roots.keySet()) + ")");
            }
        }
        SortedMap<String, Entry> have = read();
        for (Entry e : wanted.values()) {
            if (!e.equals(have.get(e.path()))) {
                write(fileOf(e.path()), e);
            }
        }
        for (String path : have.keySet()) {
            if (!wanted.containsKey(path)) {
                try {
                    Files.deleteIfExists(fileOf(path));
                } catch (IOException ex) {
                    throw new UncheckedIOException("cannot remove " + fileOf(path) + ": " + ex.getMessage(), ex);
                }
            }
        }
        roots.values().forEach(SharedTree::removeEmptyDirectories);
    }

    /** Where {@code path} lives on disk; refuses any path that would leave its root. */
    Path fileOf(String path) {
        int slash = path.indexOf('/');
        Path dir = slash < 0 ? null : roots.get(path.substring(0, slash));
        if (dir == null) {
            throw new IllegalArgumentException("'" + path + "' is under no root of the shared state");
        }
        String rest = path.substring(slash + 1);
        for (String segment : rest.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("'" + path + "' is not a plain relative path");
            }
        }
        Path file = dir.resolve(rest).normalize();
        if (!file.startsWith(dir.normalize()) || file.equals(dir.normalize())) {
            throw new IllegalArgumentException("'" + path + "' leaves " + dir);
        }
        return file;
    }

    private static void write(Path file, Entry e) {
        try {
            makeDirectories(file.getParent());
            Path temporary = Files.createTempFile(file.getParent(), "." + file.getFileName() + ".", ".tmp",
                    PosixFilePermissions.asFileAttribute(PRIVATE));
            try {
                Files.setPosixFilePermissions(temporary, PRIVATE);
                try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                    ByteBuffer b = ByteBuffer.wrap(e.content);
                    while (b.hasRemaining()) {
                        out.write(b);
                    }
                    out.force(true);
                }
                Files.setPosixFilePermissions(temporary, e.secret() ? PRIVATE : PUBLIC);
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                temporary = null;
            } finally {
                if (temporary != null) {
                    Files.deleteIfExists(temporary);
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot write " + file + ": " + ex.getMessage(), ex);
        }
    }

    private static void makeDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        makeDirectories(dir.getParent());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
    }

    /** Directories left empty by removed files go too (a finished CA rotation's rotation/), the roots stay. */
    private static void removeEmptyDirectories(Path root) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path dir : all.filter(Files::isDirectory).sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                if (!dir.equals(root)) {
                    try (Stream<Path> inside = Files.list(dir)) {
                        if (inside.findAny().isEmpty()) {
                            Files.delete(dir);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot tidy " + root + ": " + e.getMessage(), e);
        }
    }
}
