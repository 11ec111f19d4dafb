package io.etcdwright.modules.data;

import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The one way etcdwright deletes an etcd data directory (destroy --wipe-data today; replacing a
 * member or restoring a snapshot later). A data directory is deleted only if, ON THE HOST, at the
 * moment of deleting, it is empty or holds nothing but an etcd member directory with {@code wal}
 * and/or {@code snap} in it; it is refused if it is a symbolic link, not a directory, or a system
 * directory (by its own path or the physical path it resolves to). Facts gathered earlier are
 * not trusted for this: the directory may have changed, or be another one than the spec meant.
 */
public final class DataDirWipe {
    /** Exit code of the script when it refuses; anything else non-zero is a failure to delete. */
    static final int REFUSED = 3;

    /** Directories that are never a data directory themselves. */
    static final List<String> SYSTEM_DIRS = List.of("/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32",
            "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp",
            "/usr", "/var", "/var/lib", "/var/log", "/var/tmp", "/var/cache", "/var/spool", "/var/mail", "/var/opt",
            "/var/run", "/var/local", "/etc/etcd", "/opt/etcd");
    /** Trees nothing of etcd's lives in. */
    static final List<String> SYSTEM_TREES = List.of("/proc", "/sys", "/dev", "/usr", "/boot", "/bin", "/sbin",
            "/lib", "/lib32", "/lib64", "/libx32", "/root/.ssh", "/etc/ssh");

    /** What the host said. */
    public enum Result { WIPED, ABSENT }

    /** A refusal: nothing was deleted, and the message says what was found and what to do. */
    public static final class RefusedException extends RuntimeException {
        RefusedException(String message) {
            super(message);
        }
    }

    private DataDirWipe() {
    }

    /**
     * Why {@code path} may not be wiped, judged by the path alone; empty if it may be looked at.
     * Absolute, normalized (no ".", "..", "//" or trailing "/"), and no system directory.
     */
    public static Optional<String> pathRefusal(String path) {
        if (path == null || path.isEmpty()) {
            return Optional.of("the path is empty");
        }
        if (!path.startsWith("/")) {
            return Optional.of("the path is not absolute");
        }
        if (path.indexOf('\0') >= 0 || path.indexOf('\n') >= 0) {
            return Optional.of("the path contains a control character");
        }
        if (path.length() > 1 && (path.endsWith("/") || path.contains("//") || path.contains("/./")
                || path.endsWith("/.") || path.contains("/../") || path.endsWith("/.."))) {
            return Optional.of("the path is not normalized (it has '//', '.', '..' or a trailing '/')");
        }
        return systemDirectory(path);
    }

    static Optional<String> systemDirectory(String path) {
        if (SYSTEM_DIRS.contains(path)) {
            return Optional.of(path + " is a system directory");
        }
        for (String tree : SYSTEM_TREES) {
            if (path.equals(tree) || path.startsWith(tree + "/")) {
                return Optional.of(path + " is inside the system directory " + tree);
            }
        }
        return Optional.empty();
    }

    /**
     * The check-then-delete, in one script on the host so nothing can change in between. $1 is the
     * path. Refusals go to stderr with exit code 3 and delete nothing.
     */
    static final String SCRIPT = checks("delete") + "rm -rf -- \"$d\"\n" + "echo wiped\n";

    /**
     * The same checks, then the directory is renamed to {@code $d.$2} (never deleted) and an empty
     * one made for etcd: for a host whose old data must not be used again (a member that was removed
     * and now joins afresh), and that an operator may still want to look at.
     */
    static final String MOVE_ASIDE_SCRIPT = checks("move aside") + "mv -- \"$d\" \"$d.$2\"\n"
            + "install -d -o etcd -g etcd -m 0700 -- \"$d\"\n" + "echo \"moved to $d.$2\"\n";

    /**
     * For a restore: the same checks, then the directory (when it holds anything) is renamed to
     * {@code $d.$2}, never deleted, and the restored directory {@code $3} (made beside it by the
     * restore tool) takes its place, owned by etcd and private. An empty or absent directory is
     * simply replaced: there is nothing in it to keep.
     */
    static final String REPLACE_SCRIPT = checks("move aside", "") + "aside=''\n"
            + "if [ -e \"$d\" ] && [ -n \"$(ls -A -- \"$d\")\" ]; then\n"
            + "  [ ! -e \"$d.$2\" ] || refuse \"$d.$2 exists already\"\n"
            + "  mv -- \"$d\" \"$d.$2\"; aside=\"$d.$2\"\n"
            + "elif [ -e \"$d\" ]; then rmdir -- \"$d\"; fi\n"
            + "mv -- \"$3\" \"$d\"\n"
            + "chown -R etcd:etcd -- \"$d\"\n"
            + "chmod 0700 -- \"$d\"\n"
            + "if [ -n \"$aside\" ]; then echo \"moved to $aside\"; else echo replaced; fi\n";

    private static String checks(String action) {
        return checks(action, "[ -e \"$d\" ] || { echo absent; exit 0; }\n");
    }

