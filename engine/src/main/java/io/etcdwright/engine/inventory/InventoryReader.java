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
 * Builds an {@link Inventory} from documents of the right shape ({@link InventoryShape}: YAML
 * inventories, and INI ones read into the same tree) the way Ansible's inventory plugins,
 * {@code reconcile_inventory} and its {@code host_group_vars} plugin do: groups written in
 * several places (or files) are one group, groups without a parent become children of
 * {@code all}, hosts in no group go to {@code ungrouped}, and a host's variables are, each
 * layer replacing the one before (Ansible's default precedence): its groups' inventory vars
 * merged by (depth, priority, name), then the same groups' group_vars files (all first), then
 * its own inventory vars, then its host_vars files.
 */
final class InventoryReader {

    private static final String PRIORITY = "ansible_group_priority";
    private static final String KNOWN_HOSTS = InventoryValues.KNOWN_HOSTS;
    private static final Pattern HOST_RANGE = Pattern.compile(".*\\[[^\\]]*:[^\\]]*\\].*");
    private static final Pattern HOST_WITH_PORT = Pattern.compile("^[^:\\[\\]]+:\\d+$");

    private final Path file;
    private final List<YamlDocument> documents;
    private final VarsFiles varsFiles;
    private final Problems problems;
    private final Map<String, GroupDraft> groups = new LinkedHashMap<>();
    private final Map<String, HostDraft> hosts = new LinkedHashMap<>();
    private final InventoryValues values;
    /** The document being read, while the inventories are read one after the other. */
    private YamlDocument document;

    /**
     * @param file      the inventory as given: a file, or a directory of them
     * @param documents the inventory files' documents, each of an inventory's shape
     * @param varsFiles the group_vars and host_vars beside them
     */
    InventoryReader(Path file, List<YamlDocument> documents, VarsFiles varsFiles, Problems problems) {
        this(file, documents, varsFiles, problems, false);
    }

    /** @param offline read for a run that contacts no host: files only SSH needs (known_hosts) need not exist */
    InventoryReader(Path file, List<YamlDocument> documents, VarsFiles varsFiles, Problems problems, boolean offline) {
        this.file = file;
        this.documents = List.copyOf(documents);
        this.varsFiles = varsFiles;
        this.problems = problems;
        this.values = new InventoryValues(problems, offline);
    }

    /** Where a variable, child or host is written: which document, where in it, and what its relative paths are relative to. */
    record Where(YamlDocument document, FieldPath path, Path anchor) {
        Where key(String name) {
            return new Where(document, path.key(name), anchor);
        }
    }

    /**
     * Empty when the groups form a cycle: precedence has no meaning then.
     *
     * @param sshTargetVariables when any of these had errors (and so fell back to defaults),
     *                           hosts' SSH targets are not compared
     */
    Optional<Inventory> read(Set<String> sshTargetVariables) {
        // "all" exists even when the file only has other top-level groups, first as in Ansible.
        YamlDocument first = documents.get(0);
        groups.put(Inventory.ALL, new GroupDraft(Inventory.ALL, first.keyLocationOf(FieldPath.of(Inventory.ALL))));
        for (YamlDocument next : documents) {
            document = next;
            forEachField(document.root(), (name, node) -> readGroup(name, node, where(FieldPath.of(name))));
        }
        if (hasCycle()) {
            return Optional.empty();
        }
        adoptOrphansAndUngroupedHosts();
        readVarsFiles();
        Map<String, Integer> depths = depths();
        warnAboutVariablesWeDoNotRead();
        checkValuesWeRead();
        Map<String, InventoryHost> built = new LinkedHashMap<>();
        for (HostDraft host : hosts.values()) {
            built.put(host.name, build(host, mergedVars(host, depths)));
        }
        if (!InventoryLoader.hasErrorsInVariables(problems.list(), sshTargetVariables)) {
            checkDistinctSshTargets(built);
        }
        if (built.isEmpty()) {
            problems.error(first, FieldPath.ROOT, "the inventory lists no hosts");
        }
        Map<String, InventoryGroup> builtGroups = new LinkedHashMap<>();
        groups.values().forEach(group -> builtGroups.put(group.name, group.build()));
        return Optional.of(new Inventory(file, built, builtGroups, knownHostsFile()));
    }

    private Where where(FieldPath path) {
        return new Where(document, path, document.file());
    }

    private void readGroup(String name, JsonNode node, Where path) {
        GroupDraft group = groups.computeIfAbsent(name, n -> new GroupDraft(n, document.keyLocationOf(path.path())));
        forEachField(node, (key, value) -> {
            Where at = path.key(key);
            switch (key) {
                case "vars" -> forEachField(value, (var, varValue) -> group.setVar(var, varValue, at.key(var)));
                case "children" -> forEachField(value, (child, childNode) -> {
                    if (child.equals(Inventory.ALL)) {
                        problems.errorAtKey(document, at.path().key(child), "'all' is every host's group and cannot be a child of another group");
                        return;
                    }
                    group.children.putIfAbsent(child, at.key(child));
                    readGroup(child, childNode, at.key(child));
                });
                case "hosts" -> forEachField(value, (host, hostVars) -> readHosts(group, host, hostVars, at.key(host)));
                default -> { } // unknown group keys were reported by the schema check
            }
        });
    }

    /** A host, or each host of a range like node[01:03] (as Ansible's YAML plugin expands them too). */
    private void readHosts(GroupDraft group, String pattern, JsonNode vars, Where path) {
        if (HOST_WITH_PORT.matcher(pattern).matches()) {
            String port = pattern.substring(pattern.indexOf(':') + 1);
            problems.errorAtKey(document, path.path(), "write the SSH port as the variable ansible_port: " + port
                    + ", not in the host name");
            return;
        }
        List<String> names;
        try {
            names = HOST_RANGE.matcher(pattern).matches() ? HostPatterns.expand(pattern) : List.of(pattern);
        } catch (HostPatterns.BadPattern e) {
            problems.errorAtKey(document, path.path(), e.getMessage());
            return;
        }
        for (String name : names) {
            readHost(group, name, vars, path);
        }
    }

    private void readHost(GroupDraft group, String name, JsonNode vars, Where path) {
        if (!hosts.containsKey(name)) {
            values.checkHostName(name, path);
        }
        group.hosts.add(name);
        HostDraft host = hosts.computeIfAbsent(name, n -> new HostDraft(n, document.keyLocationOf(path.path()), path));
        forEachField(vars, (var, value) -> host.setVar(var, value, path.key(var)));
    }

    /** Each group's and host's group_vars and host_vars files, in the order Ansible reads them. */
    private void readVarsFiles() {
        for (GroupDraft group : groups.values()) {
            for (YamlDocument vars : varsFiles.groupVars(group.name)) {
                forEachField(vars.root(), (var, value) -> group.setFileVar(var, value,
                        new Where(vars, FieldPath.of(var), varsFiles.anchor())));
            }
        }
        for (HostDraft host : hosts.values()) {
            for (YamlDocument vars : varsFiles.hostVars(host.name)) {
                forEachField(vars.root(), (var, value) -> host.setFileVar(var, value,
                        new Where(vars, FieldPath.of(var), varsFiles.anchor())));
            }
        }
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
        for (Map.Entry<String, Where> child : groups.get(name).children.entrySet()) {
            int seenAt = trail.indexOf(child.getKey());
            if (seenAt >= 0) {
                List<String> loop = new ArrayList<>(trail.subList(seenAt, trail.size()));
                loop.add(child.getKey());
                problems.errorAtKey(child.getValue().document(), child.getValue().path(), "group '" + child.getKey() + "' is its own ancestor: "
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
                all.children.put(group.name, new Where(documents.get(0), FieldPath.of(group.name), documents.get(0).file()));
            }
        }
        Set<String> inSomeGroup = new HashSet<>();
        groups.values().stream().filter(group -> group != all && group != ungrouped)
                .forEach(group -> inSomeGroup.addAll(group.hosts));
        // Like reconcile_inventory: a host listed in ungrouped and in another group is not ungrouped.
        ungrouped.hosts.removeIf(inSomeGroup::contains);
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
        List<GroupDraft> ordered = memberOf.stream()
                .map(groups::get)
                .sorted(Comparator.<GroupDraft>comparingInt(group -> depths.getOrDefault(group.name, 0))
                        .thenComparingInt(group -> group.priority)
                        .thenComparing(group -> group.name))
                .toList();
        host.orderedGroups = ordered;
        ordered.forEach(group -> merged.putAll(group.vars));
        ordered.forEach(group -> merged.putAll(group.fileVars));
        merged.putAll(host.vars);
        merged.putAll(host.fileVars);
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
                ? resolve(written, whereSet(host, "ansible_ssh_private_key_file"))
                : Optional.empty();
        boolean become = InventoryValues.isTrue(vars.get("ansible_become"));
        Optional<InventoryHost.SetAt> portSetAt = Optional.empty();
        if (vars.get("ansible_port") instanceof Number) {
            Where at = whereSet(host, "ansible_port");
            portSetAt = Optional.of(new InventoryHost.SetAt(at.document().locationOf(at.path()), at.path().toString()));
        }
        return new InventoryHost(host.name, address, port, user, keyFile, become, vars, host.location, portSetAt);
    }

    private void checkDistinctSshTargets(Map<String, InventoryHost> built) {
        Map<String, InventoryHost> byTarget = new HashMap<>();
        for (InventoryHost host : built.values()) {
            String target = host.address().toLowerCase(Locale.ROOT) + ":" + host.port();
            InventoryHost first = byTarget.putIfAbsent(target, host);
            if (first != null) {
 Where at = hosts.get(host.name()).path;
                problems.errorAtKey(at.document(), at.path(), "hosts " + first.name() + " and " + host.name()
                        + " both connect to " + host.address() + " port " + host.port() + " (" + first.name() + " is at "
                        + first.location() + "); each inventory host must be a machine of its own: fix ansible_host or ansible_port");
            }
        }
    }

    private void warnAboutVariablesWeDoNotRead() {
        for (GroupDraft group : groups.values()) {
            group.allVarPaths().forEach((var, path) -> {
                warnIfIgnored(var, path);
                if (var.equals(KNOWN_HOSTS) && !group.name.equals(Inventory.ALL)) {
                    problems.warningAtKey(path.document(), path.path(), KNOWN_HOSTS + " is read from all's vars only; move it there");
                }
            });
        }
        for (HostDraft host : hosts.values()) {
            host.allVarPaths().forEach((var, path) -> {
                warnIfIgnored(var, path);
                if (var.equals(KNOWN_HOSTS)) {
                    problems.warningAtKey(path.document(), path.path(), KNOWN_HOSTS + " is read from all's vars only; move it there");
                } else if (var.equals(PRIORITY)) {
                    problems.warningAtKey(path.document(), path.path(), PRIORITY + " orders groups; on a host it does nothing");
                }
            });
        }
    }

    /** Each value of a variable etcdwright reads, where it is written. */
    private void checkValuesWeRead() {
        for (GroupDraft group : groups.values()) {
            boolean all = group.name.equals(Inventory.ALL);
            group.varPaths.forEach((var, path) -> values.checkVariable(var, group.vars.get(var), path, all));
            group.fileVarPaths.forEach((var, path) -> values.checkVariable(var, group.fileVars.get(var), path, all));
        }
        for (HostDraft host : hosts.values()) {
            host.varPaths.forEach((var, path) -> values.checkVariable(var, host.vars.get(var), path, false));
            host.fileVarPaths.forEach((var, path) -> values.checkVariable(var, host.fileVars.get(var), path, false));
        }
    }

    private void warnIfIgnored(String var, Where path) {
        IgnoredVariables.warningFor(var).ifPresent(warning -> problems.warningAtKey(path.document(), path.path(), warning));
    }

    private Optional<Path> knownHostsFile() {
        GroupDraft all = groups.get(Inventory.ALL);
        Map<String, Object> vars = new LinkedHashMap<>(all.vars);
        vars.putAll(all.fileVars);
        return vars.get(KNOWN_HOSTS) instanceof String written ? resolve(written, all.allVarPaths().get(KNOWN_HOSTS)) : Optional.empty();
    }

    /** Where the value a host ends up with for {@code var} was written (the host itself when nowhere). */
    private Where whereSet(HostDraft host, String var) {
        if (host.fileVarPaths.containsKey(var)) {
            return host.fileVarPaths.get(var);
        } else if (host.varPaths.containsKey(var)) {
            return host.varPaths.get(var);
        }
        Where found = host.path;
        for (GroupDraft group : host.orderedGroups) {
            found = group.varPaths.getOrDefault(var, found);
        }
        for (GroupDraft group : host.orderedGroups) {
            found = group.fileVarPaths.getOrDefault(var, found);
        }
        return found;
    }

    private Optional<Path> resolve(String written, Where path) {
        try {
            return Optional.of(RelativePaths.resolve(path.anchor(), written));
        } catch (InvalidPathException e) {
            problems.error(path.document(), path.path(), "is not a usable path: " + e.getReason());
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
        final Map<String, Where> children = new LinkedHashMap<>();
        final Map<String, Object> vars = new LinkedHashMap<>();
        final Map<String, Where> varPaths = new LinkedHashMap<>();
        /** From group_vars files: above every group's inventory vars, below the host's. */
        final Map<String, Object> fileVars = new LinkedHashMap<>();
        final Map<String, Where> fileVarPaths = new LinkedHashMap<>();
        int priority = 1;

        GroupDraft(String name, Location location) {
            this.name = name;
            this.location = location;
        }

        void setFileVar(String key, JsonNode value, Where path) {
            fileVarPaths.put(key, path);
            fileVars.put(key, JsonValues.toJava(value)); // files replace each other's values, as combine_vars does
        }

        Map<String, Where> allVarPaths() {
            Map<String, Where> paths = new LinkedHashMap<>(varPaths);
            paths.putAll(fileVarPaths);
            return paths;
        }

        void setVar(String key, JsonNode value, Where path) {
            varPaths.put(key, path);
            if (key.equals(PRIORITY)) {
                // Like Ansible: the priority orders the group, it is not a variable of its hosts.
                priority = value.asInt(1);
                return;
            }
            setVariable(vars, key, JsonValues.toJava(value));
        }

        InventoryGroup build() {
            Map<String, Object> own = new LinkedHashMap<>(vars);
            own.putAll(fileVars);
            return new InventoryGroup(name, List.copyOf(hosts), List.copyOf(children.keySet()), own, location);
        }
    }

    private static final class HostDraft {
        final String name;
        final Location location;
        final Where path;
        final Map<String, Object> vars = new LinkedHashMap<>();
        final Map<String, Where> varPaths = new LinkedHashMap<>();
        /** From host_vars files: above everything else. */
        final Map<String, Object> fileVars = new LinkedHashMap<>();
        final Map<String, Where> fileVarPaths = new LinkedHashMap<>();
        /** The host's groups in precedence order, once merged. */
        List<GroupDraft> orderedGroups = List.of();

        HostDraft(String name, Location location, Where path) {
            this.name = name;
            this.location = location;
            this.path = path;
        }

        void setFileVar(String key, JsonNode value, Where path) {
            fileVarPaths.put(key, path);
            fileVars.put(key, JsonValues.toJava(value));
        }

        Map<String, Where> allVarPaths() {
            Map<String, Where> paths = new LinkedHashMap<>(varPaths);
            paths.putAll(fileVarPaths);
            return paths;
        }

        void setVar(String key, JsonNode value, Where path) {
            varPaths.put(key, path);
            setVariable(vars, key, JsonValues.toJava(value));
        }
    }
}
