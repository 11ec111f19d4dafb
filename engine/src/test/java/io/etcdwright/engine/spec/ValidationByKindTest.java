package io.etcdwright.engine.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The holes of issue 7, closed: each hostile or careless value is refused at its line and
 * column, naming the field, the rule and the value, before any host is contacted.
 */
class ValidationByKindTest {

    private static final String INVENTORY = """
            all:
              children:
                etcd:
                  hosts:
                    h1: {ansible_host: 10.77.0.11}
                    h2: {ansible_host: 10.77.0.12}
                    h3: {ansible_host: 10.77.0.13}
            """;
    private static final String SPEC = """
            cluster:
              name: demo
            etcd:
              version: 3.5.16
            """;
    private static final String ADDRESS_RULE = "must be an IPv4 or IPv6 address, or a DNS name (RFC 1123: letters, digits and"
            + " '-' in dot-separated labels of 1 to 63 characters, 253 in all)";
    private static final String DIR_RULE = "must be an absolute, normalized path of a directory of its own, like /var/lib/etcd; got ";

    @TempDir
    Path dir;

    private List<String> problems(String inventory, String spec) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> DesiredStateLoader.load(
                Fixtures.write(dir, "hosts.yaml", inventory), Fixtures.write(dir, "demo.yaml", spec), SupportFloorRules.RULES));
        return e.errors().stream().map(Problem::toString).map(line -> line.replace(dir + "/", "")).toList();
    }

    private List<String> specProblems(String spec) {
        return problems(INVENTORY, spec);
    }

    private List<String> inventoryProblems(String inventory) {
        return problems(inventory, SPEC);
    }

    @Test
    void anAddressWithShellCharactersIsRefusedWhereItIsWritten() {
        assertEquals(List.of("hosts.yaml:5:54: error: all.children.etcd.hosts.h1.etcd_address: must be a bare IP address or DNS"
                        + " name, without scheme, port or path (etcdwright adds those), like 10.77.0.11, got \"10.0.0.1;reboot\""),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, etcd_address: \"10.0.0.1;reboot\"}")));
        assertEquals(List.of("hosts.yaml:5:54: error: all.children.etcd.hosts.h1.etcd_address: must be a bare IP address or DNS"
                        + " name, without scheme, port or path (etcdwright adds those), like 10.77.0.11, got \"$(reboot)\""),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, etcd_address: \"$(reboot)\"}")));
    }

    @Test
    void invalidIpLiteralsAreRefusedWithTheReason() {
        assertEquals(List.of("hosts.yaml:5:28: error: all.children.etcd.hosts.h1.ansible_host: " + ADDRESS_RULE
                        + "; got \"300.1.1.1\": 300 is more than 255"),
                inventoryProblems(INVENTORY.replace("10.77.0.11", "300.1.1.1")));
        assertEquals(List.of("hosts.yaml:5:28: error: all.children.etcd.hosts.h1.ansible_host: " + ADDRESS_RULE
                        + "; got \"1.2.3\": an IPv4 address has four numbers separated by dots, this has 3"),
                inventoryProblems(INVENTORY.replace("10.77.0.11", "1.2.3")));
        // The schema refuses characters no address has, with its own words; the value check says what else is wrong.
        assertEquals(List.of("hosts.yaml:5:28: error: all.children.etcd.hosts.h1.ansible_host: must be an IP address or a DNS"
                        + " name (letters, digits, '-', '.' and ':' only), like 10.77.0.11, got \"fe80::1%eth0\""),
                inventoryProblems(INVENTORY.replace("10.77.0.11", "\"fe80::1%eth0\"")));
    }

    @Test
    void memberNamesCannotLeaveThePkiDirectoryOrSplitInitialCluster() {
        String rule = "must be a member name: at most 63 characters: letters, digits and '-' in dot-separated labels that start"
                + " and end with a letter or digit (a DNS name), or an IPv4 address";
        assertEquals(List.of("hosts.yaml:5:58: error: all.children.etcd.hosts.h1.etcd_member_name: " + rule + ", got \"../../x\""),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, etcd_member_name: ../../x}")));
        assertEquals(List.of("hosts.yaml:5:58: error: all.children.etcd.hosts.h1.etcd_member_name: " + rule + ", got \"a,b=c\""),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, etcd_member_name: \"a,b=c\"}")));
        assertEquals(List.of("hosts.yaml:5:58: error: all.children.etcd.hosts.h1.etcd_member_name: " + rule + ", got \"h1\\n\""),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, etcd_member_name: \"h1\\n\"}")));
    }

    @Test
    void inventoryHostNamesAreAddresses() {
        assertEquals(List.of("hosts.yaml:5:9: error: all.children.etcd.hosts.a,b: an inventory host name " + ADDRESS_RULE
                        + "; got \"a,b\": ',' is not allowed (it is the SSH address when ansible_host is not set)"),
                inventoryProblems(INVENTORY.replace("h1:", "\"a,b\":")).stream().filter(p -> p.startsWith("hosts.yaml")).toList());
        assertEquals(List.of("hosts.yaml:5:9: error: all.children.etcd.hosts.../x: an inventory host name " + ADDRESS_RULE
                        + "; got \"../x\": write the bare address, without scheme or path (etcdwright adds those) (it is the SSH address"
                        + " when ansible_host is not set)"),
                inventoryProblems(INVENTORY.replace("h1:", "../x:")).stream().filter(p -> p.startsWith("hosts.yaml")).toList());
    }

    @Test
    void aMemberNamedAfterAnIpv6HostNeedsAMemberName() {
        assertEquals(List.of("demo.yaml:1:1: error: members: member fd00::1 (at hosts.yaml:5:9) is named after its inventory host,"
                        + " and must be a member name: at most 63 characters: letters, digits and '-' in dot-separated labels"
                        + " that start and end with a letter or digit (a DNS name), or an IPv4 address (it names the member's certificate directory and its entry in etcd's initial-cluster); got"
                        + " \"fd00::1\"; set etcd_member_name on the host"),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "\"fd00::1\": {}")));
    }

    @Test
    void addressesAreComparedInCanonicalForm() {
        assertEquals(List.of("demo.yaml:1:1: error: members: members h1 and h2 both have etcd address FD00:0::1 (h2 is at"
                        + " hosts.yaml:6:9); give each its own etcd_address (or ansible_host) in the inventory"),
                inventoryProblems(INVENTORY.replace("h1: {ansible_host: 10.77.0.11}", "h1: {ansible_host: 10.77.0.11, etcd_address: \"fd00::1\"}")
                        .replace("h2: {ansible_host: 10.77.0.12}", "h2: {ansible_host: 10.77.0.12, etcd_address: \"FD00:0::1\"}")));
    }

    @Test
    void filesTheRunNeedsMustExistAtTheLineThatNamesThem() {
        assertEquals(List.of("hosts.yaml:3:35: error: all.vars.ansible_ssh_private_key_file: SSH private key \"keys/id_ed25519\""
                        + " does not exist (looked for keys/id_ed25519)",
                        "hosts.yaml:4:34: error: all.vars.etcdwright_known_hosts_file: known_hosts file \"known_hosts\" does not"
                                + " exist (looked for known_hosts); to trust the hosts' keys on first use, create it empty (touch it) and run"
                                + " once with --accept-new-host-keys"),
                inventoryProblems("all:\n  vars:\n    ansible_ssh_private_key_file: keys/id_ed25519\n"
                        + "    etcdwright_known_hosts_file: known_hosts\n" + INVENTORY.substring("all:\n".length())));
        Fixtures.write(dir, "keys/id_ed25519", "placeholder");
        Fixtures.write(dir, "known_hosts", "");
        DesiredStateLoader.load(Fixtures.write(dir, "hosts.yaml", "all:\n  vars:\n    ansible_ssh_private_key_file: keys/id_ed25519\n"
                + "    etcdwright_known_hosts_file: known_hosts\n" + INVENTORY.substring("all:\n".length())),
                Fixtures.write(dir, "demo.yaml", SPEC), SupportFloorRules.RULES);
    }

    @Test
    void aBackupKeyFileMustExist() {
        assertEquals(List.of("demo.yaml:8:18: error: backup.encryption.recipients[0]: backup recipient's certificate or public key \"backup.crt\" does not exist"
                        + " (looked for backup.crt)"),
                specProblems(SPEC + "backup:\n  stores: [{name: l, type: directory}]\n  encryption:\n    recipients: [backup.crt]\n"));
    }

    @Test
    void dataDirectoriesThatDestroyWouldEmptyAreRefused() {
        assertEquals(List.of("demo.yaml:5:12: error: etcd.dataDir: " + DIR_RULE + "\"/usr/bin\": nothing of etcdwright's may live under the"
                + " system tree /usr (it belongs to the system or its package manager)"), specProblems(SPEC + "  dataDir: /usr/bin\n"));
        assertEquals(List.of("demo.yaml:5:12: error: etcd.dataDir: " + DIR_RULE + "\"/root/.ssh\": nothing of etcdwright's may live under the"
                + " system tree /root/.ssh (it holds SSH keys)"), specProblems(SPEC + "  dataDir: /root/.ssh\n"));
        assertEquals(List.of("demo.yaml:5:12: error: etcd.dataDir: " + DIR_RULE + "\"/etc/ssh\": nothing of etcdwright's may live under the"
                + " system tree /etc (it is the host's configuration, etcdwright's own /etc/etcd/pki among it)"),
                specProblems(SPEC + "  dataDir: /etc/ssh\n"));
        assertEquals(List.of("demo.yaml:9:13: error: backup.stores[0].path: must be an absolute, normalized path of a directory of its"
                + " own, like /var/backups/etcd; got \"/var\": /var is a system directory, and destroy empties this directory"),
                specProblems(SPEC + "backup:\n  stores:\n    - name: l\n      type: directory\n      path: /var\n"));
    }

    @Test
    void certificateValidityStaysWithinBounds() {
        assertEquals(List.of("demo.yaml:7:19: error: tls.pki.validityDays: must be between 1 and 3650 days, got 4000"),
                specProblems(SPEC + "tls:\n  pki:\n    validityDays: 4000\n"));
        assertEquals(List.of("demo.yaml:7:21: error: tls.pki.caValidityDays: must be between 1 and 36500 days, got 3000000"),
                specProblems(SPEC + "tls:\n  pki:\n    caValidityDays: 3000000\n"));
    }

    @Test
    void caGenerationCountsGeneratedCasOnly() {
        assertEquals(List.of("demo.yaml:7:19: error: tls.pki.caGeneration: must be at least 1"),
                specProblems(SPEC + "tls:\n  pki:\n    caGeneration: 0\n").stream()
                        .map(p -> p.replaceAll(": must be .*", ": must be at least 1")).toList());
        List<String> withOwnCa = specProblems(SPEC + "tls:\n  pki:\n    ca: {cert: my-ca.crt, key: my-ca.key}\n    caGeneration: 2\n");
        assertTrue(withOwnCa.contains("demo.yaml:8:19: error: tls.pki.caGeneration: counts the CAs etcdwright generates, but"
                + " tls.pki.ca brings your own: to rotate your CA, point tls.pki.ca at the new certificate and key (see"
                + " docs/certificates.md)"), withOwnCa.toString());
    }

    @Test
    void extraSansAreNamesOrAddresses() {
        assertEquals(List.of("demo.yaml:7:17: error: tls.pki.extraSans[0]: " + ADDRESS_RULE + "; got \"300.1.1.1\": 300 is more"
                + " than 255 (it goes into every server certificate)"), specProblems(SPEC + "tls:\n  pki:\n    extraSans: [300.1.1.1]\n"));
    }

    @Test
    void managedSettingsAreRefusedNotMerged() {
        assertEquals(List.of(
                "demo.yaml:6:5: error: etcd.settings.strict-reconfig-check: etcdwright manages this setting: etcd always refuses"
                        + " membership changes that would lose quorum; this safety check cannot be turned off",
                "demo.yaml:7:5: error: etcd.settings.discovery-srv: etcdwright manages this setting: it builds the initial cluster"
                        + " from the members (with a token unique to each bootstrap); choose them with members.group or members.hosts",
                "demo.yaml:8:5: error: etcd.settings.force-new-cluster: etcdwright refuses this setting: it turns the member into a"
                        + " new one-member cluster every time it starts (a one-off recovery flag, never a desired state)",
                "demo.yaml:9:5: error: etcd.settings.peer-auto-tls: etcdwright manages this setting: peers and clients always use"
                        + " mutual TLS with the certificates it issues and installs; configure them through tls.pki",
                "demo.yaml:10:5: error: etcd.settings.enable-grpc-gateway: etcdwright manages this setting: status, the health"
                        + " checks and the member facts ask etcd through its gRPC gateway, so it stays on (etcdwright turns it on"
                        + " where a release needs telling, as 3.4 does)"),
                specProblems(SPEC + """
                          settings:
                            strict-reconfig-check: false
                            discovery-srv: example.com
                            force-new-cluster: true
                            peer-auto-tls: true
                            enable-grpc-gateway: false
                            quota-backend-bytes: 8589934592
                        """));
    }

    @Test
    void wellKnownSettingsHaveTheirTypes() {
        assertEquals(List.of(
                "demo.yaml:6:21: error: etcd.settings.snapshot-count: must be a whole number of at least 1, got string \"many\"",
                "demo.yaml:8:23: error: etcd.settings.election-timeout: must be at least 5 times heartbeat-interval (100 ms), or etcd"
                        + " refuses to start; got 300",
                "demo.yaml:9:27: error: etcd.settings.auto-compaction-mode: must be one of periodic, revision, got string \"daily\"",
                "demo.yaml:10:5: error: etcd.settings.Log_Level: is not an etcd setting: etcd's config keys are lower-case words"
                        + " joined by '-', like heartbeat-interval",
                "demo.yaml:11:11: error: etcd.settings.cors: must be a value or a list of values, not a mapping (the settings that"
                        + " take mappings are the TLS ones etcdwright manages)"),
                specProblems(SPEC + """
                          settings:
                            snapshot-count: many
                            heartbeat-interval: 100
                            election-timeout: 300
                            auto-compaction-mode: daily
                            Log_Level: debug
                            cors: {a: b}
                        """));
    }

    @Test
    void urlsAreParsedAndCarryNoSecrets() {
        assertEquals(List.of("demo.yaml:6:8: error: artifacts.url: must be a URL starting with https://, http:// or file://; got"
                + " \"https://user:pw@mirror.example/{version}.tgz\": it carries a user or password, which would be printed in plans"
                + " and logs"), specProblems(SPEC + "artifacts:\n  url: https://user:pw@mirror.example/{version}.tgz\n"));
        assertEquals(List.of("demo.yaml:7:8: error: artifacts.url: must be a URL starting with https:// or http://; got"
                + " \"file:///srv/etcd-{version}.tgz\": the scheme file is not allowed here"),
                specProblems(SPEC + "artifacts:\n  source: fetch\n  url: file:///srv/etcd-{version}.tgz\n"));
    }

    @Test
    void controlCharactersAreRefusedInEverySpecValue() {
        assertEquals(List.of("demo.yaml:6:10: error: members.group: contains a control character (\"\\n\" at position 5); got"
                + " \"etcd\\n\""), specProblems(SPEC + "members:\n  group: \"etcd\\n\"\n"));
        assertEquals(List.of("demo.yaml:6:19: error: etcd.settings.log-outputs[0]: contains a control character (\"\\u001b\" at"
                + " position 1); got \"\\u001b[2Jstderr\""), specProblems(SPEC + "  settings:\n    log-outputs: [\"\\e[2Jstderr\"]\n"));
        assertEquals(List.of("demo.yaml:8:18: error: backup.encryption.recipients[0]: contains a control character (\"\\u001b\" at position 5);"
                + " got \"keys\\u001b.crt\""), specProblems(SPEC + "backup:\n  stores: [{name: s, type: s3, bucket: b1x}]\n  encryption:\n    recipients: [\"keys\\e.crt\"]\n"));
    }

    @Test
    void everyProblemOfBothFilesIsReportedAtOnce() {
        assertEquals(List.of(
                        "hosts.yaml:5:28: error: all.children.etcd.hosts.h1.ansible_host: " + ADDRESS_RULE
                                + "; got \"300.1.1.1\": 300 is more than 255",
                        "demo.yaml:5:12: error: etcd.dataDir: " + DIR_RULE + "\"/\": / is a system directory, and destroy empties"
                                + " this directory",
                        "demo.yaml:7:5: error: etcd.settings.strict-reconfig-check: etcdwright manages this setting: etcd always"
                                + " refuses membership changes that would lose quorum; this safety check cannot be turned off"),
                problems(INVENTORY.replace("10.77.0.11", "300.1.1.1"),
                        SPEC + "  dataDir: /\n  settings:\n    strict-reconfig-check: false\n"));
    }
}
