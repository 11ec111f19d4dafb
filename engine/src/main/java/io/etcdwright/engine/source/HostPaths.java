package io.etcdwright.engine.source;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * Directories on the hosts etcdwright may own (etcd's data directory, a backup directory):
 * destroy empties them, so a typo must never name a directory the system or another program
 * lives in. A path is refused when it is not absolute and normalized, when it is one of
 * {@link #SYSTEM_DIRECTORIES} or contains one (a parent would be emptied with it), or when it
 * lies anywhere inside {@link #SYSTEM_TREES}.
 */
public final class HostPaths {

    /** Directories that must never be emptied, nor any directory that contains them. */
    public static final List<String> SYSTEM_DIRECTORIES = List.of("/", "/bin", "/boot", "/dev", "/etc", "/home",
            "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv",
            "/sys", "/tmp", "/usr", "/usr/local", "/usr/local/bin", "/var", "/var/backups", "/var/cache", "/var/lib",
            "/var/log", "/var/mail", "/var/opt", "/var/run", "/var/spool", "/var/tmp", "/etc/etcd", "/opt/etcd");

    /**
     * Trees nothing of etcdwright's may live in. /etc holds the host's configuration, among it
     * etcdwright's own /etc/etcd/pki, which a data directory there would take with it on
     * destroy; /run and /var/run are memory only, so etcd's data would be gone after a reboot;
     * /opt/etcd holds etcd's binaries, which uninstall removes.
     */
    public static final List<String> SYSTEM_TREES = List.of("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64",
            "/libx32", "/opt/etcd", "/proc", "/root/.ssh", "/run", "/sbin", "/sys", "/usr", "/var/run",
            "/var/lib/apt", "/var/lib/dpkg", "/var/lib/rpm", "/var/lib/dnf", "/var/lib/systemd", "/home/*/.ssh");

    private static final int MAX_LENGTH = 1024;

    private HostPaths() {}

    /**
     * Why {@code value} cannot be a directory etcdwright owns on a host; empty when it can.
     *
     * @param example a good value to suggest, like {@code /var/lib/etcd}
     */
    public static Optional<String> problem(String value, String example) {
        return reason(value).map(why -> "must be an absolute, normalized path of a directory of its own,"
                + " like " + example + "; got " + Quoted.of(value) + ": " + why);
    }

    private static Optional<String> reason(String value) {
        if (!value.startsWith("/")) {
            return Optional.of("it is not absolute (it must start with '/')");
        }
        // What the path means first ("/var/lib/" is /var/lib): the most important thing to say.
        Optional<String> system = systemDirectory(normalized(value));
        if (system.isPresent()) {
            return system;
        }
        if (value.length() > MAX_LENGTH) {
            return Optional.of("it is longer than " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Quoted.isControl(c)) {
                return Optional.of("it contains a control character at position " + (i + 1));
            }
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                return Optional.of("it contains a space at position " + (i + 1) + " (is it a typo?)");
            }
            if (!isNameCharacter(c)) {
                return Optional.of("it contains '" + c + "' at position " + (i + 1) + "; a directory etcdwright owns is"
                        + " named with letters, digits and / . _ - + @ only");
            }
        }
        if (value.length() > 1 && value.endsWith("/")) {
            return Optional.of("remove the trailing '/'");
        }
        if (value.contains("//")) {
            return Optional.of("it contains '//'");
        }
        for (String segment : value.substring(1).split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                return Optional.of("it contains '" + segment + "'; write the directory it means");
            }
            if (segment.length() > 255) {
                return Optional.of("a name in it is longer than 255 characters");
            }
        }
        return Optional.empty();
    }

    /**
     * Quoting already makes any character harmless in a command; this list is about what a
     * directory an operator means looks like. A '$', a quote or a backtick in a data directory is
     * a template or an injection, never a real name, so it is refused before anything runs.
     */
    private static boolean isNameCharacter(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || "/._-+@".indexOf(c) >= 0);
    }

    /** {@code value} with '//', '.', '..' and a trailing '/' resolved, as the kernel would. */
    private static String normalized(String value) {
        Deque<String> names = new ArrayDeque<>();
        for (String segment : value.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                names.pollLast();
            } else {
                names.addLast(segment);
            }
        }
        return "/" + String.join("/", names);
    }

    private static Optional<String> systemDirectory(String value) {
        for (String system : SYSTEM_DIRECTORIES) {
            if (value.equals(system)) {
                return Optional.of(value + " is a system directory, and destroy empties this directory");
            }
            if (value.equals("/") || system.startsWith(value + "/")) {
                return Optional.of("it contains the system directory " + system + ", and destroy empties this directory");
            }
        }
        if (value.matches("/home/[^/]+")) {
            return Optional.of(value + " is a user's home directory, and destroy empties this directory");
        }
        for (String tree : SYSTEM_TREES) {
            if (inside(value, tree)) {
                return Optional.of("nothing of etcdwright's may live under the system tree " + tree + " (" + why(tree) + ")");
            }
        }
        return Optional.empty();
    }

    private static boolean inside(String path, String tree) {
        if (tree.startsWith("/home/*/")) {
            // Any user's SSH directory.
            String[] parts = path.split("/");
            return parts.length >= 4 && parts[1].equals("home") && parts[3].equals(".ssh");
        }
        return path.equals(tree) || path.startsWith(tree + "/");
    }

    private static String why(String tree) {
        return switch (tree) {
            case "/etc" -> "it is the host's configuration, etcdwright's own /etc/etcd/pki among it";
            case "/run", "/var/run" -> "it lives in memory: the data would be gone after a reboot";
            case "/opt/etcd" -> "it holds etcd's binaries, which uninstall removes";
            case "/proc", "/sys", "/dev" -> "it is not a real directory but the kernel's";
            case "/root/.ssh", "/home/*/.ssh" -> "it holds SSH keys";
            default -> "it belongs to the system or its package manager";
        };
    }
}
