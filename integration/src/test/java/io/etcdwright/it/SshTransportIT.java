package io.etcdwright.it;

import io.etcdwright.engine.exec.Parallel;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.engine.ssh.SshOptions;
import io.etcdwright.engine.ssh.SshTarget;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SSH transport against real sshd on real test hosts. */
class SshTransportIT {
    @TempDir
    Path tmp;

    @BeforeAll
    static void hosts() {
        Testbed.up(3);
    }

    @AfterAll
    static void cleanUp() {
        Testbed.down();
    }

    static SshTarget target(int host) {
        return new SshTarget("h" + host, Testbed.address(host), 22, "root", Optional.of(Testbed.KEY), false);
    }

    static SshConnections connections(Path knownHosts, boolean acceptNew) {
        return new SshConnections(new SshOptions(knownHosts, acceptNew, Duration.ofSeconds(3), Duration.ofSeconds(30)));
    }

    @Test
    void knownHostKeysConnectAndOneSessionServesEveryCommand() {
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            HostSession s = c.session(target(1));
            // Every exec channel of one connection is a child of the same per-connection sshd.
            String first = s.run(RemoteCommand.script("ps -o ppid= -p $$")).stdout().strip();
            for (int i = 0; i < 5; i++) {
                assertEquals(first, s.run(RemoteCommand.script("ps -o ppid= -p $$")).stdout().strip());
            }
            assertTrue(c.session(target(1)) == s, "the run must reuse the host's session");
            assertEquals("h1", s.run(RemoteCommand.exec("hostname")).stdout().strip());
        }
    }

    @Test
    void anUnknownHostKeyIsRefusedUnlessTrustOnFirstUseIsAsked() throws Exception {
        Path empty = tmp.resolve("known_hosts");
        try (SshConnections c = connections(empty, false)) {
            SshException e = assertThrows(SshException.class, () -> c.session(target(2)));
            assertEquals(SshException.Reason.UNKNOWN_HOST_KEY, e.reason());
            assertTrue(e.getMessage().contains("--accept-new-host-keys"), e.getMessage());
            assertTrue(e.getMessage().contains("SHA256:"), "the message shows the fingerprint to verify");
        }
        try (SshConnections c = connections(empty, true)) {
            assertEquals("h2", c.session(target(2)).run(RemoteCommand.exec("hostname")).stdout().strip());
        }
        String recorded = Files.readString(empty);
        assertTrue(recorded.startsWith(Testbed.address(2) + " ssh-ed25519 "), recorded);
        try (SshConnections c = connections(empty, false)) {
            assertEquals("h2", c.session(target(2)).run(RemoteCommand.exec("hostname")).stdout().strip(), "a recorded key is known from then on");
        }
    }

    @Test
    void aChangedHostKeyIsAlwaysRefused() throws Exception {
        // h3 presented under h1's address: exactly what an impostor looks like.
        String h1Key = Files.readAllLines(Testbed.KNOWN_HOSTS).stream()
                .filter(l -> l.startsWith(Testbed.address(1) + " ")).findFirst().orElseThrow();
        Path lying = tmp.resolve("known_hosts");
        Files.writeString(lying, h1Key.replace(Testbed.address(1), Testbed.address(3)) + "\n");
        for (boolean acceptNew : List.of(false, true)) {
            try (SshConnections c = connections(lying, acceptNew)) {
                SshException e = assertThrows(SshException.class, () -> c.session(target(3)));
                assertEquals(SshException.Reason.CHANGED_HOST_KEY, e.reason());
                assertTrue(e.getMessage().contains("HAS CHANGED"), e.getMessage());
            }
        }
        assertEquals(1, Files.readAllLines(lying).size(), "a changed key is never replaced");
    }

    @Test
    void anUnreachableHostTimesOutWithAReasonAndACommandTimeoutStopsALongCommand() {
        Testbed.run("isolate", "2");
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            SshException e = assertThrows(SshException.class, () -> c.session(target(2)));
            assertTrue(e.reason() == SshException.Reason.TIMEOUT || e.reason() == SshException.Reason.UNREACHABLE, e.getMessage());
            assertTrue(e.getMessage().startsWith("h2: "), e.getMessage());
        } finally {
            Testbed.run("rejoin", "2");
        }
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            HostSession s = c.session(target(1));
            SshException e = assertThrows(SshException.class, () -> s.run(RemoteCommand.exec("sleep", "30"), Duration.ofSeconds(1)));
            assertEquals(SshException.Reason.TIMEOUT, e.reason());
            assertTrue(e.getMessage().contains("did not finish within 1 s"), e.getMessage());
        }
    }

    @Test
    void hostsAreWorkedInParallelUpToForks() {
        List<SshTarget> targets = List.of(target(1), target(2), target(3));
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            // All hosts share this machine's clock, so their timestamps are comparable.
            RemoteCommand cmd = RemoteCommand.script("a=$(date +%s%N); sleep 0.5; b=$(date +%s%N); echo $a $b");
            List<long[]> parallel = Parallel.map(targets, 3, t -> interval(c.session(t).run(cmd)));
            assertTrue(overlapAll(parallel), "with --forks 3 the three commands run at the same time");
            List<long[]> serial = Parallel.map(targets, 1, t -> interval(c.session(t).run(cmd)));
            assertTrue(!overlapAny(serial), "with --forks 1 they run one after another");
        }
    }

    @Test
    void becomeRunsCommandsAsRootThroughSudo() {
        Testbed.ssh(1, "id -u ops >/dev/null 2>&1 || useradd -m -s /bin/sh ops; mkdir -p ~ops/.ssh; "
                + "cp /root/.ssh/authorized_keys ~ops/.ssh/; chown -R ops: ~ops/.ssh; "
                + "echo 'ops ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/ops; chmod 0440 /etc/sudoers.d/ops");
        try (SshConnections plainRun = connections(Testbed.KNOWN_HOSTS, false)) {
            SshTarget plain = new SshTarget("h1", Testbed.address(1), 22, "ops", Optional.of(Testbed.KEY), false);
            assertEquals("ops", plainRun.session(plain).run(RemoteCommand.exec("id", "-un")).stdout().strip());
        }
        // A run of its own, as an operator's next command would be: one session per host and run.
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            SshTarget become = new SshTarget("h1", Testbed.address(1), 22, "ops", Optional.of(Testbed.KEY), true);
            HostSession s = c.session(become);
            assertEquals("root", s.run(RemoteCommand.exec("id", "-un")).stdout().strip());
            s.upload("secret\n".getBytes(StandardCharsets.UTF_8), new RemoteFile("/etc/etcdwright-become-test", "0600", "root", "root"));
            assertEquals("600 root root", Testbed.ssh(1, "stat -c '%a %U %G' /etc/etcdwright-become-test").strip());
        }
    }

    @Test
    void uploadsLandAtomicallyWithModeAndOwnerAndAreVerified() throws Exception {
        Path big = tmp.resolve("big.bin");
        byte[] data = new byte[3 * 1024 * 1024 + 7];
        new java.util.Random(42).nextBytes(data);
        Files.write(big, data);
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            HostSession s = c.session(target(3));
            s.upload(big, new RemoteFile("/srv/upload/big.bin", "0640", "root", "daemon"));
            assertEquals(HostSession.sha256(data) + "  /srv/upload/big.bin",
                    Testbed.ssh(3, "sha256sum /srv/upload/big.bin").strip());
            assertEquals("640 root daemon", Testbed.ssh(3, "stat -c '%a %U %G' /srv/upload/big.bin").strip());
            assertEquals("", Testbed.ssh(3, "ls -A /srv/upload | grep etcdwright-upload || true").strip(),
                    "no temporary file is left behind");
            // A transfer whose bytes do not match the digest is refused and leaves the old file.
            RuntimeException e = assertThrows(RuntimeException.class, () -> s.upload(
                    new java.io.ByteArrayInputStream("tampered".getBytes()), HostSession.sha256("original".getBytes()),
                    new RemoteFile("/srv/upload/big.bin", "0600", "root", "root")));
            assertTrue(e.getMessage().contains("arrived damaged"), e.getMessage());
            assertEquals(HostSession.sha256(data) + "  /srv/upload/big.bin",
                    Testbed.ssh(3, "sha256sum /srv/upload/big.bin").strip());
        }
    }

    @Test
    void commandsReportExitCodesAndBothStreams() {
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            CommandResult r = c.session(target(2)).run(RemoteCommand.script("echo out; echo err >&2; exit 7"));
            assertEquals(7, r.exitCode());
            assertEquals("out\n", r.stdout());
            assertEquals("err\n", r.stderr());
            CommandResult script = c.session(target(2)).run(RemoteCommand.script("x=$1\nif [ \"$x\" = 'a b;c' ]; then echo 'multi-line ok'; fi\n", "a b;c"));
            assertEquals("multi-line ok\n", script.stdout());
            assertNotEquals(0, c.session(target(2)).run(RemoteCommand.exec("false")).exitCode());
        }
    }

    @Test
    void rsaKeysAuthenticateWithRsaSha2Signatures() throws Exception {
        Path rsa = tmp.resolve("id_rsa");
        assertEquals(0, Testbed.exec(List.of("ssh-keygen", "-q", "-t", "rsa", "-b", "3072", "-N", "", "-f", rsa.toString()))
                .exitCode());
        String pub = Files.readString(tmp.resolve("id_rsa.pub")).strip();
        Testbed.ssh(2, "grep -qF '" + pub + "' /root/.ssh/authorized_keys || echo '" + pub + "' >> /root/.ssh/authorized_keys");
        // OpenSSH 9 refuses SHA-1 RSA signatures, so this only works with rsa-sha2-256/512.
        assertTrue(Testbed.ssh(2, "sshd -T | grep -i pubkeyacceptedalgorithms").contains("rsa-sha2"));
        try (SshConnections c = connections(Testbed.KNOWN_HOSTS, false)) {
            SshTarget withRsa = new SshTarget("h2", Testbed.address(2), 22, "root", Optional.of(rsa), false);
            assertEquals("h2", c.session(withRsa).run(RemoteCommand.exec("hostname")).stdout().strip());
        }
    }

    @Test
    void theSshAgentIsUsedWhenNoKeyFileIsGiven() throws Exception {
        Path sock = tmp.resolve("agent.sock");
        Testbed.Result agent = Testbed.exec(List.of("ssh-agent", "-a", sock.toString()));
        assertEquals(0, agent.exitCode(), agent.stderr());
        String pid = agent.stdout().replaceAll("(?s).*SSH_AGENT_PID=(\\d+).*", "$1");
        try {
            ProcessBuilder add = new ProcessBuilder("ssh-add", Testbed.KEY.toString());
            add.environment().put("SSH_AUTH_SOCK", sock.toString());
            assertEquals(0, add.start().waitFor());
            // An inventory without ansible_ssh_private_key_file, run by a user with no keys of
            // their own: only the agent can authenticate.
            Path inv = tmp.resolve("hosts.yaml");
            Files.writeString(inv, "all:\n  vars:\n    etcdwright_known_hosts_file: " + Testbed.KNOWN_HOSTS + "\n"
                    + "  hosts:\n    h1:\n      ansible_host: " + Testbed.address(1) + "\n");
            Path emptyHome = Files.createDirectories(tmp.resolve("home"));
            ProcessBuilder facts = new ProcessBuilder(Testbed.ROOT.resolve("bin/etcdwright").toString(), "facts", "-i",
                    inv.toString()).redirectErrorStream(true);
            facts.environment().put("SSH_AUTH_SOCK", sock.toString());
            facts.environment().put("ETCDWRIGHT_JAVA_OPTS", "-Duser.home=" + emptyHome);
            Process p = facts.start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains("h1 (" + Testbed.address(1) + ")  Debian"), out);
        } finally {
            new ProcessBuilder("kill", pid).start().waitFor();
        }
    }

    private static long[] interval(CommandResult r) {
        String[] parts = r.stdout().strip().split(" ");
        return new long[]{Long.parseLong(parts[0]), Long.parseLong(parts[1])};
    }

    private static boolean overlapAll(List<long[]> intervals) {
        long latestStart = intervals.stream().mapToLong(i -> i[0]).max().orElseThrow();
        long earliestEnd = intervals.stream().mapToLong(i -> i[1]).min().orElseThrow();
        return latestStart < earliestEnd;
    }

    private static boolean overlapAny(List<long[]> intervals) {
        for (int i = 0; i < intervals.size(); i++) {
            for (int j = i + 1; j < intervals.size(); j++) {
                if (intervals.get(i)[0] < intervals.get(j)[1] && intervals.get(j)[0] < intervals.get(i)[1]) {
                    return true;
                }
            }
        }
        return false;
    }
}
