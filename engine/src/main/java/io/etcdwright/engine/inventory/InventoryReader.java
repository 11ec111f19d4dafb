package io.etcdwright.engine.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.JsonValues;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.RelativePaths;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds an {@link Inventory} from a document of the right shape ({@link InventoryShape}) the
 * way Ansible's YAML inventory plugin and {@code reconcile_inventory} do: groups written in
 * several places are one group, groups without a parent become children of {@code all}, hosts
 * in no group go to {@code ungrouped}, and a host's variables are its groups' merged by
 * (depth, priority, name) and then its own.
 */
final class InventoryReader {

    private static final String PRIORITY = "ansible_group_priority";
    private static final String KNOWN_HOSTS = InventoryValues.KNOWN_HOSTS;
    private static final Pattern HOST_RANGE = Pattern.compile(".*\\[[^\\]]*:[^\\]]*\\].*");
    private static final Pattern HOST_WITH_PORT = Pattern.compile("^[^:\\[\\]]+:\\d+$");

    private final YamlDocument document;
    private final Problems problems;
    private final Map<String, GroupDraft> groups = new LinkedHashMap<>();
    private final Map<String, HostDraft> hosts = new LinkedHashMap<>();
    private final InventoryValues values;

    InventoryReader(YamlDocument document, Problems problems) {
        this.document = document;
        this.problems = problems;
        this.values = new InventoryValues(document, problems);
    }

    /**
     * Empty when the groups form a cycle: precedence has no meaning then.
     *
     * @param compareSshTargets false when ansible_host or ansible_port had errors (and so fell
     *                          back to defaults): hosts' SSH targets are not compared then
     */
    Optional<Inventory> read(boolean compareSshTargets) {
        // "all" exists even when the file only has other top-level groups, first as in Ansible.
        groups.put(Inventory.ALL, new GroupDraft(Inventory.ALL, document.keyLocationOf(FieldPath.of(Inventory.ALL))));
        forEachField(document.root(), (name, node) -> readGroup(name, node, FieldPath.of(name)));
        if (hasCycle()) {
            return Optional.empty();
        }
        adoptOrphansAndUngroupedHosts();
        Map<String, Integer> depths = depths();
        warnAboutVariablesWeDoNotRead();
        checkValuesWeRead();
        Map<String, InventoryHost> built = new LinkedHashMap<>();
        for (HostDraft host : hosts.values()) {
            built.put(host.name, build(host, mergedVars(host, depths)));
        }
        if (compareSshTargets) {
            checkDistinctSshTargets(built);
        }
        if (built.isEmpty()) {
            problems.error(document, FieldPath.ROOT, "the inventory lists no hosts");
        }
        Map<String, InventoryGroup> builtGroups = new LinkedHashMap<>();
        groups.values().forEach(group -> builtGroups.put(group.name, group.build()));
        return Optional.of(new Inventory(document.file(), built, builtGroups, knownHostsFile()));
    }

    private void readGroup(String name, JsonNode node, FieldPath path) {
        GroupDraft group = groups.computeIfAbsent(name, n -> new GroupDraft(n, document.keyLocationOf(path)));
        forEachField(node, (key, value) -> {
            FieldPath at = path.key(key);
            switch (key) {
                case "vars" -> forEachField(value, (var, varValue) -> group.setVar(var, varValue, at.key(var)));
                case "children" -> forEachField(value, (child, childNode) -> {
                    if (child.equals(Inventory.ALL)) {
                        problems.errorAtKey(document, at.key(child), "'all' is every host's group and cannot be a child of another group");
                        return;
                    }
                    group.children.putIfAbsent(child, at.key(child));
                    readGroup(child, childNode, at.key(child));
                });
                case "hosts" -> forEachField(value, (host, hostVars) -> readHost(group, host, hostVars, at.key(host)));
                default -> { } // unknown group keys were reported by the schema check
            }
        });
    }

    private void readHost(GroupDraft group, String name, JsonNode vars, FieldPath path) {
        if (HOST_RANGE.matcher(name).matches()) {
            problems.errorAtKey(document, path, "host ranges like web[01:03] are not expanded by etcdwright; list each host");
            return;
        }
        if (HOST_WITH_PORT.matcher(name).matches()) {
            String port = name.substring(name.indexOf(':') + 1);
            problems.errorAtKey(document, path, "write the SSH port as the variable ansible_port: " + port
                    + ", not in the host name");
            return;
        }
        if (!hosts.containsKey(name)) {
            values.checkHostName(name, path);
        }
        group.hosts.add(name);
        HostDraft host = hosts.computeIfAbsent(name, n -> new HostDraft(n, document.keyLocationOf(path), path));
        forEachField(vars, (var, value) -> host.setVar(var, value, path.key(var)));
    }