    /** @param whenAbsent what the script does when the directory does not exist (nothing: go on) */
    private static String checks(String action, String whenAbsent) {
        return "set -u\n"
            + "d=$1\n"
            + "refuse() { printf 'refusing to " + action + " %s: %s\\n' \"$d\" \"$1\" >&2; exit " + REFUSED + "; }\n"
            + "if [ -L \"$d\" ]; then refuse \"it is a symbolic link (to $(readlink -- \"$d\")), not a directory\"; fi\n"
            + whenAbsent
            + "if [ -e \"$d\" ]; then\n"
            + "[ -d \"$d\" ] || refuse 'it is not a directory'\n"
            + "real=$(cd -P -- \"$d\" && pwd -P) || refuse 'it cannot be entered'\n"
            + "case $real in\n"
            + "  " + SYSTEM_DIRS.stream().map(DataDirWipe::shellPattern).collect(Collectors.joining("|"))
            + ") refuse \"it is the system directory $real\" ;;\n"
            + "  " + SYSTEM_TREES.stream().map(t -> shellPattern(t) + "|" + shellPattern(t) + "/*").collect(Collectors.joining("|"))
            + ") refuse \"it resolves to $real, inside a system directory\" ;;\n"
            + "esac\n"
            + "n=0 found=''\n"
            + "for e in \"$d\"/* \"$d\"/.[!.]* \"$d\"/..?*; do\n"
            + "  [ -e \"$e\" ] || [ -L \"$e\" ] || continue\n"
            + "  name=${e##*/}\n"
            + "  if [ \"$name\" = member ] && [ -d \"$e\" ] && [ ! -L \"$e\" ]; then continue; fi\n"
            + "  n=$((n+1)); [ \"$n\" -le 5 ] && found=\"$found '$name'\"\n"
            + "done\n"
            + "[ \"$n\" -gt 5 ] && found=\"$found and $((n-5)) more\"\n"
            + "[ \"$n\" -eq 0 ] || refuse \"it does not look like an etcd data directory: besides member/ it holds$found\"\n"
            + "if [ -d \"$d/member\" ] && [ ! -d \"$d/member/wal\" ] && [ ! -d \"$d/member/snap\" ]; then\n"
            + "  refuse \"its member/ directory holds neither wal/ nor snap/, so it is not etcd's:$(ls -A -- \"$d/member\" | head -n 5 | sed \"s/^/ '/; s/\\$/'/\" | tr '\\n' ' ')\"\n"
            + "fi\n"
            + "fi\n";
    }

    /**
     * Moves the data directory at {@code path} aside to {@code path.suffix} after the same checks
     * as {@link #wipe}; throws {@link RefusedException} and moves nothing when they fail.
     */
    public static Outcome moveAside(HostSession session, String path, String suffix) {
        pathRefusal(path).ifPresent(why -> {
            throw new RefusedException("refusing to move data directory " + path + " aside: " + why);
        });
        if (!suffix.matches("[a-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("a data directory suffix is lowercase letters, digits and '-', got " + suffix);
        }
        CommandResult result = session.run(new RemoteCommand.Script(MOVE_ASIDE_SCRIPT, List.of(path, suffix)));
        if (result.exitCode() == REFUSED) {
            throw new RefusedException(session.target().name() + ": " + result.stderr().strip() + ". Nothing was moved.");
        }
        result.orThrow(session.target().name());
        return result.stdout().strip().equals("absent") ? Outcome.OK : Outcome.CHANGED;
    }

    /**
     * Puts the restored data directory {@code restored} in the place of {@code path}: the old one,
     * if it holds anything, moved to {@code path.suffix} after the same checks as {@link #wipe}
     * (throws {@link RefusedException} and changes nothing when they fail).
     *
     * @return where the old data went; empty when there was none
     */
    public static Optional<String> replace(HostSession session, String path, String suffix, String restored) {
        pathRefusal(path).ifPresent(why -> {
            throw new RefusedException("refusing to move data directory " + path + " aside: " + why);
        });
        if (!suffix.matches("[a-z0-9-]{1,64}")) {
            throw new IllegalArgumentException("a data directory suffix is lowercase letters, digits and '-', got " + suffix);
        }
        CommandResult result = session.run(new RemoteCommand.Script(REPLACE_SCRIPT, List.of(path, suffix, restored)));
        if (result.exitCode() == REFUSED) {
            throw new RefusedException(session.target().name() + ": " + result.stderr().strip() + ". Nothing was moved;"
                    + " the restored data waits in " + restored + ".");
        }
        String said = result.orThrow(session.target().name()).stdout().strip();
        return said.startsWith("moved to ") ? Optional.of(said.substring("moved to ".length())) : Optional.empty();
    }

    /** The command that checks and deletes {@code path}; refuses a path that fails {@link #pathRefusal}. */
    public static RemoteCommand command(String path) {
        pathRefusal(path).ifPresent(why -> {
            throw new RefusedException("refusing to delete data directory " + path + ": " + why + ". Nothing was deleted;"
                    + " set etcd.dataDir to the directory etcd really uses.");
        });
        return new RemoteCommand.Script(SCRIPT, List.of(path));
    }

    /**
     * Deletes the data directory at {@code path} on the session's host if it is safe to, as
     * described above; otherwise throws {@link RefusedException} and deletes nothing.
     */
    public static Result wipe(HostSession session, String path) {
        String host = session.target().name();
        CommandResult result = session.run(command(path));
        return interpret(host, path, result);
    }

    static Result interpret(String host, String path, CommandResult result) {
        if (result.exitCode() == REFUSED) {
            throw new RefusedException(host + ": " + result.stderr().strip() + ". Nothing was deleted. If this really"
                    + " is the member's data directory, look at what is in it and move the other files away"
                    + " by hand; otherwise correct etcd.dataDir.");
        }
        result.orThrow(host);
        return result.stdout().strip().equals("absent") ? Result.ABSENT : Result.WIPED;
    }

    /** Outcome for a step. */
    public static Outcome outcome(Result result) {
        return result == Result.WIPED ? Outcome.CHANGED : Outcome.OK;
    }

    private static String shellPattern(String path) {
        // Constants of this class, made only of characters that are literal in a case pattern.
        if (!path.matches("[A-Za-z0-9/._]+")) {
            throw new IllegalStateException("unexpected system path " + path);
        }
        return path;
    }
}
