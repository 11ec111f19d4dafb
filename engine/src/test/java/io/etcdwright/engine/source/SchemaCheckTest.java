package io.etcdwright.engine.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of schema message, with the exact place it points at. */
class SchemaCheckTest {

    private static final Path SPEC = Path.of("examples/bad.yaml");
    private static final Path INVENTORY = Path.of("inventories/bad.yaml");

    private static List<String> cluster(String yaml) {
        return SchemaCheck.check(YamlDocument.parse(SPEC, yaml), SchemaCheck.CLUSTER_SCHEMA).stream().map(Problem::toString).toList();
    }

    private static List<String> inventory(String yaml) {
        return SchemaCheck.check(YamlDocument.parse(INVENTORY, yaml), SchemaCheck.INVENTORY_SCHEMA).stream().map(Problem::toString).toList();
    }

    private static final String VALID_HEAD = """
            cluster:
              name: demo
            etcd:
              version: 3.5.16
            """;

    @Test
    void aMinimalDesiredStateIsValid() {
        assertEquals(List.of(), cluster(VALID_HEAD));
    }

    @Test
    void compilesEachSchemaOnce() {
        assertSame(SchemaCheck.of(SchemaCheck.CLUSTER_SCHEMA), SchemaCheck.of(SchemaCheck.CLUSTER_SCHEMA));
    }

    @Test
    void unknownFieldPointsAtTheKeyAndListsTheAllowedOnes() {
        assertEquals(List.of("examples/bad.yaml:6:5: error: etcd.ports.prots: unknown field 'prots' (allowed: client, peer, metrics)"),
                cluster(VALID_HEAD + """
                          ports:
                            prots: 2379
                        """));
    }

    @Test
    void wrongTypeSaysWhatWasWritten() {
        assertEquals(List.of("examples/bad.yaml:7:11: error: etcd.ports.peer: must be an integer, got string \"x\""),
                cluster(VALID_HEAD + """
                          ports:
                            client: 2379
                            peer: x
                        """));
    }

    @Test
    void requiredFieldPointsAtItsParent() {
        assertEquals(List.of("examples/bad.yaml:3:1: error: etcd.version: required field 'version' is missing"),
                cluster("""
                        cluster:
                          name: demo
                        etcd:
                          dataDir: /var/lib/etcd
                        """));
    }

    @Test
    void versionMessageShowsTheExpectedShape() {
        assertEquals(List.of("examples/bad.yaml:4:12: error: etcd.version: must be a version X.Y.Z, like 3.5.16, got number 3.10"),
                cluster(VALID_HEAD.replace("3.5.16", "3.10")));
        assertEquals(List.of("examples/bad.yaml:4:12: error: etcd.version: must be a version X.Y.Z, like 3.5.16, got \"v3.5.16\""),
                cluster(VALID_HEAD.replace("3.5.16", "v3.5.16")));
    }

    @Test
    void clusterNameMustBeUsableInPaths() {
        assertEquals(List.of("examples/bad.yaml:2:9: error: cluster.name: must be lowercase letters, digits and inner '-',"
                        + " at most 63 characters, like demo or prod-eu1, got \"Demo_1\""),
                cluster(VALID_HEAD.replace("demo", "Demo_1")));
    }

    @Test
    void portsOutOfRange() {
        assertEquals(List.of("examples/bad.yaml:6:13: error: etcd.ports.client: must be between 1 and 65535, got 70000"),
                cluster(VALID_HEAD + "  ports:\n    client: 70000\n"));
    }

    @Test
    void enumListsTheChoices() {
        assertEquals(List.of("examples/bad.yaml:6:11: error: artifacts.source: must be one of push, fetch; got \"pull\""),
                cluster(VALID_HEAD + "artifacts:\n  source: pull\n"));
    }

    @Test
    void membersTakeGroupOrHostsNotBoth() {
        assertEquals(List.of("examples/bad.yaml:6:3: error: members: give either 'group' or 'hosts', not both"),
                cluster(VALID_HEAD + "members:\n  group: etcd\n  hosts: [h1]\n"));
    }

    @Test
    void anEmptyHostsListIsNoMembers() {
        assertEquals(List.of("examples/bad.yaml:6:10: error: members.hosts: lists no hosts; an etcd cluster needs at least one member"),
                cluster(VALID_HEAD + "members:\n  hosts: []\n"));
    }

    @Test
    void sha256MustBeHexDigestsKeyedByVersion() {
        assertEquals(List.of(
                        "examples/bad.yaml:7:5: error: artifacts.sha256.3.5: this key must be an etcd version X.Y.Z, like 3.5.16",
                        "examples/bad.yaml:8:13: error: artifacts.sha256.3.5.16: must be a sha256 digest: 64 hex characters, got \"3f1c\""),
                cluster(VALID_HEAD + """
                        artifacts:
                          sha256:
                            "3.5": %s
                            3.5.16: 3f1c
                        """.formatted("a".repeat(64))));
    }

    @Test
    void dataDirMustBeAbsolute() {
        assertEquals(List.of("examples/bad.yaml:5:12: error: etcd.dataDir: must be an absolute path, like /var/lib/etcd, got \"var/lib/etcd\""),
                cluster(VALID_HEAD + "  dataDir: var/lib/etcd\n"));
    }

