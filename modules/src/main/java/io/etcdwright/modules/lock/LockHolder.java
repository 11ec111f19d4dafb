package io.etcdwright.modules.lock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.security.SecureRandom;

/**
 * Who holds a cluster's lock: what the lock key in etcd (and the workstation's lock file) says, so
 * that a refused operator learns who to ask and since when.
 *
 * @param user    the workstation user who ran the command
 * @param host    the workstation's host name
 * @param pid     the holding process
 * @param command the command holding it (apply, destroy, restore, defrag)
 * @param since   when it was taken
 * @param token   random, this holding's own: a release removes the key only while it still says this
 * @param processSpace which process ids {@code pid} is one of: this boot of this kernel and the pid
 *                namespace ("" when not known); where it is the same as a later taker's, that taker
 *                can tell whether the holder still runs
 */
public record LockHolder(String user, String host, long pid, String command, Instant since, String token,
                         String processSpace) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    public LockHolder {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(processSpace, "processSpace");
    }

    /** A holder whose process space is not known (recorded by a test, or by hand). */
    public LockHolder(String user, String host, long pid, String command, Instant since, String token) {
        this(user, host, pid, command, since, token, "");
    }

    /** This process, about to run {@code command}. */
    public static LockHolder thisProcess(String command, Instant now) {
        byte[] token = new byte[12];
        RANDOM.nextBytes(token);
        return new LockHolder(System.getProperty("user.name", "?"), hostName(), ProcessHandle.current().pid(), command, now,
                HexFormat.of().formatHex(token), thisProcessSpace());
    }

    /**
     * This process's space of process ids: the kernel's boot id and the pid namespace. Two containers
     * on one kernel share the boot id but not the namespace; a reboot changes the boot id.
     */
    public static String thisProcessSpace() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
            String namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            return boot + "/" + namespace;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return "";
        }
    }

    /**
     * Whether this holder is provably gone: it ran in the same process space as {@code space} (this
     * machine, this boot, this pid namespace) and no process has its pid any more. Never true for a
     * holder elsewhere, whose liveness only its lease tells; a reused pid reads as alive (the safe way).
     */
    public boolean provablyGone(String space) {
        return !processSpace.isEmpty() && processSpace.equals(space) && ProcessHandle.of(pid).isEmpty();
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "?";
        }
    }

    public String toJson() {
        ObjectNode node = JSON.createObjectNode();
        node.put("user", user);
        node.put("host", host);
        node.put("pid", pid);
        node.put("command", command);
        node.put("since", since.toString());
        node.put("token", token);
        node.put("process_space", processSpace);
        return node.toString();
    }

    /** What a lock key or file says; empty when it says nothing this version understands. */
    public static Optional<LockHolder> parse(String json) {
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || !node.isObject() || !node.path("since").isTextual()) {
                return Optional.empty();
            }
            return Optional.of(new LockHolder(node.path("user").asText("?"), node.path("host").asText("?"),
                    node.path("pid").asLong(0), node.path("command").asText("?"), Instant.parse(node.path("since").asText()),
                    node.path("token").asText(""), node.path("process_space").asText("")));
        } catch (IOException | DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** "alice@ws1 (etcdwright apply, pid 4242) since 2026-11-25T01:02:03Z (3 min ago)". The token is not shown. */
    public String describe(Instant now) {
        return user + "@" + host + " (etcdwright " + command + ", pid " + pid + ") since " + since.truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + " (" + ago(since, now) + ")";
    }

    static String ago(Instant since, Instant now) {
        long s = Math.max(0, Duration.between(since, now).toSeconds());
        if (s < 120) {
            return s + " s ago";
        }
        if (s < 7200) {
            return s / 60 + " min ago";
        }
        return s / 3600 + " h ago";
    }
}