    /** A child group that is its own ancestor: Ansible refuses it too ("recursive dependency loop"). */
    private boolean hasCycle() {
        Set<String> done = new HashSet<>();
        boolean found = false;
        for (String name : groups.keySet()) {
            found |= findCycle(name, new ArrayList<>(), done);
        }
        return found;
    }

    private boolean findCycle(String name, List<String> trail, Set<String> done) {
        if (done.contains(name)) {
            return false;
        }
        boolean found = false;
        trail.add(name);
        for (Map.Entry<String, FieldPath> child : groups.get(name).children.entrySet()) {
            int seenAt = trail.indexOf(child.getKey());
            if (seenAt >= 0) {
                List<String> loop = new ArrayList<>(trail.subList(seenAt, trail.size()));
                loop.add(child.getKey());
                problems.errorAtKey(document, child.getValue(), "group '" + child.getKey() + "' is its own ancestor: "
                        + String.join(" -> ", loop) + "; remove one of these children entries");
                found = true;
            } else {
                found |= findCycle(child.getKey(), trail, done);
            }
        }
        trail.remove(trail.size() - 1);
        done.add(name);
        return found;
    }

    private void adoptOrphansAndUngroupedHosts() {
        GroupDraft all = groups.get(Inventory.ALL);
        GroupDraft ungrouped = groups.computeIfAbsent(Inventory.UNGROUPED, n -> new GroupDraft(n, all.location));
        Set<String> hasParent = new HashSet<>();
        groups.values().forEach(group -> hasParent.addAll(group.children.keySet()));
        for (GroupDraft group : groups.values()) {
            if (group != all && !hasParent.contains(group.name)) {
                all.children.put(group.name, FieldPath.of(group.name));
            }
        }
        Set<String> inSomeGroup = new HashSet<>();
        groups.values().stream().filter(group -> group != all && group != ungrouped)
                .forEach(group -> inSomeGroup.addAll(group.hosts));
        hosts.keySet().stream().filter(host -> !inSomeGroup.contains(host)).forEach(ungrouped.hosts::add);
    }

    /** Ansible's group depth: the longest path from {@code all}, so deeper groups' vars win. */
    private Map<String, Integer> depths() {
        Map<String, Integer> depths = new HashMap<>();
        deepen(Inventory.ALL, 0, depths);
        return depths;
    }

    private void deepen(String name, int depth, Map<String, Integer> depths) {
        if (depths.getOrDefault(name, -1) >= depth) {
            return;
        }
        depths.put(name, depth);
        groups.get(name).children.keySet().forEach(child -> deepen(child, depth + 1, depths));
    }

    private Map<String, Object> mergedVars(HostDraft host, Map<String, Integer> depths) {
        Set<String> memberOf = new LinkedHashSet<>();
        memberOf.add(Inventory.ALL);
        for (GroupDraft group : groups.values()) {
            if (group.hosts.contains(host.name)) {
                addWithAncestors(group.name, memberOf);
            }
        }
        Map<String, Object> merged = new LinkedHashMap<>();
        memberOf.stream()
                .map(groups::get)
                .sorted(Comparator.<GroupDraft>comparingInt(group -> depths.getOrDefault(group.name, 0))
                        .thenComparingInt(group -> group.priority)
                        .thenComparing(group -> group.name))
                .forEach(group -> merged.putAll(group.vars));
        merged.putAll(host.vars);
        return merged;
    }

    private void addWithAncestors(String name, Set<String> into) {
        if (!into.add(name)) {
            return;
        }
        groups.values().stream().filter(parent -> parent.children.containsKey(name))
                .forEach(parent -> addWithAncestors(parent.name, into));
    }

    private InventoryHost build(HostDraft host, Map<String, Object> vars) {
        String address = vars.get("ansible_host") instanceof String ansibleHost ? ansibleHost : host.name;
        int port = vars.get("ansible_port") instanceof Number ansiblePort ? ansiblePort.intValue() : InventoryHost.DEFAULT_SSH_PORT;
        String user = vars.get("ansible_user") instanceof String ansibleUser ? ansibleUser : InventoryHost.DEFAULT_USER;
        Optional<Path> keyFile = vars.get("ansible_ssh_private_key_file") instanceof String written
                ? resolve(written, host.varPaths.getOrDefault("ansible_ssh_private_key_file", host.path))
                : Optional.empty();
        boolean become = Boolean.TRUE.equals(vars.get("ansible_become"));
        return new InventoryHost(host.name, address, port, user, keyFile, become, vars, host.location);
    }

    private void checkDistinctSshTargets(Map<String, InventoryHost> built) {
        Map<String, InventoryHost> byTarget = new HashMap<>();
        for (InventoryHost host : built.values()) {
            String target = host.address().toLowerCase(Locale.ROOT) + ":" + host.port();
            InventoryHost first = byTarget.putIfAbsent(target, host);
            if (first != null) {
                problems.errorAtKey(document, hosts.get(host.name()).path, "hosts " + first.name() + " and " + host.name()
                        + " both connect to " + host.address() + " port " + host.port() + " (" + first.name() + " is at "
                        + first.location() + "); each inventory host must be a machine of its own: fix ansible_host or ansible_port");
            }
        }
    }

