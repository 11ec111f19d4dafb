package io.etcdwright.engine.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every rule of a value kind, with values it accepts and values it refuses (and why). */
class ValueKindsTest {

    private static final Set<String> WEB = new LinkedHashSet<>(List.of("https", "http"));
    private static final Set<String> PLACEHOLDERS = Set.of("version", "arch");

    @ParameterizedTest
    @ValueSource(strings = {"10.77.0.11", "127.0.0.1", "0.1.2.3", "255.255.255.254", "::1", "fd00::1", "2001:db8::8a2e:370:7334",
            "2001:0db8:0000:0000:0000:ff00:0042:8329", "::ffff:10.0.0.1", "1::", "etcd1", "etcd-1.example.com", "H1",
            "a.b-c.d", "xn--bcher-kva.example", "1host.example", "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.example"})
    void addressesThatAreIpLiteralsOrDnsNames(String value) {
        assertEquals(Optional.empty(), Addresses.problem(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10.0.0.1;reboot", "10.0.0.1 && id", "$(id)", "`id`", "a|b", "h1\nh2", "h\u0000", "300.1.1.1",
            "1.2.3", "1.2.3.4.5", "010.0.0.1", "1.2.3.-1", "256.0.0.1", "123", "fe80::1%eth0", "[::1]", "1:2:3:4:5:6:7:8:9",
            "1::2::3", "12345::1", "::ffff:300.0.0.1", "g::1", "10.0.0.1:2379", "https://10.0.0.1", "host/path", "-host",
            "host-", "a..b", ".a", "a.", "under_score", "ä.example", "0.0.0.0", "::", "255.255.255.255", "224.0.0.1",
            "ff02::1", "host name"})
    void refusedAddresses(String value) {
        Optional<String> problem = Addresses.problem(value);
        assertTrue(problem.isPresent(), value);
        assertTrue(problem.get().startsWith("must be " + Addresses.RULE + "; got " + Quoted.of(value) + ": "), problem.get());
    }

    @Test
    void addressProblemsSayWhatIsWrong() {
        assertEquals(Optional.of("must be " + Addresses.RULE + "; got \"300.1.1.1\": 300 is more than 255"),
                Addresses.problem("300.1.1.1"));
        assertEquals(Optional.of("must be " + Addresses.RULE + "; got \"1.2.3\": an IPv4 address has four numbers separated"
                + " by dots, this has 3"), Addresses.problem("1.2.3"));
        assertEquals(Optional.of("must be " + Addresses.RULE + "; got \"10.0.0.1;reboot\": ';' is not allowed"),
                Addresses.problem("10.0.0.1;reboot"));
        assertEquals(Optional.of("must be " + Addresses.RULE + "; got \"fe80::1%eth0\": an IPv6 zone id (%...) only means"
                + " something on one host; write the address alone"), Addresses.problem("fe80::1%eth0"));
        assertEquals(Optional.of("must be " + Addresses.RULE + "; got \"h1\\u0000\": it contains a control character at position 3"),
                Addresses.problem("h1\u0000"));
    }

    @Test
    void ipLiteralsAreRecognized() {
        assertTrue(Addresses.isIpLiteral("10.0.0.1"));
        assertTrue(Addresses.isIpLiteral("fd00::1"));
        assertFalse(Addresses.isIpLiteral("1.2.3"));
        assertFalse(Addresses.isIpLiteral("etcd1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h1", "etcd-1", "ETCD-1", "node1.example.com", "10.0.0.1", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void memberNames(String value) {
        assertTrue(Names.isMemberName(value), value);
        assertEquals(Optional.empty(), Names.memberNameProblem(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "../x", "..", ".", ".hidden", "a/b", "a,b", "a=b", "a b", "a%20b", "a+b", "a;b", "$(id)", "-a",
            "a-", "fd00::1", "h1\n", "é", "etcd_1", "a..b", "300.1.1.1", "1.2.3"})
    void refusedMemberNames(String value) {
        assertEquals(Optional.of("must be a member name: " + Names.MEMBER_NAME_RULE + " (it names the member's certificate"
                + " directory and its entry in etcd's initial-cluster); got " + Quoted.of(value)), Names.memberNameProblem(value));
        assertFalse(Names.isMemberName("a".repeat(64)));
    }

    @Test
    void userNames() {
        assertEquals(Optional.empty(), Names.userNameProblem("root"));
        assertEquals(Optional.empty(), Names.userNameProblem("ci_deploy.bot-2"));
        for (String bad : List.of("", "-oProxyCommand=x", ".x", "a b", "root;id", "a".repeat(33), "r\u0000")) {
            assertEquals(Optional.of("must be a user name: " + Names.USER_NAME_RULE + "; got " + Quoted.of(bad)),
                    Names.userNameProblem(bad), bad);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/var/lib/etcd", "/data/etcd", "/srv/etcd", "/var/lib/etcd/member-1", "/home/etcd/data", "/tmp/etcd",
            "/mnt/ssd/etcd", "/opt/etcd-data", "/root/etcd", "/var/backups/etcd"})
    void hostDirectoriesOfTheirOwn(String value) {
        assertEquals(Optional.empty(), HostPaths.problem(value, "/var/lib/etcd"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt",
            "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var", "/var/lib", "/var/log", "/var/tmp",
            "/etc/etcd", "/opt/etcd", "/usr/local/bin", "/usr/local", "/var/backups"})
    void systemDirectoriesAreRefused(String value) {
        assertEquals(Optional.of("must be an absolute, normalized path of a directory of its own, like /var/lib/etcd; got "
                + Quoted.of(value) + ": " + value + " is a system directory, and destroy empties this directory"),
                HostPaths.problem(value, "/var/lib/etcd"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/usr/bin", "/usr/share/etcd", "/proc/1", "/sys/fs", "/dev/shm/etcd", "/boot/etcd", "/bin/x", "/sbin/x",
            "/lib/etcd", "/lib64/etcd", "/root/.ssh", "/root/.ssh/etcd", "/etc/ssh", "/etc/etcd/pki", "/etc/etcd-data", "/run/etcd",
            "/var/run/etcd", "/opt/etcd/v3.5.16", "/var/lib/dpkg", "/home/alice/.ssh", "/home/alice"})
    void pathsInsideSystemTreesAreRefused(String value) {
        Optional<String> problem = HostPaths.problem(value, "/var/lib/etcd");
        assertTrue(problem.isPresent(), value);
        assertTrue(problem.get().startsWith("must be an absolute, normalized path of a directory of its own, like /var/lib/etcd;"
                + " got " + Quoted.of(value) + ": "), problem.get());
    }

    @Test
    void hostPathsMustBeAbsoluteAndNormalized() {
        String head = "must be an absolute, normalized path of a directory of its own, like /var/lib/etcd; got ";
        assertEquals(Optional.of(head + "\"var/lib/etcd\": it is not absolute (it must start with '/')"),
                HostPaths.problem("var/lib/etcd", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/data/etcd/\": remove the trailing '/'"), HostPaths.problem("/data/etcd/", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/data//etcd\": it contains '//'"), HostPaths.problem("/data//etcd", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/data/./etcd\": it contains '.'; write the directory it means"),
                HostPaths.problem("/data/./etcd", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/data/x/../etcd\": it contains '..'; write the directory it means"),
                HostPaths.problem("/data/x/../etcd", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/data/etcd \": it contains a space at position 11 (is it a typo?)"),
                HostPaths.problem("/data/etcd ", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/data/\\netcd\": it contains a control character at position 7"),
                HostPaths.problem("/data/\netcd", "/var/lib/etcd"));
        // What a path means counts first: "/var/lib/etcd/../../../usr" is /usr.
        assertEquals(Optional.of(head + "\"/var/lib/etcd/../../../usr\": /usr is a system directory, and destroy empties this"
                + " directory"), HostPaths.problem("/var/lib/etcd/../../../usr", "/var/lib/etcd"));
        assertEquals(Optional.of(head + "\"/var/lib/\": /var/lib is a system directory, and destroy empties this directory"),
                HostPaths.problem("/var/lib/", "/var/lib/etcd"));
    }

    @Test
    void pathsUnderEtcSayWhy() {
        assertEquals(Optional.of("must be an absolute, normalized path of a directory of its own, like /var/lib/etcd; got"
                + " \"/etc/etcd/pki\": nothing of etcdwright's may live under the system tree /etc (it is the host's configuration,"
                + " etcdwright's own /etc/etcd/pki among it)"), HostPaths.problem("/etc/etcd/pki", "/var/lib/etcd"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://github.com/etcd-io/etcd/releases/download/v{version}/etcd-v{version}-linux-{arch}.tar.gz",
            "http://10.77.0.1:8799/v{version}/etcd-v{version}-linux-{arch}.tar.gz", "https://[fd00::1]:8443/etcd/{version}.tgz",
            "https://mirror.example/etcd?version={version}&arch={arch}", "https://mirror.example/a%20b/{version}"})
    void urls(String value) {
        assertEquals(Optional.empty(), UrlTemplates.problem(value, WEB, PLACEHOLDERS));
    }

    @Test
    void refusedUrls() {
        String head = "must be a URL starting with https:// or http://; got ";
        assertEquals(Optional.of(head + "\"ftp://mirror.example/{version}\": the scheme ftp is not allowed here"),
                UrlTemplates.problem("ftp://mirror.example/{version}", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"file:///srv/etcd-{version}.tgz\": the scheme file is not allowed here"),
                UrlTemplates.problem("file:///srv/etcd-{version}.tgz", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https://user:secret@mirror.example/{version}\": it carries a user or password, which"
                + " would be printed in plans and logs"), UrlTemplates.problem("https://user:secret@mirror.example/{version}", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https:///etcd/{version}\": it has no host"),
                UrlTemplates.problem("https:///etcd/{version}", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https://mirror.example/$(reboot)/{version}\": '$' is not allowed in a URL here"
                + " (percent-encode it if it is really part of the URL)"),
                UrlTemplates.problem("https://mirror.example/$(reboot)/{version}", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https://mirror.example/a b\": a space is not allowed in a URL here"
                + " (percent-encode it if it is really part of the URL)"), UrlTemplates.problem("https://mirror.example/a b", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https://mirror.example/{vers}\": unknown placeholder {vers} (known: {arch}, {version})"),
                UrlTemplates.problem("https://mirror.example/{vers}", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https://mirror.example:99999/\": the port must be 1 to 65535"),
                UrlTemplates.problem("https://mirror.example:99999/", WEB, PLACEHOLDERS));
        assertEquals(Optional.of(head + "\"https://300.1.1.1/\": the host 300.1.1.1 is not valid: 300 is more than 255"),
                UrlTemplates.problem("https://300.1.1.1/", WEB, PLACEHOLDERS));
        for (String bad : List.of("mirror.example/etcd", "https://mirror.example/'x'", "https://mirror.example/\"x\"",
                "https://mirror.example/`id`", "https://mirror.example/\\x", "https://mirror.example/\n", "https://mirror.example/\u0000")) {
            assertTrue(UrlTemplates.problem(bad, WEB, PLACEHOLDERS).isPresent(), bad);
        }
        assertEquals(Optional.empty(), UrlTemplates.problem("file:///srv/etcd-{version}.tgz", Set.of("file"), PLACEHOLDERS));
        assertTrue(UrlTemplates.problem("file://host/srv/etcd.tgz", Set.of("file"), PLACEHOLDERS).isPresent());
    }

    @Test
    void workstationFilesMustExistAndBeReadable(@TempDir Path dir) throws Exception {
        Path key = Files.writeString(dir.resolve("id_ed25519"), "key");
        assertEquals(Optional.empty(), WorkstationFiles.problem(key, "SSH private key", key.toString()));
        assertEquals(Optional.of("SSH private key \"nope\" does not exist (looked for " + dir.resolve("nope") + ")"),
                WorkstationFiles.problem(dir.resolve("nope"), "SSH private key", "nope"));
        assertEquals(Optional.of("SSH private key " + Quoted.of(dir.toString()) + " is a directory, not a file"),
                WorkstationFiles.problem(dir, "SSH private key", dir.toString()));
        assertEquals(Optional.of("known_hosts file \"/dev/null\" is not a regular file"),
                WorkstationFiles.problem(Path.of("/dev/null"), "known_hosts file", "/dev/null"));
    }

    @Test
    void fieldPathsShowControlCharactersInKeysEscaped() {
        assertEquals("all.hosts.h1\\u202e.x", FieldPath.of("all", "hosts", "h1\u202e", "x").toString());
        assertEquals("/all/hosts/h1\u202e", FieldPath.of("all", "hosts", "h1\u202e").pointer());
    }

    @Test
    void quotedValuesShowWhatIsInvisibleAndStayShort() {
        assertEquals("\"a\\u0000b\\n\\\"c\\\"\"", Quoted.of("a\u0000b\n\"c\""));
        assertEquals("\"" + "x".repeat(80) + "\"... (100000 characters)", Quoted.of("x".repeat(100_000)));
        assertEquals("\"\\u202e\"", Quoted.of("\u202e"));
    }
}
