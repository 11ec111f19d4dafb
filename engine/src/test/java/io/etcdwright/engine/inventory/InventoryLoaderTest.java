package io.etcdwright.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InventoryLoaderTest {

    @TempDir
    Path dir;

    private Inventory load(String yaml) {
        return InventoryLoader.load(Fixtures.write(dir, "hosts.yaml", yaml));
    }

    private List<String> problems(String yaml) {
        Path file = Fixtures.write(dir, "hosts.yaml", yaml);
        return InventoryLoader.read(file).problems().stream()
                .map(problem -> problem.toString().replace(file.toString(), "hosts.yaml"))
                .toList();
    }

    private static List<String> names(List<InventoryHost> hosts) {
        return hosts.stream().map(InventoryHost::name).toList();
    }

    @Test
    void readsTheTestbedInventory() {
        Path file = Fixtures.resource("inventories/testbed.yaml");
        InventoryLoader.Outcome outcome = InventoryLoader.read(file);
        assertEquals(List.of(), outcome.problems());
        Inventory inventory = outcome.inventory().orElseThrow();

        assertEquals(List.of("h1", "h2", "h3"), List.copyOf(inventory.hosts().keySet()));
        assertEquals(List.of("all", "etcd", "ungrouped"), List.copyOf(inventory.groups().keySet()));
        assertEquals(List.of("etcd"), inventory.namedGroups());
        assertEquals(Optional.of(file.getParent().resolve("known_hosts")), inventory.knownHostsFile());

        InventoryHost h2 = inventory.host("h2").orElseThrow();
        assertEquals("10.77.0.12", h2.address());
        assertEquals(22, h2.port());
        assertEquals("root", h2.user());
        assertEquals(Optional.of(file.getParent().resolve("id_ed25519")), h2.privateKeyFile());
        assertFalse(h2.become());
        assertEquals("10.77.0.12", h2.etcdAddress());
        assertEquals("h2", h2.memberName());
        assertEquals(new Location(file, 12, 9), h2.location());
        assertEquals(List.of("h1", "h2", "h3"), names(inventory.hostsOf("etcd")));
        assertEquals(List.of("h1", "h2", "h3"), names(inventory.hostsOf("all")));
        assertEquals(List.of(), inventory.hostsOf("nope"));
    }

    @Test
    void emptyValuesAreAllowedEverywhere() {
        Inventory inventory = load("""
                all:
                  vars:
                  hosts:
                    h1:
                  children:
                    empty:
                    etcd:
                      hosts:
                        h2:
                """);
        assertEquals(List.of("h1", "h2"), List.copyOf(inventory.hosts().keySet()));
        assertEquals("h1", inventory.host("h1").orElseThrow().address());
        assertEquals(List.of(), inventory.group("empty").orElseThrow().hosts());
        assertEquals(List.of("h1"), names(inventory.hostsOf("ungrouped")));
    }

    @Test
    void topLevelGroupsBecomeChildrenOfAll() {
        Inventory inventory = load("""
                etcd:
                  hosts:
                    h1:
                web:
                  hosts:
                    w1:
                """);
        assertEquals(List.of("etcd", "web", "ungrouped"), inventory.group("all").orElseThrow().children());
        assertEquals(List.of("h1", "w1"), names(inventory.hostsOf("all")));
    }

    @Test
    void aHostInSeveralGroupsIsOneHostWithItsVarsCombined() {
        Inventory inventory = load("""
                all:
                  children:
                    etcd:
                      hosts:
                        h1:
                          ansible_host: 10.0.0.1
                    monitored:
                      hosts:
                        h1:
                          exporter: true
                """);
        InventoryHost h1 = inventory.host("h1").orElseThrow();
        assertEquals(1, inventory.hosts().size());
        assertEquals("10.0.0.1", h1.address());
        assertEquals(true, h1.vars().get("exporter"));
        assertEquals(List.of("h1"), inventory.group("monitored").orElseThrow().hosts());
    }

    @Test
    void precedenceIsAllThenParentThenChildThenHost() {
        Inventory inventory = load("""
                all:
                  vars: {level: all, from_all: 1, from_parent: all, from_child: all}
                  children:
                    parent:
                      vars: {level: parent, from_parent: parent, from_child: parent}
                      children:
                        child:
                          vars: {level: child, from_child: child}
                          hosts:
                            h1:
                              level: host
                            h2:
                """);
        InventoryHost h1 = inventory.host("h1").orElseThrow();
        assertEquals("host", h1.vars().get("level"));
        assertEquals(1, h1.vars().get("from_all"));
        assertEquals("parent", h1.vars().get("from_parent"));
        assertEquals("child", h1.vars().get("from_child"));
        assertEquals("child", inventory.host("h2").orElseThrow().vars().get("level"));
    }

    @Test
    void childGroupVarsWinEvenWhenTheChildIsWrittenFirst() {
        Inventory inventory = load("""
                child:
                  vars: {x: child}
                  hosts:
                    h1:
                parent:
                  vars: {x: parent}
                  children:
                    child:
                """);
        assertEquals("child", inventory.host("h1").orElseThrow().vars().get("x"));
    }

    @Test
    void groupsOfTheSameDepthAreOrderedByNameLaterWins() {
        Inventory inventory = load("""
                zeta:
                  vars: {x: zeta}
                  hosts:
                    h1:
                alpha:
                  vars: {x: alpha}
                  hosts:
                    h1:
                """);
        assertEquals("zeta", inventory.host("h1").orElseThrow().vars().get("x"));
    }

    @Test
    void groupPriorityOverridesNameOrderAtTheSameDepth() {
        Inventory inventory = load("""
                zeta:
                  vars: {x: zeta}
                  hosts:
                    h1:
                alpha:
                  vars: {x: alpha, ansible_group_priority: 10}
                  hosts:
                    h1:
                """);
        InventoryHost h1 = inventory.host("h1").orElseThrow();
        assertEquals("alpha", h1.vars().get("x"));
        assertFalse(h1.vars().containsKey("ansible_group_priority"), "a priority orders groups, it is no host variable");
    }

    @Test
    void groupPriorityDoesNotBeatDepth() {
        Inventory inventory = load("""
                parent:
                  vars: {x: parent, ansible_group_priority: 100}
                  children:
                    child:
                      vars: {x: child}
                      hosts:
                        h1:
                """);
        assertEquals("child", inventory.host("h1").orElseThrow().vars().get("x"));
    }

    @Test
    void depthIsTheLongestPathFromAll() {
        // "b" is both a top-level group (depth 1) and a child of "a" (depth 2): 2 counts, so
        // it beats "c" (depth 1) although "c" sorts after it by name.
        Inventory inventory = load("""
                a:
                  children:
                    b:
                b:
                  vars: {x: b}
                  hosts:
                    h1:
                c:
                  vars: {x: c}
                  hosts:
                    h1:
                """);
        assertEquals("b", inventory.host("h1").orElseThrow().vars().get("x"));
    }

    @Test
    void hostVarsWinOverEveryGroup() {
        Inventory inventory = load("""
                all:
                  vars: {ansible_port: 2200, ansible_user: admin, ansible_become: true}
                  hosts:
                    h1:
                      ansible_port: 2222
                      etcd_address: 192.168.1.1
                      etcd_member_name: infra1
                """);
        InventoryHost h1 = inventory.host("h1").orElseThrow();
        assertEquals(2222, h1.port());
        assertEquals("admin", h1.user());
        assertTrue(h1.become());
        assertEquals("h1", h1.address());
        assertEquals("192.168.1.1", h1.etcdAddress());
        assertEquals("infra1", h1.memberName());
    }

    @Test
    void aGroupWrittenTwiceIsOneGroup() {
        Inventory inventory = load("""
                all:
                  children:
                    etcd:
                      vars: {x: 1}
                etcd:
                  hosts:
                    h1:
                """);
        InventoryGroup etcd = inventory.group("etcd").orElseThrow();
        assertEquals(List.of("h1"), etcd.hosts());
        assertEquals(1, inventory.host("h1").orElseThrow().vars().get("x"));
        assertEquals(List.of("etcd", "ungrouped"), inventory.group("all").orElseThrow().children());
    }

    @Test
    void keyFilesAndKnownHostsAreRelativeToTheInventory() {
        Fixtures.write(dir, "inventories/known_hosts", "");
        Fixtures.write(dir, "inventories/prod/keys/id_ed25519", "placeholder");
        Fixtures.write(dir, "home/.ssh/id_ed25519", "placeholder");
        Path file = Fixtures.write(dir, "inventories/prod/hosts.yaml", """
                all:
                  vars:
                    etcdwright_known_hosts_file: ../known_hosts
                  hosts:
                    h1:
                      ansible_ssh_private_key_file: keys/id_ed25519
                    h2:
                      ansible_ssh_private_key_file: ~/.ssh/id_ed25519
                """);
        String home = System.getProperty("user.home");
        Inventory inventory;
        System.setProperty("user.home", dir.resolve("home").toString());
        try {
            inventory = InventoryLoader.load(file);
        } finally {
            System.setProperty("user.home", home);
        }
        assertEquals(Optional.of(dir.resolve("inventories/known_hosts")), inventory.knownHostsFile());
        assertEquals(Optional.of(dir.resolve("inventories/prod/keys/id_ed25519")),
                inventory.host("h1").orElseThrow().privateKeyFile());
        assertEquals(Optional.of(dir.resolve("home/.ssh/id_ed25519")),
                inventory.host("h2").orElseThrow().privateKeyFile());
    }

    @Test
    void aChildGroupCycleIsAnError() {
        assertEquals(List.of("hosts.yaml:7:9: error: a.children.b.children.a: group 'a' is its own ancestor: a -> b -> a;"
                        + " remove one of these children entries"),
                problems("""
                        a:
                          hosts:
                            h1:
                          children:
                            b:
                              children:
                                a:
                        """));
    }

    @Test
    void allCannotBeAChild() {
        assertEquals(List.of("hosts.yaml:3:5: error: etcd.children.all: 'all' is every host's group and cannot be a child of another group"),
                problems("""
                        etcd:
                          children:
                            all:
                          hosts:
                            h1:
                        """));
    }

    @Test
    void twoHostsWithTheSameSshTargetIsAnErrorNamingBoth() {
        assertEquals(List.of("hosts.yaml:5:5: error: all.hosts.h3: hosts h1 and h3 both connect to 10.0.0.1 port 22"
                        + " (h1 is at hosts.yaml:3:5); each inventory host must be a machine of its own: fix ansible_host or ansible_port"),
                problems("""
                        all:
                          hosts:
                            h1: {ansible_host: 10.0.0.1}
                            h2: {ansible_host: 10.0.0.1, ansible_port: 2222}
                            h3:
                              ansible_host: 10.0.0.1
                        """));
    }

    @Test
    void aHostVarOfTheWrongTypeIsAnError() {
        assertEquals(List.of("hosts.yaml:5:28: error: all.children.etcd.hosts.h1.ansible_port: must be between 1 and 65535, got 0"),
                problems("""
                        all:
                          children:
                            etcd:
                              hosts:
                                h1: {ansible_port: 0}
                        """));
    }

    @Test
    void aVariableOfTheWrongTypeStillLetsTheInventoryBeBuilt() {
        InventoryLoader.Outcome outcome = InventoryLoader.read(Fixtures.write(dir, "hosts.yaml", """
                all:
                  hosts:
                    h1: {ansible_host: 10.0.0.1, ansible_user: [root]}
                    h2: {ansible_host: 10.0.0.1, ansible_port: "2222"}
                """));
        assertTrue(outcome.hasErrors());
        Inventory inventory = outcome.inventory().orElseThrow();
        assertEquals("root", inventory.host("h1").orElseThrow().user());
        // h2's port fell back to 22: comparing SSH targets now would blame h1 and h2 for nothing.
        assertEquals(List.of("all.hosts.h1.ansible_user", "all.hosts.h2.ansible_port"),
                outcome.problems().stream().map(Problem::field).toList());
        assertTrue(outcome.hasErrorsInVariables(Set.of("ansible_port")));
        assertFalse(outcome.hasErrorsInVariables(Set.of("etcd_address")));
    }

    @Test
    void aMisshapenInventoryIsNotBuilt() {
        InventoryLoader.Outcome outcome = InventoryLoader.read(Fixtures.write(dir, "hosts.yaml", "etcd:\n  hosts: [h1, h2]\n"));
        assertTrue(outcome.hasErrors());
        assertEquals(Optional.empty(), outcome.inventory());
    }

    @Test
    void theSameHostTwiceInOneHostsMappingIsADuplicateKey() {
        List<String> problems = problems("""
                all:
                  hosts:
                    h1:
                    h2:
                    h1:
                """);
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("hosts.yaml:5:5: error: all.hosts.h1: duplicate key 'h1' (first written at line 3)"),
                problems.get(0));
    }

    @Test
    void portsInYamlHostNamesAreExplained() {
        assertEquals(List.of(
                        "hosts.yaml:4:5: error: all.hosts.h1:2222: write the SSH port as the variable ansible_port: 2222, not in the host name",
                        "hosts.yaml:6:5: error: all.hosts.web[03:1]: a host range starting with 0 must have begin and end of the same width,"
                                + " like [01:10]"),
                problems("""
                        all:
                          hosts:
                            web[01:03]:
                            "h1:2222":
                            h2:
                            web[03:1]:
                        """));
    }

    @Test
    void yamlHostRangesAreExpandedAsAnsibleDoes() {
        Inventory inventory = load("""
                all:
                  children:
                    etcd:
                      hosts:
                        node[01:03]:
                          ansible_user: admin
                        db-[a:c]:
                        w[1:9:4]:
                """);
        assertEquals(List.of("node01", "node02", "node03", "db-a", "db-b", "db-c", "w1", "w5", "w9"),
                List.copyOf(inventory.hosts().keySet()));
        assertEquals("admin", inventory.host("node02").orElseThrow().user());
    }

    @Test
    void oldVariableNamesAndPasswordsAreWarnedAbout() {
        Path file = Fixtures.write(dir, "hosts.yaml", """
                all:
                  hosts:
                    h1:
                      ansible_ssh_host: 10.0.0.1
                      ansible_password: secret
                """);
        InventoryLoader.Outcome outcome = InventoryLoader.read(file);
        assertFalse(outcome.hasErrors());
        assertEquals(List.of(
                        "all.hosts.h1.ansible_ssh_host: etcdwright reads ansible_host, not ansible_ssh_host; rename it",
                        "all.hosts.h1.ansible_password: etcdwright logs in with SSH keys and sudo without a password; ansible_password is ignored"),
                outcome.warnings().stream().map(p -> p.field() + ": " + p.message()).toList());
    }

    @Test
    void knownHostsFileOutsideAllIsWarnedAbout() {
        assertEquals(List.of("hosts.yaml:4:5: warning: etcd.vars.etcdwright_known_hosts_file: etcdwright_known_hosts_file"
                        + " is read from all's vars only; move it there"),
                problems("""
                        etcd:
                          hosts: {h1: }
                          vars:
                            etcdwright_known_hosts_file: kh
                        """));
    }

    @Test
    void anInventoryWithoutHostsIsAnError() {
        assertEquals(List.of("hosts.yaml:1:1: error: the inventory lists no hosts"), problems("all:\n  children:\n    etcd:\n"));
    }

    @Test
    void anEmptyFileIsAnError() {
        assertEquals(List.of("hosts.yaml:1:1: error: the file is empty; expected an Ansible YAML inventory (all: with hosts, vars, children)"),
                problems("\n"));
    }

    @Test
    void loadThrowsWithEveryProblem() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load("""
                all:
                  hosts:
                    h1: {ansible_port: x}
                    h2: {ansible_become: maybe}
                """));
        assertEquals(List.of("all.hosts.h1.ansible_port", "all.hosts.h2.ansible_become"),
                e.problems().stream().map(Problem::field).toList());
    }
}