    @Test
    void aBroughtCaNeedsItsCert() {
        assertEquals(List.of("examples/bad.yaml:7:5: error: tls.pki.ca.cert: a CA you bring needs its 'cert' (and its 'key',"
                        + " unless etcdwright is to issue nothing: trust-only)"),
                cluster(VALID_HEAD + "tls:\n  pki:\n    ca:\n      key: my-ca.key\n"));
        assertEquals(List.of(), cluster(VALID_HEAD + "tls:\n  pki:\n    ca:\n      cert: my-ca.crt\n"));
    }

    @Test
    void backupStoreFieldsDependOnItsType() {
        assertEquals(List.of(
                        "examples/bad.yaml:7:7: error: backup.stores[0].bucket: store type s3 needs a bucket",
                        "examples/bad.yaml:9:7: error: backup.stores[0].path: does not apply to store type s3 (it takes bucket, prefix, endpoint, region, pathStyle)"),
                cluster(VALID_HEAD + """
                        backup:
                          stores:
                            - name: offsite
                              type: s3
                              path: /var/backups/etcd
                        """));
        assertEquals(List.of("examples/bad.yaml:7:7: error: backup.stores[0].host: store type sftp needs the inventory host to copy backups to"),
                cluster(VALID_HEAD + "backup:\n  stores:\n    - name: v\n      type: sftp\n"));
        assertEquals(List.of("examples/bad.yaml:10:7: error: backup.stores[0].bucket: does not apply to store type directory (it takes path only)"),
                cluster(VALID_HEAD + "backup:\n  stores:\n    - name: l\n      type: directory\n      path: /b\n      bucket: xyz\n"));
        assertEquals(List.of("examples/bad.yaml:5:1: error: backup.stores: needs stores: where backups go, like [{name: local, type: directory, path: /var/backups/etcd}]"),
                cluster(VALID_HEAD + "backup:\n  retention: {hourlyForDays: 3}\n"));
    }

    @Test
    void anEmptyFileSaysWhatWasExpected() {
        List<String> problems = cluster("# only a comment\n");
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("examples/bad.yaml:1:1: error: the file is empty; expected an etcdwright desired state"),
                problems.get(0));
    }

    @Test
    void aDesiredStateThatIsAListIsAMappingError() {
        assertEquals(List.of("examples/bad.yaml:1:1: error: must be a mapping, got a list"), cluster("- a\n- b\n"));
    }

    @Test
    void inventoryGroupsTakeOnlyHostsVarsChildren() {
        assertEquals(List.of("inventories/bad.yaml:2:3: error: all.host: unknown field 'host' (allowed: hosts, vars, children)"),
                inventory("all:\n  host:\n    h1:\n"));
    }

    @Test
    void inventoryKnownVarsAreTyped() {
        assertEquals(List.of(
                        "inventories/bad.yaml:6:25: error: all.children.etcd.hosts.h1.ansible_port: must be an integer, got string \"22\"",
                        // a string is Ansible's too (ansible_become=true in INI); which strings is the values check's business
                        "inventories/bad.yaml:7:27: error: all.children.etcd.hosts.h1.ansible_become: must be true or false, got a list"),
                inventory("""
                        all:
                          children:
                            etcd:
                              hosts:
                                h1:
                                  ansible_port: "22"
                                  ansible_become: [sudo]
                                  anything_else: [1, 2]
                        """));
    }

    @Test
    void aHostWithAnAddressInsteadOfVarsExplainsTheFix() {
        assertEquals(List.of("inventories/bad.yaml:3:9: error: all.hosts.h1: must be the host's variables (a mapping) or empty,"
                        + " like 'h1: {ansible_host: 10.0.0.11}', got string \"10.0.0.1\""),
                inventory("all:\n  hosts:\n    h1: 10.0.0.1\n"));
    }

    @Test
    void hostsWrittenAsAListExplainTheFix() {
        assertEquals(List.of("inventories/bad.yaml:3:5: error: etcd.hosts: must be a mapping of host names: write each host as 'h1:'"
                        + " on its own line, its variables indented below it, got a list"),
                inventory("etcd:\n  hosts:\n    - h1\n    - h2\n"));
    }

    @Test
    void etcdAddressMustBeBare() {
        assertEquals(List.of(
                        "inventories/bad.yaml:3:24: error: all.hosts.h1.etcd_address: must be a bare IP address or DNS name, without"
                                + " scheme, port or path (etcdwright adds those), like 10.77.0.11, got \"10.0.0.1:2379\"",
                        "inventories/bad.yaml:4:24: error: all.hosts.h2.etcd_address: must be a bare IP address or DNS name, without"
                                + " scheme, port or path (etcdwright adds those), like 10.77.0.11, got \"https://10.0.0.2\""),
                inventory("""
                        all:
                          hosts:
                            h1: {etcd_address: "10.0.0.1:2379"}
                            h2: {etcd_address: https://10.0.0.2}
                            h3: {etcd_address: "fd00::3"}
                            h4: {etcd_address: etcd-4.example.com}
                        """));
    }

    @Test
    void urlTemplatesNeedAScheme() {
        assertEquals(List.of("examples/bad.yaml:6:8: error: artifacts.url: must be a URL starting with https://, http:// or file://,"
                        + " got \"mirror/etcd-{version}.tgz\""),
                cluster(VALID_HEAD + "artifacts:\n  url: mirror/etcd-{version}.tgz\n  checksumsUrl: null\n"));
    }

    @Test
    void nullGroupsHostsAndVarsAreFine() {
        assertEquals(List.of(), inventory("""
                all:
                  vars:
                  hosts:
                    h1:
                  children:
                    etcd:
                    web:
                      hosts:
                """));
    }
}