    private void warnAboutVariablesWeDoNotRead() {
        for (GroupDraft group : groups.values()) {
            group.varPaths.forEach((var, path) -> {
                warnIfIgnored(var, path);
                if (var.equals(KNOWN_HOSTS) && !group.name.equals(Inventory.ALL)) {
                    problems.warningAtKey(document, path, KNOWN_HOSTS + " is read from all's vars only; move it there");
                }
            });
        }
        for (HostDraft host : hosts.values()) {
            host.varPaths.forEach((var, path) -> {
                warnIfIgnored(var, path);
                if (var.equals(KNOWN_HOSTS)) {
                    problems.warningAtKey(document, path, KNOWN_HOSTS + " is read from all's vars only; move it there");
                } else if (var.equals(PRIORITY)) {
                    problems.warningAtKey(document, path, PRIORITY + " orders groups; on a host it does nothing");
                }
            });
        }
    }

    /** Each value of a variable etcdwright reads, where it is written. */
    private void checkValuesWeRead() {
        for (GroupDraft group : groups.values()) {
            boolean all = group.name.equals(Inventory.ALL);
            group.varPaths.forEach((var, path) -> values.checkVariable(var, group.vars.get(var), path, all));
        }
        for (HostDraft host : hosts.values()) {
            host.varPaths.forEach((var, path) -> values.checkVariable(var, host.vars.get(var), path, false));
        }
    }

    private void warnIfIgnored(String var, FieldPath path) {
        IgnoredVariables.warningFor(var).ifPresent(warning -> problems.warningAtKey(document, path, warning));
    }

    private Optional<Path> knownHostsFile() {
        GroupDraft all = groups.get(Inventory.ALL);
        return all.vars.get(KNOWN_HOSTS) instanceof String written ? resolve(written, all.varPaths.get(KNOWN_HOSTS)) : Optional.empty();
    }

    private Optional<Path> resolve(String written, FieldPath path) {
        try {
            return Optional.of(RelativePaths.resolve(document.file(), written));
        } catch (InvalidPathException e) {
            problems.error(document, path, "is not a usable path: " + e.getReason());
            return Optional.empty();
        }
    }

    private interface FieldVisitor {
        void visit(String key, JsonNode value);
    }

    /** The fields of a mapping in document order; nothing for null (Ansible allows empty sections). */
    private static void forEachField(JsonNode node, FieldVisitor visitor) {
        if (node == null || !node.isObject()) {
            return;
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            visitor.visit(field.getKey(), field.getValue());
        }
    }

    /** Setting a variable that is already a mapping to a mapping merges them, as Ansible's set_variable does. */
    @SuppressWarnings("unchecked")
    private static void setVariable(Map<String, Object> vars, String key, Object value) {
        if (vars.get(key) instanceof Map<?, ?> existing && value instanceof Map<?, ?> update) {
            Map<String, Object> combined = new LinkedHashMap<>((Map<String, Object>) existing);
            combined.putAll((Map<String, Object>) update);
            vars.put(key, JsonValues.orderedCopy(combined));
        } else {
            vars.put(key, value);
        }
    }

    private static final class GroupDraft {
        final String name;
        final Location location;
        final Set<String> hosts = new LinkedHashSet<>();
        /** Child name -> where it is listed, for cycle messages. */
        final Map<String, FieldPath> children = new LinkedHashMap<>();
        final Map<String, Object> vars = new LinkedHashMap<>();
        final Map<String, FieldPath> varPaths = new LinkedHashMap<>();
        int priority = 1;

        GroupDraft(String name, Location location) {
            this.name = name;
            this.location = location;
        }

        void setVar(String key, JsonNode value, FieldPath path) {
            varPaths.put(key, path);
            if (key.equals(PRIORITY)) {
                // Like Ansible: the priority orders the group, it is not a variable of its hosts.
                priority = value.asInt(1);
                return;
            }
            setVariable(vars, key, JsonValues.toJava(value));
        }

        InventoryGroup build() {
            return new InventoryGroup(name, List.copyOf(hosts), List.copyOf(children.keySet()), vars, location);
        }
    }

    private static final class HostDraft {
        final String name;
        final Location location;
        final FieldPath path;
        final Map<String, Object> vars = new LinkedHashMap<>();
        final Map<String, FieldPath> varPaths = new LinkedHashMap<>();

        HostDraft(String name, Location location, FieldPath path) {
            this.name = name;
            this.location = location;
            this.path = path;
        }

        void setVar(String key, JsonNode value, FieldPath path) {
            varPaths.put(key, path);
            setVariable(vars, key, JsonValues.toJava(value));
        }
    }
}
