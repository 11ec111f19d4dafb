package io.etcdwright.modules.backup.store;

import com.jcraft.jsch.ChannelSftp;
import com.jcraft.jsch.SftpATTRS;
import com.jcraft.jsch.SftpException;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Backups in a directory of a host, over SFTP on the run's SSH connection (strict host keys,
 * like every other use of that connection). Writes go to {@code .NAME.part} beside the target,
 * made 0600 before any content arrives, are fsync-ed ({@code sync FILE}: JSch lacks OpenSSH's
 * fsync extension), renamed over the target with OpenSSH's posix-rename (atomic, replaces), and
 * the directory fsync-ed. Directories are made 0700. Content is streamed, never held in memory.
 */
public final class SftpStore implements Store {
    private static final int DIR_MODE = 0700;
    private static final int FILE_MODE = 0600;

    private final HostSession session;
    private final String root;
    private final Set<String> knownDirectories = new HashSet<>();
    private ChannelSftp channel;

    /** @param root an absolute directory on the host; made (0700) on the first write */
    public SftpStore(HostSession session, String root) {
        if (!root.startsWith("/")) {
            throw new IllegalArgumentException("the SFTP backup directory must be absolute: '" + root + "'");
        }
        this.session = session;
        this.root = root.length() > 1 && root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
    }

    @Override
    public String describe() {
        return "sftp://" + session.target().name() + root + "/";
    }

