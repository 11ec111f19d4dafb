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
     * @param rules what the spec's etcd release makes of its version and settings
     * @throws InvalidInputException with every problem (warnings too) if any is an error
     */
    public static DesiredState load(Path inventoryFile, Path specFile, VersionRules rules) {
        Problems problems = new Problems();
        InventoryLoader.Outcome inventoryOutcome = InventoryLoader.read(inventoryFile);
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
            }
        }
        problems.throwIfErrors();
        return new DesiredState(inventory.orElseThrow(), spec.orElseThrow().spec(), members, problems.warnings());
    }
}
