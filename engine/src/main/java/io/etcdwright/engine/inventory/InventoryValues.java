package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.Addresses;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Names;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.Quoted;
import io.etcdwright.engine.source.RelativePaths;
import io.etcdwright.engine.source.WorkstationFiles;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.InvalidPathException;
import java.util.Optional;

/**
 * The values of the variables etcdwright reads, checked by what each one is, where it is
 * written (a group's vars or a host's): an address, a member name, a user, a file on the
 * workstation. Each reaches a host (a URL, a certificate, an SSH login) or the workstation's
 * file system, so a value that is not what it claims to be is refused before anything runs.
 * Types are the schema's business: values of another type are skipped here.
 */
final class InventoryValues {

    static final String KNOWN_HOSTS = "etcdwright_known_hosts_file";

    private final YamlDocument document;
    private final Problems problems;

    InventoryValues(YamlDocument document, Problems problems) {
        this.document = document;
        this.problems = problems;
    }

    /** An inventory host name is where SSH connects (without ansible_host) and what etcd advertises (without etcd_address). */
    void checkHostName(String name, FieldPath at) {
        Addresses.problem(name).ifPresent(problem -> problems.errorAtKey(document, at,
                "an inventory host name " + problem + " (it is the SSH address when ansible_host is not set)"));
    }

    /**
     * @param inAllVars whether the variable is written in all's vars (the only place
     *                  etcdwright_known_hosts_file is read)
     */
    void checkVariable(String name, Object value, FieldPath at, boolean inAllVars) {
        if (!(value instanceof String text) || problems.hasErrorAround(document.file(), at)) {
            return;
        }
        Optional<String> problem = switch (name) {
            case "ansible_host", "etcd_address" -> Addresses.problem(text);
            case "etcd_member_name" -> Names.memberNameProblem(text);
            case "ansible_user" -> Names.userNameProblem(text);
            case "ansible_ssh_private_key_file" -> fileProblem(text, "SSH private key");
            case KNOWN_HOSTS -> inAllVars ? fileProblem(text, "known_hosts file").map(missing -> missing.contains("does not exist")
                    ? missing + "; to trust the hosts' keys on first use, create it empty (touch it) and run once with"
                    + " --accept-new-host-keys" : missing) : Optional.empty();
            default -> Optional.empty();
        };
        problem.ifPresent(message -> problems.error(document, at, message));
    }

    private Optional<String> fileProblem(String written, String what) {
        int control = Quoted.firstControl(written);
        if (control >= 0) {
            return Optional.of("contains a control character at position " + (control + 1) + "; got " + Quoted.of(written));
        }
        try {
            return WorkstationFiles.problem(RelativePaths.resolve(document.file(), written), what, written);
        } catch (InvalidPathException e) {
            return Optional.of("is not a usable path: " + e.getReason());
        }
    }
}
