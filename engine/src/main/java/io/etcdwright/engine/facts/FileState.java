package io.etcdwright.engine.facts;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A file on a host as a probe saw it.
 *
 * @param modifiedMicros last modification, in microseconds since the epoch (host clock)
 * @param content the text, only for files whose content the probe was asked to read (never keys)
 */
public record FileState(String path, boolean exists, String sha256, String mode, String owner, String group,
                        long modifiedMicros, Optional<String> content) {
    public static FileState missing(String path) {
        return new FileState(path, false, "", "", "", "", 0, Optional.empty());
    }

    public boolean hasContent(byte[] expected) {
        return exists && sha256.equals(io.etcdwright.engine.ssh.HostSession.sha256(expected));
    }

    public boolean hasContent(String expected) {
        return hasContent(expected.getBytes(StandardCharsets.UTF_8));
    }

    /** Ownership and mode as desired; mode compared numerically so "600" equals "0600". */
    public boolean hasAttributes(String wantMode, String wantOwner, String wantGroup) {
        return exists && Integer.parseInt(mode.isEmpty() ? "0" : mode, 8) == Integer.parseInt(wantMode, 8)
                && owner.equals(wantOwner) && group.equals(wantGroup);
    }
}
