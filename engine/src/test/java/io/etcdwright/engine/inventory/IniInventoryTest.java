package io.etcdwright.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.Problem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** INI inventories' mistakes and Ansible-only syntax, each at its file:line:col (parity itself: AnsibleInventoryParityTest). */
class IniInventoryTest {

    @TempDir
    Path dir;

    private List<String> errors(String name, String text) {
        Path file = Fixtures.write(dir, name, text);
        return InventoryLoader.read(file).problems().stream().filter(Problem::isError).map(Problem::toString)
                .map(line -> line.replace(dir + "/", "")).toList();
    }

    @Test
    void iniMistakesArePlacedAtTheirLineAndColumn() {
        assertEquals(List.of(
                        "hosts.ini:2:4: error: etcd.hosts.h1: expected a host variable key=value after the host name, got 'sudo'",
                        "hosts.ini:3:1: error: cannot split the host line: the quote ' opened here is never closed",
                        "hosts.ini:4:1: error: etcd: section [etcd:bad] has an unknown type 'bad': a section is [group], [group:children]"
                                + " or [group:vars]",
                        "hosts.ini:6:1: error: '[k8s cluster]' is not a section header: write [group], [group:children] or"
                                + " [group:vars], without spaces or other characters in the brackets",
                        "hosts.ini:8:1: error: workers: [k8s:children] names group 'workers', which no [workers] or"
                                + " [workers:children] section declares",
                        "hosts.ini:10:2: error: nodes: [nodes:vars] is for a group that no [nodes] or [nodes:children] section declares"),
                errors("hosts.ini", """
                        [etcd]
                        h1 sudo
                        'h2
                        [etcd:bad]
                        x
                        [k8s cluster]
                        [k8s:children]
                        workers
                        etcd
                        [nodes:vars]
                        a=1
                        """));
    }

    @Test
    void templatesAndVaultInValuesEtcdwrightReadsAreRefusedElsewhereIgnored() throws Exception {
        // (problems come by file in the order they were found: vars files as they are read, then the values' checks)
        Files.createDirectories(dir.resolve("group_vars"));
        Files.writeString(dir.resolve("group_vars/all.yml"), """
                ansible_user: "{{ lookup('env', 'USER') }}"
                ansible_become_password: !vault |
                  $ANSIBLE_VAULT;1.1;AES256
                  6162
                unrelated: "{{ not read by etcdwright }}"
                """);
        Files.writeString(dir.resolve("group_vars/etcd.yml"), "$ANSIBLE_VAULT;1.1;AES256\n6162\n");
        assertEquals(List.of(
                        "group_vars/etcd.yml:1:1: error: the file is encrypted with ansible-vault; etcdwright does not decrypt vault"
                                + " files: keep the variables etcdwright reads (addresses, names, paths) in a plain file beside it, or"
                                + " decrypt it (ansible-vault decrypt)",
                        "group_vars/all.yml:1:15: error: ansible_user: is a Jinja template (\"{{ lookup('env', 'USER') }}\");"
                                + " etcdwright reads inventories as data and does not evaluate templates: write the value ansible_user"
                                + " stands for",
                        "hosts.ini:2:38: error: etcd.hosts.h1.etcd_member_name: is encrypted with ansible-vault (!vault); etcdwright"
                                + " does not decrypt vault values: write etcd_member_name in plain text (it is an address, a name"
                                + " or a path, not a secret)"),
                errors("hosts.ini", "[etcd]\nh1 ansible_port=22 etcd_member_name='$ANSIBLE_VAULT;1.1;AES256'\n"));
    }
}
