package io.etcdwright.modules.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hosts whose etcd must still be stopped and disabled because their member was removed, kept on the
 * workstation ({@code clusters/NAME/removed-hosts/}). Once a member is removed, the cluster no
 * longer lists it and its host is no member of the spec, so nothing else would tell the next apply
 * that an apply stopped between the removal and the stop left work there: the removal step notes
 * the host before it removes the member, the stop step forgets it once done.
 *
 * <p>One small file per host, named by the hex of its inventory name (any name makes a safe file
 * name), holding the host and the member; written to a temporary file and renamed, so a crash
 * leaves the old state or the new one.
 */
public record PendingStops(Path dir) {
    private static final String SUFFIX = ".pending";

    /** Notes that {@code host}'s etcd must be stopped once {@code member} is removed. */
    public void add(String host, String member) {
        try {
            Files.createDirectories(dir);
            Path temporary = Files.createTempFile(dir, ".", ".tmp");
            Files.writeString(temporary, host + "\n" + member + "\n", StandardCharsets.UTF_8);
            Files.move(temporary, file(host), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot note in " + dir + " that etcd on " + host + " must be stopped once "
                    + member + " is removed (nothing was removed): " + e.getMessage(), e);
        }
    }

    /** Forgets {@code host}: its etcd was stopped and disabled, or cannot be reached and the operator was told. */
    public void done(String host) {
        try {
            Files.deleteIfExists(file(host));
        } catch (IOException e) {
            throw new UncheckedIOException("etcd on " + host + " was stopped, but " + file(host) + " could not be deleted"
                    + " (the next apply will stop it again, which does nothing): " + e.getMessage(), e);
        }
    }

    /** Host to member, for every host still to be stopped; empty when there is no such directory. */
    public Map<String, String> pending() {
        Map<String, String> pending = new LinkedHashMap<>();
        if (!Files.isDirectory(dir)) {
            return pending;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                if (lines.size() >= 2) {
                    pending.put(lines.get(0), lines.get(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir + ": " + e.getMessage(), e);
        }
        return pending;
    }

    private Path file(String host) {
        return dir.resolve(HexFormat.of().formatHex(host.getBytes(StandardCharsets.UTF_8)) + SUFFIX);
    }
}
