package io.etcdwright.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.etcdwright.engine.source.RelativePaths;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * etcdwright reads an inventory as Ansible does: for each fixture under
 * {@code src/test/resources/ansible-parity/} (a kubespray-style INI file with group_vars and
 * host_vars beside it; a directory of YAML and INI inventories) and each committed example
 * under {@code inventories/}, what {@code ansible-inventory
 * --list} prints for the same files is compared with etcdwright's inventory: the groups (each
 * one's hosts, in order, and child groups), every host, and every variable of every host after
 * precedence (not only those etcdwright reads), and what etcdwright makes of the ones it reads
 * (SSH address, port, user, key file, sudo, member name, etcd address) from Ansible's values.
 *
 * <p>ansible-inventory comes from Debian's ansible-core, installed by scripts/setup; without it
 * this test fails (a parity test that skips proves nothing).
 */
class AnsibleInventoryParityTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path ansibleHome;

    @ParameterizedTest
    @ValueSource(strings = {"src/test/resources/ansible-parity/kubespray-ini/inventory.ini",
            "src/test/resources/ansible-parity/directory", "../inventories/kubespray/inventory.ini", "../inventories/yaml/hosts.yaml"})
    void etcdwrightReadsWhatAnsibleReads(String source) throws Exception {
        Path given = Path.of(source);
        JsonNode ansible = ansibleInventoryList(given);
        Inventory inventory = InventoryLoader.load(given);

        JsonNode hostvars = ansible.path("_meta").path("hostvars");
        TreeSet<String> ansibleHosts = new TreeSet<>();
        ansible.properties().forEach(group -> group.getValue().path("hosts").forEach(host -> ansibleHosts.add(host.asText())));
        hostvars.fieldNames().forEachRemaining(ansibleHosts::add);
        assertEquals(ansibleHosts, new TreeSet<>(inventory.hosts().keySet()), "hosts of " + source);

        TreeSet<String> groupNames = new TreeSet<>();
        ansible.fieldNames().forEachRemaining(name -> {
            if (!name.equals("_meta")) {
                groupNames.add(name);
                ansible.path(name).path("children").forEach(child -> groupNames.add(child.asText()));
            }
        });
        assertEquals(groupNames, new TreeSet<>(inventory.groups().keySet()), "groups of " + source);
        for (String name : groupNames) {
            InventoryGroup group = inventory.group(name).orElseThrow();
            // ansible-inventory --list never prints all's hosts (every host is in all).
            if (!name.equals(Inventory.ALL)) {
                assertEquals(texts(ansible.path(name).path("hosts")), group.hosts(), "hosts of group " + name + " in " + source);
            }
            assertEquals(new TreeSet<>(texts(ansible.path(name).path("children"))), new TreeSet<>(group.children()),
                    "children of group " + name + " in " + source);
        }

        for (InventoryHost host : inventory.hosts().values()) {
            JsonNode expected = hostvars.path(host.name()).isMissingNode() ? JsonNodeFactory.instance.objectNode()
                    : hostvars.path(host.name());
            JsonNode actual = JSON.readTree(JSON.writeValueAsString(host.vars()));
            assertEquals(expected, actual, "variables of " + host.name() + " in " + source);
            checkWhatEtcdwrightMakesOf(host, expected, given);
        }
    }

    private static void checkWhatEtcdwrightMakesOf(InventoryHost host, JsonNode vars, Path given) {
        assertEquals(vars.path("ansible_host").asText(host.name()), host.address(), "address of " + host.name());
        assertEquals(vars.path("ansible_port").asInt(InventoryHost.DEFAULT_SSH_PORT), host.port(), "port of " + host.name());
        assertEquals(vars.path("ansible_user").asText(InventoryHost.DEFAULT_USER), host.user(), "user of " + host.name());
        JsonNode become = vars.path("ansible_become");
        boolean ansibleBecomes = become.isBoolean() ? become.booleanValue()
                : List.of("yes", "on", "1", "true", "t", "y").contains(become.asText("false").toLowerCase(java.util.Locale.ROOT));
        assertEquals(ansibleBecomes, host.become(), "become of " + host.name());
        assertEquals(vars.path("etcd_member_name").asText(host.name()), host.memberName(), "member name of " + host.name());
        assertEquals(vars.path("etcd_address").asText(host.address()), host.etcdAddress(), "etcd address of " + host.name());
        JsonNode key = vars.path("ansible_ssh_private_key_file");
        Path basedir = Files.isDirectory(given) ? given : given.getParent();
        assertEquals(key.isMissingNode() ? Optional.empty() : Optional.of(RelativePaths.resolve(basedir.resolve("x"), key.asText())),
                host.privateKeyFile(), "SSH key of " + host.name());
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(item -> texts.add(item.asText()));
        return texts;
    }

    /** What ansible-inventory --list prints for {@code source}: only its YAML and INI plugins, every file required to parse. */
    private JsonNode ansibleInventoryList(Path source) throws IOException, InterruptedException {
        Path command = onPath("ansible-inventory").orElseGet(() -> fail("ansible-inventory is not installed, so etcdwright's"
                + " inventories cannot be compared with Ansible's: run scripts/setup, which installs Debian's ansible-core"
                + " (apt-get install ansible-core)"));
        Path config = Files.writeString(ansibleHome.resolve("ansible.cfg"), "[defaults]\n");
        ProcessBuilder builder = new ProcessBuilder(command.toString(), "-i", source.toAbsolutePath().toString(), "--list")
                .directory(ansibleHome.toFile())
                .redirectErrorStream(false);
        Map<String, String> env = builder.environment();
        env.put("ANSIBLE_CONFIG", config.toString());
        env.put("ANSIBLE_HOME", ansibleHome.toString());
        env.put("ANSIBLE_LOCAL_TEMP", ansibleHome.resolve("tmp").toString());
        env.put("ANSIBLE_INVENTORY_ENABLED", "yaml,ini");
        env.put("ANSIBLE_INVENTORY_UNPARSED_FAILED", "true");
        env.put("ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED", "true");
        env.put("ANSIBLE_NOCOLOR", "1");
        Path stderr = ansibleHome.resolve("stderr");
        builder.redirectError(stderr.toFile());
        Process process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "ansible-inventory did not finish");
        String errors = Files.readString(stderr);
        assertEquals(0, process.exitValue(), "ansible-inventory -i " + source + " --list failed: " + errors);
        assertFalse(errors.contains("[WARNING]"), "ansible-inventory warned: " + errors);
        return JSON.readTree(new String(out, StandardCharsets.UTF_8));
    }

    private static Optional<Path> onPath(String name) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(directory, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
