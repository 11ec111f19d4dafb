package io.etcdwright.engine.inventory;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Ansible variables etcdwright does not read although an operator may expect it to: it is
 * better to say so than to connect somewhere else than Ansible would.
 */
final class IgnoredVariables {

    /** Older or alternative names of variables etcdwright reads under one name only. */
    private static final Map<String, String> OTHER_NAMES = Map.of(
            "ansible_ssh_host", "ansible_host",
            "ansible_ssh_port", "ansible_port",
            "ansible_ssh_user", "ansible_user",
            "ansible_private_key_file", "ansible_ssh_private_key_file",
            "ansible_sudo", "ansible_become");
    private static final Set<String> PASSWORDS = Set.of("ansible_password", "ansible_ssh_pass", "ansible_become_password",
            "ansible_become_pass", "ansible_sudo_pass");

    private IgnoredVariables() {}

    /** A warning for variable {@code name}, if etcdwright ignores it. */
    static Optional<String> warningFor(String name) {
        if (OTHER_NAMES.containsKey(name)) {
            return Optional.of("etcdwright reads " + OTHER_NAMES.get(name) + ", not " + name + "; rename it");
        } else if (PASSWORDS.contains(name)) {
            return Optional.of("etcdwright logs in with SSH keys and sudo without a password; " + name + " is ignored");
        } else if (name.equals("ansible_connection")) {
            return Optional.of("etcdwright always connects over SSH; ansible_connection is ignored");
        }
        return Optional.empty();
    }
}
