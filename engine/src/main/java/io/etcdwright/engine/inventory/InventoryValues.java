package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.Addresses;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Names;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.Quoted;
import io.etcdwright.engine.source.RelativePaths;
import io.etcdwright.engine.source.WorkstationFiles;
import io.etcdwright.engine.source.YamlDocument;
import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import java.nio.file.InvalidPathException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The values of the variables etcdwright reads, checked by what each one is, where it is
 * written (a group's vars or a host's): an address, a member name, a user, a file on the
 * workstation. Each reaches a host (a URL, a certificate, an SSH login) or the workstation's
 * file system, so a value that is not what it claims to be is refused before anything runs.
 * Types are the schema's business: values of another type are skipped here.
 */
final class InventoryValues {

    static final String KNOWN_HOSTS = "etcdwright_known_hosts_file";

    /** The variables etcdwright reads: a template or a vaulted value in one of these cannot be used. */
    static final Set<String> READ = Set.of("ansible_host", "ansible_port", "ansible_user", "ansible_ssh_private_key_file",
            "ansible_become", "etcd_address", "etcd_member_name", KNOWN_HOSTS);
    /** Ansible's boolean() words for true (what INI inventories give as text: ansible_become=true). */
    private static final Set<String> TRUE_WORDS = Set.of("y", "yes", "on", "1", "true", "t");

    private final Problems problems;
    /** Read for a run that contacts no host (plan --facts): the known_hosts file need not exist yet. */
    private final boolean offline;

    InventoryValues(Problems problems, boolean offline) {
        this.problems = problems;
        this.offline = offline;
    }

    /** Whether a value means true as Ansible's boolean() reads it: true, or yes/on/true/1/... in any case, or 1. */
    static boolean isTrue(Object value) {
        if (value instanceof Boolean b) {
            return b;
        } else if (value instanceof String text) {
            return TRUE_WORDS.contains(text.strip().toLowerCase(Locale.ROOT));
        } else if (value instanceof Number number) {
            return number.doubleValue() == 1.0;
        }
        return false;
    }

    /** An inventory host name is where SSH connects (without ansible_host) and what etcd advertises (without etcd_address). */
    void checkHostName(String name, InventoryReader.Where at) {
        Addresses.problem(name).ifPresent(problem -> problems.errorAtKey(at.document(), at.path(),
                "an inventory host name " + problem + " (it is the SSH address when ansible_host is not set)"));
    }

    /**
     * @param inAllVars whether the variable is written in all's vars (the only place
     *                  etcdwright_known_hosts_file is read)
     */
    void checkVariable(String name, Object value, InventoryReader.Where where, boolean inAllVars) {
        YamlDocument document = where.document();
        FieldPath at = where.path();
        if (!(value instanceof String text)) {
            return;
        }
        // Before the other checks: the schema's wording for these (see withoutSchemaProblemsAboutAnsibleSyntax) is dropped.
        if (READ.contains(name) && text.startsWith("$ANSIBLE_VAULT;")) {
            problems.error(document, at, "is encrypted with ansible-vault (!vault); etcdwright does not decrypt vault values:"
                    + " write " + name + " in plain text (it is an address, a name or a path, not a secret)");
            return;
        }
        if (READ.contains(name) && (text.contains("{{") || text.contains("{%"))) {
            problems.error(document, at, "is a Jinja template (" + Quoted.of(text) + "); etcdwright reads inventories as data and"
                    + " does not evaluate templates: write the value " + name + " stands for");
            return;
        }
        if (problems.hasErrorAround(document.file(), at)) {
            return;
        }
        if (name.equals("ansible_become") && !isBoolean(text)) {
            problems.error(document, at, "must be true or false, got string " + Quoted.of(text) + " (Ansible also takes yes/no, on/off, 1/0)");
            return;
        }
        Optional<String> problem = switch (name) {
            case "ansible_host", "etcd_address" -> Addresses.problem(text);
            case "etcd_member_name" -> Names.memberNameProblem(text);
            case "ansible_user" -> Names.userNameProblem(text);
            case "ansible_ssh_private_key_file" -> fileProblem(where, text, "SSH private key");
            case KNOWN_HOSTS -> !inAllVars ? Optional.empty() : offline ? pathProblem(where, text)
                    : fileProblem(where, text, "known_hosts file").map(missing -> missing.contains("does not exist")
                    ? missing + "; to trust the hosts' keys on first use, create it empty (touch it) and run once with"
                    + " --accept-new-host-keys" : missing);
            default -> Optional.empty();
        };
        problem.ifPresent(message -> problems.error(document, at, message));
    }

    /**
     * The schema's problems without those about a vaulted or templated value (the schema would
     * say "must be a user name, got {{ ... }}"): the values check says what they really are.
     */
    static List<Problem> withoutSchemaProblemsAboutAnsibleSyntax(YamlDocument document, List<Problem> schemaProblems) {
        Set<Location> ansibleSyntax = new HashSet<>();
        collectAnsibleSyntax(document, document.root(), FieldPath.ROOT, ansibleSyntax);
        return schemaProblems.stream().filter(problem -> !ansibleSyntax.contains(problem.location())).toList();
    }

    private static void collectAnsibleSyntax(YamlDocument document, JsonNode node, FieldPath at, Set<Location> into) {
        if (node.isTextual()) {
            String text = node.textValue();
            if (text.startsWith("$ANSIBLE_VAULT;") || text.contains("{{") || text.contains("{%")) {
                into.add(document.locationOf(at));
            }
        } else if (node.isObject()) {
            node.properties().forEach(field -> collectAnsibleSyntax(document, field.getValue(), at.key(field.getKey()), into));
        }
    }

    private static boolean isBoolean(String text) {
        String word = text.strip().toLowerCase(Locale.ROOT);
        return TRUE_WORDS.contains(word) || Set.of("n", "no", "off", "0", "false", "f").contains(word);
    }

    /** A path that need not name a file yet: only its text is checked. */
    private Optional<String> pathProblem(InventoryReader.Where where, String written) {
        int control = Quoted.firstControl(written);
        if (control >= 0) {
            return Optional.of("contains a control character at position " + (control + 1) + "; got " + Quoted.of(written));
        }
        try {
            RelativePaths.resolve(where.anchor(), written);
            return Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.of("is not a usable path: " + e.getReason());
        }
    }

    private Optional<String> fileProblem(InventoryReader.Where where, String written, String what) {
        int control = Quoted.firstControl(written);
        if (control >= 0) {
            return Optional.of("contains a control character at position " + (control + 1) + "; got " + Quoted.of(written));
        }
        try {
            return WorkstationFiles.problem(RelativePaths.resolve(where.anchor(), written), what, written);
        } catch (InvalidPathException e) {
            return Optional.of("is not a usable path: " + e.getReason());
        }
    }
}
