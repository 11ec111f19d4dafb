package io.etcdwright.engine.ssh;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how to reach one host: what an inventory host boils down to for the transport.
 *
 * @param name           the inventory name, used in every message
 * @param address        the address to connect to (ansible_host)
 * @param port           the SSH port
 * @param user           the login user
 * @param privateKeyFile a key file; empty means the ssh-agent or the user's default keys
 * @param become         wrap commands in {@code sudo -n} when the login user is not root
 */
public record SshTarget(String name, String address, int port, String user,
                        Optional<Path> privateKeyFile, boolean become) {
    public SshTarget {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(privateKeyFile, "privateKeyFile");
    }

    /** The name known_hosts files use: plain for port 22, {@code [address]:port} otherwise. */
    public String knownHostsName() {
        return port == 22 ? address : "[" + address + "]:" + port;
    }

    /** Whether commands need sudo: only when asked to become and not already root. */
    public boolean needsSudo() {
        return become && !"root".equals(user);
    }
}
