package io.etcdwright.engine.ssh;

import java.util.Objects;

/**
 * A file as it should end up on a host.
 *
 * @param path  absolute path
 * @param mode  octal mode, e.g. "0600"
 * @param owner owning user
 * @param group owning group
 */
public record RemoteFile(String path, String mode, String owner, String group) {
    public RemoteFile {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("remote path must be absolute: " + path);
        }
        if (!mode.matches("0?[0-7]{3,4}")) {
            throw new IllegalArgumentException("mode must be octal, like 0600: " + mode);
        }
    }

    public static RemoteFile rootOwned(String path, String mode) {
        return new RemoteFile(path, mode, "root", "root");
    }
}
