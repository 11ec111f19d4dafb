package io.etcdwright.engine.spec;

import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.inventory.InventoryLoader;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problems;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Loads an inventory and a desired-state file together and checks them against each other.
 * Every problem of both files is reported in one exception, inventory first, each file's in
 * line order, so one run shows the operator all there is to fix.
 */
public final class DesiredStateLoader {

    /** The variables a member's etcd address and name come from. */
    private static final Set<String> MEMBER_IDENTITY_VARIABLES = Set.of("ansible_host", "etcd_address", "etcd_member_name");

    private DesiredStateLoader() {}

    /**
     * @throws InvalidInputException with every problem (warnings too) if any is an error
     */
    public static DesiredState load(Path inventoryFile, Path specFile) {
        return load(inventoryFile, specFile, VersionRules.installed());
    }

    /**
     * As {@link #load(Path, Path)} for a run that contacts no host ({@code plan --facts}): the
     * inventory's known_hosts file need not exist.
     */
    public static DesiredState loadOffline(Path inventoryFile, Path specFile) {
        return loadOffline(inventoryFile, specFile, VersionRules.installed());
    }

    /** As {@link #loadOffline(Path, Path)}, with {@code rules}. */
    public static DesiredState loadOffline(Path inventoryFile, Path specFile, VersionRules rules) {
        return load(inventoryFile, specFile, rules, true);
    }

    /**
     * @param rules what the spec's etcd release makes of its version and settings
     * @throws InvalidInputException with every problem (warnings too) if any is an error
     */
    public static DesiredState load(Path inventoryFile, Path specFile, VersionRules rules) {
        return load(inventoryFile, specFile, rules, false);
    }

    private static DesiredState load(Path inventoryFile, Path specFile, VersionRules rules, boolean offline) {
        return load(InventoryLoader.read(inventoryFile, offline), specFile, rules);
    }

    /**
     * As {@link #load(Path, Path)}, with the inventory already read ({@link InventoryLoader#read}):
     * a fleet's specs often share one inventory, read once for all of them.
     */
    public static DesiredState load(InventoryLoader.Outcome inventoryOutcome, Path specFile) {
        return load(inventoryOutcome, specFile, VersionRules.installed());
    }

    private static DesiredState load(InventoryLoader.Outcome inventoryOutcome, Path specFile, VersionRules rules) {
        Problems problems = new Problems();
        problems.addAll(inventoryOutcome.problems());
        Optional<ClusterSpecLoader.Read> spec = ClusterSpecLoader.read(specFile, problems, rules);

        List<Member> members = List.of();
        Optional<Inventory> inventory = inventoryOutcome.inventory();
        if (inventory.isPresent() && spec.isPresent()) {
            boolean compareMembers = !inventoryOutcome.hasErrorsInVariables(MEMBER_IDENTITY_VARIABLES);
            members = new MemberSelection(spec.get().document(), spec.get().spec(), inventory.get(),
                    compareMembers, problems).select();
            if (!members.isEmpty()) {
                new ClientTargetsCheck(spec.get().document(), spec.get().spec(), inventory.get(), members, problems).check();
                // A refused ansible_port fell back to 22: a clash with it would be about a port nobody wrote.
                if (!inventoryOutcome.hasErrorsInVariables(Set.of("ansible_port"))) {
                    new SshPortCheck(spec.get().document(), spec.get().spec(), members, problems).check();
                }
            }
        }
        problems.throwIfErrors();
        return new DesiredState(inventory.orElseThrow(), spec.orElseThrow().spec(), members, problems.warnings());
    }
}