    @Override
    public void put(String key, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            write(key, in);
        }
    }

    @Override
    public void put(String key, byte[] content) throws IOException {
        write(key, new ByteArrayInputStream(content));
    }

    private synchronized void write(String key, InputStream content) throws IOException {
        String path = path(key);
        String dir = path.substring(0, path.lastIndexOf('/'));
        String temp = dir + "/." + StoreKeys.lastSegment(key) + ".part";
        ChannelSftp sftp = channel();
        makeDirectories(sftp, dir);
        boolean renamed = false;
        try {
            // Created empty and made private first: the content never sits in a readable file.
            sftp.put(new ByteArrayInputStream(new byte[0]), temp, ChannelSftp.OVERWRITE);
            sftp.chmod(FILE_MODE, temp);
            sftp.put(content, temp, ChannelSftp.OVERWRITE);
            sync(temp);
            sftp.rename(temp, path);
            renamed = true;
            sync(dir);
        } catch (SftpException e) {
            throw failure("cannot write " + key, path, e);
        } finally {
            if (!renamed) {
                removeQuietly(sftp, temp);
            }
        }
    }

    /** Data first on disk, then the name: a crash never leaves a whole name over partial content. */
    private void sync(String path) {
        session.run(RemoteCommand.exec("sync", "--", path)).orThrow(session.target().name());
    }

    private void makeDirectories(ChannelSftp sftp, String dir) throws IOException {
        if (knownDirectories.contains(dir)) {
            return;
        }
        StringBuilder current = new StringBuilder();
        for (String segment : dir.substring(1).split("/")) {
            current.append('/').append(segment);
            String d = current.toString();
            if (knownDirectories.contains(d)) {
                continue;
            }
            try {
                SftpATTRS attrs = sftp.stat(d);
                if (!attrs.isDir()) {
                    throw new IOException(describe() + ": " + d + " exists on " + session.target().name()
                            + " and is not a directory; choose another backup directory");
                }
            } catch (SftpException missing) {
                if (missing.id != ChannelSftp.SSH_FX_NO_SUCH_FILE) {
                    throw failure("cannot look at directory " + d, d, missing);
                }
                try {
                    sftp.mkdir(d);
                    sftp.chmod(DIR_MODE, d);
                } catch (SftpException e) {
                    throw failure("cannot create directory " + d, d, e);
                }
            }
            knownDirectories.add(d);
        }
    }

    @Override
    public InputStream open(String key) throws IOException {
        String path = path(key);
        // A channel of its own: the caller reads at its pace while this store goes on with other calls.
        ChannelSftp reader = session.sftp();
        try {
            InputStream in = reader.get(path);
            return new FilterInputStream(in) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    } finally {
                        reader.disconnect();
                    }
                }
            };
        } catch (SftpException e) {
            reader.disconnect();
            throw failure("cannot read " + key, path, e);
        }
    }

    @Override
    public synchronized List<StoredObject> list(String prefix) throws IOException {
        StoreKeys.checkPrefix(prefix);
        List<StoredObject> found = new ArrayList<>();
        try {
            collect(channel(), "", prefix, found);
        } catch (SftpException e) {
            if (e.id != ChannelSftp.SSH_FX_NO_SUCH_FILE) {
                throw failure("cannot list", root, e);
            } // no directory yet: no backups yet
        }
        found.sort(Comparator.comparing(StoredObject::key));
        return found;
    }

    /** Walks only the directories that can hold keys with the prefix. */
    private void collect(ChannelSftp sftp, String dirKey, String prefix, List<StoredObject> found) throws SftpException {
        String dir = dirKey.isEmpty() ? root : root + "/" + dirKey;
        for (Object o : sftp.ls(dir)) {
            ChannelSftp.LsEntry entry = (ChannelSftp.LsEntry) o;
            String name = entry.getFilename();
            if (name.equals(".") || name.equals("..")) {
                continue;
            }
            String key = dirKey.isEmpty() ? name : dirKey + "/" + name;
            SftpATTRS a = entry.getAttrs();
            if (a.isDir()) {
                String asDir = key + "/";
                if (asDir.startsWith(prefix) || prefix.startsWith(asDir)) {
                    collect(sftp, key, prefix, found);
                }
            } else if (a.isReg() && !StoreKeys.isTemporary(name) && key.startsWith(prefix)) {
                found.add(new StoredObject(key, a.getSize(), Instant.ofEpochSecond(a.getMTime())));
            }
        }
    }

    @Override
    public synchronized void delete(String key) throws IOException {
        String path = path(key);
        ChannelSftp sftp = channel();
        try {
            sftp.rm(path);
        } catch (SftpException e) {
            if (e.id != ChannelSftp.SSH_FX_NO_SUCH_FILE) {
                throw failure("cannot delete " + key, path, e);
            }
        }
        // An emptied backup directory goes too; rmdir refuses one that is not empty, which ends the walk.
        for (String dir = path.substring(0, path.lastIndexOf('/')); dir.length() > root.length();
             dir = dir.substring(0, dir.lastIndexOf('/'))) {
            try {
                sftp.rmdir(dir);
                knownDirectories.remove(dir);
            } catch (SftpException notEmptyOrGone) {
                break;
            }
        }
    }

    private String path(String key) {
        return root + "/" + StoreKeys.check(key);
    }

    private ChannelSftp channel() {
        if (channel == null || channel.isClosed() || !channel.isConnected()) {
            channel = session.sftp();
            knownDirectories.clear();
        }
        return channel;
    }

    private static void removeQuietly(ChannelSftp sftp, String path) {
        try {
            sftp.rm(path);
        } catch (SftpException ignored) {
            // already gone, or the connection is: the write's own error says what happened
        }
    }

    private IOException failure(String what, String path, SftpException e) {
        String where = describe() + " (" + path + " on " + session.target().name() + ")";
        return switch (e.id) {
            case ChannelSftp.SSH_FX_NO_SUCH_FILE -> new NoSuchFileException(where, null, what + ": no such file");
            case ChannelSftp.SSH_FX_PERMISSION_DENIED -> new AccessDeniedException(where, null, what
                    + ": permission denied for " + session.target().user()
                    + "; give that user write access to " + root + " or choose another backup directory");
            default -> new IOException(what + " at " + where + ": " + e.getMessage(), e);
        };
    }

    /**
     * Compare-and-swap on the host: under {@code flock} on {@code .NAME.cas.part} (the same lock
     * every etcdwright writing this store takes), the target's SHA-256 is compared with the expected
     * one ("" for absent); only when equal is the uploaded temporary file renamed over it (or, with
     * no temporary file, the target removed). Exit 3 with the version found on a mismatch.
     * $1 target, $2 expected version, $3 temporary file or "", $4 lock file.
     */
    static final String COMPARE_AND_SWAP = String.join("\n",
            "exec 9>>\"$4\" || exit 2",
            "flock -w 60 9 || { echo 'waited 60 s for the store lock' >&2; exit 2; }",
            "if [ -e \"$1\" ]; then cur=$(sha256sum < \"$1\") || exit 2; cur=${cur%% *}; else cur=''; fi",
            "if [ \"$cur\" != \"$2\" ]; then printf '%s' \"$cur\"; [ -z \"$3\" ] || rm -f -- \"$3\"; exit 3; fi",
            "if [ -n \"$3\" ]; then sync -- \"$3\" && mv -f -- \"$3\" \"$1\" || exit 2; else rm -f -- \"$1\" || exit 2; fi",
            "sync -- \"${1%/*}\"");

    @Override
    public Optional<Versioned> read(String key) throws IOException {
        try (InputStream in = open(key)) {
            byte[] content = in.readAllBytes();
            return Optional.of(new Versioned(content, StoreKeys.sha256(content)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public synchronized String putIfVersion(String key, byte[] content, Optional<String> expected) throws IOException {
        String path = path(key);
        String dir = path.substring(0, path.lastIndexOf('/'));
        String temp = dir + "/." + StoreKeys.lastSegment(key) + "." + Long.toHexString(new java.security.SecureRandom().nextLong()) + ".part";
        ChannelSftp sftp = channel();
        makeDirectories(sftp, dir);
        try {
            sftp.put(new ByteArrayInputStream(new byte[0]), temp, ChannelSftp.OVERWRITE);
            sftp.chmod(FILE_MODE, temp);
            sftp.put(new ByteArrayInputStream(content), temp, ChannelSftp.OVERWRITE);
        } catch (SftpException e) {
            removeQuietly(sftp, temp);
            throw failure("cannot write " + key, path, e);
        }
        swap(key, path, temp, expected);
        return StoreKeys.sha256(content);
    }

    @Override
    public synchronized void deleteIfVersion(String key, String expected) throws IOException {
        String path = path(key);
        swap(key, path, "", Optional.of(expected));
    }

    private void swap(String key, String path, String temp, Optional<String> expected) throws IOException {
        String lock = path.substring(0, path.lastIndexOf('/')) + "/." + StoreKeys.lastSegment(key) + ".cas.part";
        var result = session.run(new RemoteCommand.Script(COMPARE_AND_SWAP, List.of(path, expected.orElse(""), temp, lock)));
        if (result.exitCode() == 3) {
            String found = result.stdout().strip();
            throw new VersionConflictException(describe(), key, expected, found.isEmpty() ? Optional.empty() : Optional.of(found));
        }
        if (!result.succeeded()) {
            throw new IOException("cannot write " + key + " at " + describe() + " on " + session.target().name() + ": "
                    + (result.stderr().isBlank() ? "exit " + result.exitCode() : result.stderr().strip())
                    + (result.stderr().contains("flock") ? " (the store's host needs flock, from util-linux)" : ""));
        }
    }

    @Override
    public synchronized void close() {
        if (channel != null) {
            channel.disconnect();
            channel = null;
        }
    }
}
