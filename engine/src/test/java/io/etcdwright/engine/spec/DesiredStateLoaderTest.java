package io.etcdwright.engine.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One test per check that needs the inventory or goes beyond the schema, each asserting the
 * exact file:line:column, field and message. Files are written to a temporary directory and
 * printed relative to it, so the expected strings read like what an operator sees.
 */
class DesiredStateLoaderTest {

    private static final String INVENTORY = """
            all:
              vars:
                ansible_user: root
              children:
                etcd:
                  hosts:
                    h1: {ansible_host: 10.77.0.11}
                    h2: {ansible_host: 10.77.0.12}
                    h3: {ansible_host: 10.77.0.13}
                web:
                  hosts:
                    w1: {ansible_host: 10.77.0.21}
            """;

    private static final String SPEC = """
            cluster:
              name: demo
            etcd:
              version: 3.5.16
            """;

    @TempDir
    Path dir;

    private DesiredState load(String inventory, String spec) {
        return DesiredStateLoader.load(Fixtures.write(dir, "hosts.yaml", inventory), Fixtures.write(dir, "demo.yaml", spec), SupportFloorRules.RULES);
    }

    /** Every problem as printed, with the temporary directory cut off. */
    private List<String> problems(String inventory, String spec) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load(inventory, spec));
        return e.problems().stream().map(this::relative).toList();
    }

    private List<String> problems(String spec) {
        return problems(INVENTORY, spec);
    }

    private String relative(Problem problem) {
        return problem.toString().replace(dir + "/", "");
    }

    @Test
    void theTestbedSamplesLoadWithoutProblems() {
        DesiredState state = DesiredStateLoader.load(Fixtures.resource("inventories/testbed.yaml"),
                Fixtures.resource("specs/three-nodes.yaml"), SupportFloorRules.RULES);
        assertEquals(List.of(), state.warnings());
        assertEquals(List.of("h1", "h2", "h3"), state.members().stream().map(Member::name).toList());
        assertEquals(List.of("10.77.0.11", "10.77.0.12", "10.77.0.13"), state.members().stream().map(Member::address).toList());
        assertEquals("demo", state.spec().name());
    }

    /** /var/lib/etcd/ names the same directory as /var/lib/etcd for the kernel and every other tool: read so, and said. */
    @Test
    void aTrailingSlashOnAHostDirectoryIsTakenOutWithAWarning() {
        DesiredState state = load(INVENTORY, SPEC + "  dataDir: /var/lib/etcd/\nbackup:\n  stores:\n"
                + "    - {name: local, type: directory, path: /srv/etcd//backups/}\n");
        assertEquals("/var/lib/etcd", state.spec().etcd().dataDir());
        assertEquals(new BackupStore.Directory("local", "/srv/etcd/backups"), state.spec().backup().orElseThrow().stores().get(0));
        assertEquals(List.of("demo.yaml:5:12: warning: etcd.dataDir: read as /var/lib/etcd (the trailing '/' removed); write it"
                        + " so to silence this warning",
                "demo.yaml:8:44: warning: backup.stores[0].path: read as /srv/etcd/backups (the trailing '/' removed); write it"
                        + " so to silence this warning"),
                state.warnings().stream().map(this::relative).toList());
    }

    /** plan --facts contacts no host, so the known_hosts file the inventory names need not exist yet. */
    @Test
    void anOfflineLoadDoesNotNeedTheKnownHostsFile() {
        String inventory = INVENTORY.replace("    ansible_user: root\n", "    ansible_user: root\n"
                + "    etcdwright_known_hosts_file: known_hosts\n");
        assertEquals(List.of("hosts.yaml:4:34: error: all.vars.etcdwright_known_hosts_file: known_hosts file \"known_hosts\""
                + " does not exist"), problems(inventory, SPEC).stream().map(p -> p.replaceAll(" \\(looked for.*", "")
                .replaceAll("; to trust.*", "")).toList());
        DesiredState offline = DesiredStateLoader.loadOffline(Fixtures.write(dir, "hosts.yaml", inventory),
                Fixtures.write(dir, "demo.yaml", SPEC), SupportFloorRules.RULES);
        assertEquals(dir.resolve("known_hosts"), offline.inventory().knownHostsFile().orElseThrow());
    }

    @Test
    void clientKeysGoToTheMemberHostsTheSpecNamesByHostOrGroupAndNowhereByDefault() {
        String inventory = INVENTORY.replace("    web:\n", "    control:\n      hosts:\n        h3:\n        h2:\n    web:\n");
        DesiredState none = load(inventory, SPEC);
        assertEquals(java.util.Set.of(), none.clientHosts(ClientKeys.ADMIN));
        assertEquals(java.util.Set.of(), none.clientHosts(ClientKeys.KUBE_APISERVER));

        DesiredState named = load(inventory, SPEC + """
                clients:
                  admin: {hosts: [h2]}
                  kube-apiserver: {groups: [control], hosts: [h1]}
                """);
        assertEquals(List.of("h2"), List.copyOf(named.clientHosts(ClientKeys.ADMIN)));
        assertEquals(List.of("h1", "h2", "h3"), List.copyOf(named.clientHosts(ClientKeys.KUBE_APISERVER)), "in member order");
        assertEquals(List.of(), named.spec().clients().targets().get(ClientKeys.ADMIN).groups());
    }

    @Test
    void clientTargetsMayBeHostsThatRunNoMemberAndGetClientFilesOnly() {
        DesiredState state = load(INVENTORY, SPEC + """
                members:
                  group: etcd
                clients:
                  admin: {hosts: [h1]}
                  kube-apiserver: {groups: [web]}
                """);
        assertEquals(List.of("h1"), List.copyOf(state.clientHosts(ClientKeys.ADMIN)));
        assertEquals(List.of("w1"), List.copyOf(state.clientHosts(ClientKeys.KUBE_APISERVER)));
        // w1 runs no member: it is asked for its client files only, and given nothing of etcd's.
        assertEquals(List.of("w1"), state.clientOnlyHosts().stream().map(h -> h.name()).toList());
    }

    @Test
    void clientTargetsMustBeInTheInventoryAndNamedOnce() {
        assertEquals(List.of(
                "demo.yaml:8:23: error: clients.admin.hosts[1]: host 'w1' is listed twice (first as clients.admin.hosts[0])",
                "demo.yaml:8:27: error: clients.admin.hosts[2]: host 'cp9' is not in hosts.yaml (hosts: h1, h2, h3, w1)",
                "demo.yaml:9:34: error: clients.kube-apiserver.groups[1]: group 'masters' is not in hosts.yaml (groups: etcd, web)"),
                problems(SPEC + """
                        members:
                          group: etcd
                        clients:
                          admin: {hosts: [w1, w1, cp9]}
                          kube-apiserver: {groups: [web, masters]}
                        """));
    }

    @Test
    void membersFollowTheHostsListOrderAndInventoryVariables() {
        DesiredState state = load(INVENTORY.replace("h2: {ansible_host: 10.77.0.12}",
                        "h2: {ansible_host: 10.77.0.12, etcd_address: 192.168.0.2, etcd_member_name: infra2}"),
                SPEC + "members:\n  hosts: [h3, h2, w1]\n");
        assertEquals(List.of("h3", "infra2", "w1"), state.members().stream().map(Member::name).toList());
        assertEquals(List.of("10.77.0.13", "192.168.0.2", "10.77.0.21"), state.members().stream().map(Member::address).toList());
        assertEquals("h2", state.members().get(1).host().name());
    }

    @Test
    void aGroupNotInTheInventory() {
        assertEquals(List.of("demo.yaml:6:10: error: members.group: group 'etcdd' is not in hosts.yaml (groups: etcd, web)"),
                problems(SPEC + "members:\n  group: etcdd\n"));
    }

    @Test
    void theDefaultGroupNotInTheInventory() {
        assertEquals(List.of("demo.yaml:1:1: error: members: members defaults to the inventory group 'etcd', which is not in"
                        + " hosts.yaml (groups: web); set members.group or members.hosts"),
                problems("all:\n  children:\n    web:\n      hosts:\n        w1:\n", SPEC));
    }

    @Test
    void aGroupWithoutHosts() {
        assertEquals(List.of("demo.yaml:6:10: error: members.group: group 'empty' in hosts.yaml has no hosts;"
                        + " an etcd cluster needs at least one member"),
                problems(INVENTORY + "    empty:\n", SPEC + "members:\n  group: empty\n"));
    }

    @Test
    void aHostNotInTheInventory() {
        assertEquals(List.of("demo.yaml:6:19: error: members.hosts[2]: host 'h4' is not in hosts.yaml (hosts: h1, h2, h3, w1)"),
                problems(SPEC + "members:\n  hosts: [h1, h2, h4]\n"));
    }

    @Test
    void aHostListedTwice() {
        assertEquals(List.of("demo.yaml:9:7: error: members.hosts[2]: host 'h1' is listed twice (first as members.hosts[0])"),
                problems(SPEC + "members:\n  hosts:\n    - h1\n    - h2\n    - h1\n"));
    }

    @Test
    void twoMembersWithTheSameEtcdAddress() {
        String inventory = INVENTORY.replace("h3: {ansible_host: 10.77.0.13}", "h3: {ansible_host: 10.77.0.13, etcd_address: 10.77.0.11}");
        assertEquals(List.of("demo.yaml:6:19: error: members.hosts[2]: members h1 and h3 both have etcd address 10.77.0.11"
                        + " (h3 is at hosts.yaml:9:9); give each its own etcd_address (or ansible_host) in the inventory"),
                problems(inventory, SPEC + "members:\n  hosts: [h1, h2, h3]\n"));
    }

    @Test
    void twoMembersWithTheSameMemberName() {
        String inventory = INVENTORY.replace("h2: {ansible_host: 10.77.0.12}", "h2: {ansible_host: 10.77.0.12, etcd_member_name: h1}");
        assertEquals(List.of("demo.yaml:1:1: error: members: members h1 and h2 both have member name h1"
                        + " (h2 is at hosts.yaml:8:9); member names must be unique: fix etcd_member_name in the inventory"),
                problems(inventory, SPEC));
    }

    @Test
    void moreThanSevenMembers() {
        StringBuilder inventory = new StringBuilder("etcd:\n  hosts:\n");
        for (int i = 1; i <= 9; i++) {
            inventory.append("    h").append(i).append(":\n");
        }
        assertEquals(List.of("demo.yaml:6:10: error: members.group: 9 members: etcd recommends at most 7"
                        + " (every write waits for a majority; more members add latency, not safety)"),
                problems(inventory.toString(), SPEC + "members:\n  group: etcd\n"));
    }

    @Test
    void anEvenMemberCountIsOnlyAWarning() {
        DesiredState state = load(INVENTORY, SPEC + "members:\n  hosts: [h1, h2, h3, w1]\n");
        assertEquals(4, state.members().size());
        assertEquals(List.of("demo.yaml:6:10: warning: members.hosts: 4 members tolerate no more failures than 3; use 3 or 5"),
                state.warnings().stream().map(this::relative).toList());
    }

    @Test
    void warningsTravelWithErrors() {
        assertEquals(List.of(
                        "demo.yaml:4:12: error: etcd.version: etcd 3.3.27 is not supported: etcdwright needs etcd 3.4 or newer",
                        "demo.yaml:6:10: warning: members.hosts: 2 members tolerate no more failures than 1; use 1 or 3"),
                problems(SPEC.replace("3.5.16", "3.3.27") + "members:\n  hosts: [h1, h2]\n"));
    }

    @Test
    void clientAndPeerPortsClash() {
        assertEquals(List.of("demo.yaml:7:11: error: etcd.ports.peer: port 2379 is also the client port; every listener needs a port of its own"),
                problems(SPEC + "  ports:\n    client: 2379\n    peer: 2379\n"));
    }

    @Test
    void aPortWrittenAgainstADefaultClashesWhereItIsWritten() {
        assertEquals(List.of("demo.yaml:6:13: error: etcd.ports.client: port 2380 is also the peer port; every listener needs a port of its own"),
                problems(SPEC + "  ports:\n    client: 2380\n"));
    }

    @Test
    void metricsPortClashesWithClientOrPeer() {
        assertEquals(List.of("demo.yaml:6:14: error: etcd.ports.metrics: port 2379 is also the client port; every listener needs a port of its own"),
                problems(SPEC + "  ports:\n    metrics: 2379\n"));
        assertEquals(List.of("demo.yaml:6:14: error: etcd.ports.metrics: port 2380 is also the peer port; every listener needs a port of its own"),
                problems(SPEC + "  ports:\n    metrics: 2380\n"));
    }

    @Test
    void aVersionThatIsNotXyz() {
        assertEquals(List.of("demo.yaml:4:12: error: etcd.version: must be a version X.Y.Z, like 3.5.16, got number 3.5"),
                problems(SPEC.replace("3.5.16", "3.5")));
    }

    @Test
    void versionsBelow34AreRefused() {
        assertEquals(List.of("demo.yaml:4:12: error: etcd.version: etcd 3.3.27 is not supported: etcdwright needs etcd 3.4 or newer"),
                problems(SPEC.replace("3.5.16", "3.3.27")));
    }

    @Test
    void sha256ThatIsNotSixtyFourHexCharacters() {
        assertEquals(List.of("demo.yaml:7:13: error: artifacts.sha256.3.5.16: must be a sha256 digest: 64 hex characters, got \"3f1c\""),
                problems(SPEC + "artifacts:\n  sha256:\n    3.5.16: 3f1c\n"));
    }

    @Test
    void aUrlTemplateWithoutVersion() {
        assertEquals(List.of("demo.yaml:6:8: error: artifacts.url: must contain {version}, or every etcd version would download the same file"),
                problems(SPEC + "artifacts:\n  url: https://mirror.example/etcd-linux-{arch}.tar.gz\n"));
    }

    @Test
    void aUrlTemplateWithAnUnknownPlaceholder() {
        assertEquals(List.of("demo.yaml:6:8: error: artifacts.url: must be a URL starting with https://, http:// or file://;"
                        + " got \"https://mirror.example/etcd-{version}-{arc}.tar.gz\": unknown placeholder {arc} (known: {arch}, {version})"),
                problems(SPEC + "artifacts:\n  url: https://mirror.example/etcd-{version}-{arc}.tar.gz\n"));
    }

    @Test
    void noChecksumsFileAndNoPin() {
        assertEquals(List.of("demo.yaml:6:17: error: artifacts.checksumsUrl: is null, so artifacts.sha256 must pin etcd 3.5.16;"
                        + " otherwise the download cannot be verified"),
                problems(SPEC + "artifacts:\n  checksumsUrl: null\n  sha256:\n    3.5.15: " + "ab".repeat(32) + "\n"));
    }

    @Test
    void dataDirNotAbsolute() {
        assertEquals(List.of("demo.yaml:5:12: error: etcd.dataDir: must be an absolute path, like /var/lib/etcd, got \"etcd-data\""),
                problems(SPEC + "  dataDir: etcd-data\n"));
    }

    @Test
    void dataDirThatIsASystemDirectory() {
        assertEquals(List.of("demo.yaml:5:12: error: etcd.dataDir: must be an absolute, normalized path of a directory of its own,"
                        + " like /var/lib/etcd; got \"/var/lib/\": /var/lib is a system directory, and destroy empties this directory"),
                problems(SPEC + "  dataDir: /var/lib/\n"));
    }

    @Test
    void settingsThatEtcdwrightManagesNameTheFieldToUse() {
        assertEquals(List.of(
                        "demo.yaml:6:5: error: etcd.settings.name: etcdwright manages this setting: the member name is the inventory host name; set etcd_member_name on the host to choose another",
                        "demo.yaml:7:5: error: etcd.settings.data-dir: etcdwright manages this setting: set it through etcd.dataDir",
                        "demo.yaml:8:5: error: etcd.settings.initial-cluster-token: etcdwright manages this setting: it builds the initial cluster from the members (with a token unique to each bootstrap); choose them with members.group or members.hosts",
                        "demo.yaml:9:5: error: etcd.settings.listen-client-urls: etcdwright manages this setting: it builds every URL from etcd.ports and each host's etcd_address (or ansible_host) in the inventory; set those",
                        "demo.yaml:10:5: error: etcd.settings.advertise-client-urls: etcdwright manages this setting: it builds every URL from etcd.ports and each host's etcd_address (or ansible_host) in the inventory; set those",
                        "demo.yaml:11:5: error: etcd.settings.listen-metrics-urls: etcdwright manages this setting: set the metrics port through etcd.ports.metrics",
                        "demo.yaml:12:5: error: etcd.settings.peer-trusted-ca-file: etcdwright manages this setting: peers and clients always use mutual TLS with the certificates it issues and installs; configure them through tls.pki",
                        "demo.yaml:13:5: error: etcd.settings.cert-file: etcdwright manages this setting: peers and clients always use mutual TLS with the certificates it issues and installs; configure them through tls.pki",
                        "demo.yaml:14:5: error: etcd.settings.client-cert-auth: etcdwright manages this setting: peers and clients always use mutual TLS with the certificates it issues and installs; configure them through tls.pki",
                        "demo.yaml:15:5: error: etcd.settings.peer-client-cert-auth: etcdwright manages this setting: peers and clients always use mutual TLS with the certificates it issues and installs; configure them through tls.pki",
                        "demo.yaml:17:5: error: etcd.settings.wal-dir: etcdwright manages this setting: it keeps the write-ahead log inside etcd.dataDir, so that destroy, backups and the data-directory safety checks see all of a member's data"),
                problems(SPEC + """
                          settings:
                            name: x
                            data-dir: /d
                            initial-cluster-token: t
                            listen-client-urls: https://0.0.0.0:2379
                            advertise-client-urls: https://10.0.0.1:2379
                            listen-metrics-urls: http://0.0.0.0:2381
                            peer-trusted-ca-file: /ca.crt
                            cert-file: /s.crt
                            client-cert-auth: true
                            peer-client-cert-auth: true
                            heartbeat-interval: 100
                            wal-dir: /wal
                        """));
    }

    @Test
    void renewBeforeMustBeLessThanValidity() {
        assertEquals(List.of("demo.yaml:8:22: error: tls.pki.renewBeforeDays: renewBeforeDays (30) must be less than validityDays (30),"
                        + " or every run would renew every certificate"),
                problems(SPEC + "tls:\n  pki:\n    validityDays: 30\n    renewBeforeDays: 30\n"));
    }

    @Test
    void certificatesOutlivingTheirCaAreWarnedAbout() {
        DesiredState state = load(INVENTORY, SPEC + "tls:\n  pki:\n    validityDays: 800\n    caValidityDays: 730\n");
        assertEquals(List.of("demo.yaml:7:19: warning: tls.pki.validityDays: certificates valid for 800 days would outlive"
                        + " their CA (caValidityDays: 730)"),
                state.warnings().stream().map(this::relative).toList());
    }

    @Test
    void aBroughtCaKeyWithoutItsCertIsRefusedAndACertWithoutKeyIsTrustOnly() {
        assertEquals(List.of("demo.yaml:7:5: error: tls.pki.ca.cert: a CA you bring needs its 'cert' (and its 'key', unless"
                        + " etcdwright is to issue nothing: trust-only)"),
                problems(SPEC + "tls:\n  pki:\n    ca:\n      key: my-ca.key\n"));
        Fixtures.write(dir, "my-ca.crt", Fixtures.CA_CERTIFICATE);
        // Valid, with a warning at the field saying what trust-only means.
        DesiredState trustOnly = load(INVENTORY, SPEC + "tls:\n  pki:\n    ca:\n      cert: my-ca.crt\n");
        assertTrue(trustOnly.spec().tls().pki().trustOnly());
        assertTrue(trustOnly.warnings().stream().anyMatch(w -> w.toString().contains("tls.pki.ca: trust-only (a CA certificate"
                + " without its key)")), trustOnly.warnings().toString());
    }

    @Test
    void certificatesOnTheHostsAreForATrustOnlyCaAlone() {
        Fixtures.write(dir, "my-ca.crt", Fixtures.CA_CERTIFICATE);
        Fixtures.write(dir, "my-ca.key", "-----BEGIN PRIVATE KEY-----\n");
        assertEquals(List.of("demo.yaml:11:7: error: tls.pki.fromHosts: names certificates already on the hosts, which only a"
                        + " trust-only CA uses (tls.pki.ca with 'cert' and no 'key'): with a CA key etcdwright issues the members'"
                        + " certificates itself; remove fromHosts, or the CA key"),
                problems(SPEC + "tls:\n  pki:\n    ca:\n      cert: my-ca.crt\n      key: my-ca.key\n    fromHosts:\n"
                        + "      server: {cert: /etc/pki/server.crt, key: /etc/pki/server.key}\n"));
        List<String> relative = problems(SPEC + "tls:\n  pki:\n    ca:\n      cert: my-ca.crt\n    fromHosts:\n"
                + "      peer: {cert: peer.crt, key: /etc/pki/peer.key}\n");
        assertEquals(List.of("demo.yaml:10:20: error: tls.pki.fromHosts.peer.cert: must be an absolute path on the member hosts,"
                        + " like /etc/kubernetes/pki/etcd/server.crt, got \"peer.crt\""),
                relative.stream().filter(p -> p.contains(": error: ")).toList());
    }

    @Test
    void broughtCaFilesThatDoNotExist() {
        Fixtures.write(dir, "my-ca.crt", Fixtures.CA_CERTIFICATE);
        // The temporary directory is cut off the message: it shows the absolute path it looked for.
        assertEquals(List.of("demo.yaml:9:12: error: tls.pki.ca.key: CA private key \"my-ca.key\" does not exist"
                        + " (looked for my-ca.key)"),
                problems(SPEC + "tls:\n  pki:\n    ca:\n      cert: my-ca.crt\n      key: my-ca.key\n"));
    }

    @Test
    void backupsInsideTheDataDir() {
        assertEquals(List.of("demo.yaml:9:13: error: backup.stores[0].path: backups in /var/lib/etcd/backups would share the data"
                        + " directory /var/lib/etcd and be lost with it; use a directory of their own, like /var/backups/etcd"),
                problems(SPEC + "backup:\n  stores:\n    - name: l\n      type: directory\n      path: /var/lib/etcd/backups\n"));
    }

    @Test
    void anSftpBackupHostNotInTheInventory() {
        assertEquals(List.of("demo.yaml:8:13: error: backup.stores[0].host: host 'backup1' is not in hosts.yaml (hosts: h1, h2, h3, w1)"),
                problems(SPEC + "backup:\n  stores:\n    - name: v\n      host: backup1\n      type: sftp\n"));
    }

    @Test
    void everyProblemOfBothFilesIsReportedInOneGo() {
        String inventory = INVENTORY.replace("h2: {ansible_host: 10.77.0.12}", "h2: {ansible_host: 10.77.0.12, ansible_port: ssh}");
        assertEquals(List.of(
                        "hosts.yaml:8:54: error: all.children.etcd.hosts.h2.ansible_port: must be an integer, got string \"ssh\"",
                        "demo.yaml:2:9: error: cluster.name: must be lowercase letters, digits and inner '-', at most 63 characters,"
                                + " like demo or prod-eu1, got \"Demo\"",
                        "demo.yaml:4:12: error: etcd.version: etcd 3.3.1 is not supported: etcdwright needs etcd 3.4 or newer",
                        "demo.yaml:6:11: error: etcd.ports.peer: port 2379 is also the client port; every listener needs a port of its own",
                        "demo.yaml:7:3: error: etcd.prots: unknown field 'prots' (allowed: version, ports, dataDir, settings)"),
                problems(inventory, """
                        cluster:
                          name: Demo
                        etcd:
                          version: 3.3.1
                          ports:
                            peer: 2379
                          prots: {}
                        """));
    }

    @Test
    void anInventoryVariableErrorStillLetsMembersBeChecked() {
        String inventory = INVENTORY.replace("h2: {ansible_host: 10.77.0.12}", "h2: {ansible_host: 10.77.0.12, ansible_become: sudo}");
        assertEquals(List.of(
                        "hosts.yaml:8:56: error: all.children.etcd.hosts.h2.ansible_become: must be true or false, got string \"sudo\" (Ansible also takes yes/no, on/off, 1/0)",
                        "demo.yaml:6:19: error: members.hosts[2]: host 'h4' is not in hosts.yaml (hosts: h1, h2, h3, w1)"),
                problems(inventory, SPEC + "members:\n  hosts: [h1, h2, h4]\n"));
    }

    @Test
    void aBrokenInventoryStillLetsTheSpecBeChecked() {
        assertEquals(List.of(
                        "hosts.yaml:3:10: error: invalid YAML: mapping values are not allowed here",
                        "demo.yaml:4:12: error: etcd.version: must be a version X.Y.Z, like 3.5.16, got \"latest\""),
                problems("all:\n  hosts:\n    h1: a: b\n", SPEC.replace("3.5.16", "latest")));
    }

    @Test
    void aMissingSpecFileIsReportedWithTheInventorysProblems() {
        Path inventory = Fixtures.write(dir, "hosts.yaml", INVENTORY);
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> DesiredStateLoader.load(inventory, dir.resolve("nope.yaml"), SupportFloorRules.RULES));
        assertEquals(List.of("nope.yaml:1:1: error: cannot read: no such file (looked for nope.yaml)"),
                e.problems().stream().map(this::relative).toList());
    }

    @Test
    void theEngineTestResourcesValidate() {
        DesiredStateLoader.load(Fixtures.resource("inventories/testbed.yaml"), Fixtures.resource("specs/three-nodes.yaml"),
                SupportFloorRules.RULES);
    }

    @Test
    void whatTheReleaseMakesOfASettingIsReportedAtItsKey() {
        assertEquals(List.of("demo.yaml:7:5: error: etcd.settings.not-in-this-release-x: is not a setting of etcd 3.5.16"),
                problems(SPEC.replace("  version: 3.5.16\n", "  version: 3.5.16\n  settings:\n    heartbeat-interval: 100\n"
                        + "    not-in-this-release-x: 1\n") + "members:\n  hosts: [h1, h2, h3]\n"));
    }
}
