package io.etcdwright.modules.config;

import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.LocalHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostSetupTest {
    @Test
    void aPreparedHostHasNoDifferences() {
        HostSetupFacts facts = HostSetupFacts.probe(EtcdLayout.DEFAULT).parse(
                "user=1\ndir=/etc/etcd 755 root root\ndir=/etc/etcd/pki 750 root etcd\ndir=/var/lib/etcd 700 etcd etcd\n");
        assertTrue(HostSetup.differences(facts, EtcdLayout.DEFAULT).isEmpty());
    }

    @Test
    void explainsEveryDifference() {
        HostSetupFacts facts = HostSetupFacts.probe(EtcdLayout.DEFAULT).parse(
                "dir=/etc/etcd 755 root root\ndir=/var/lib/etcd 755 root root\n");
        assertEquals(List.of("user etcd missing", "/etc/etcd/pki missing", "/var/lib/etcd is 755 root root, want 700 etcd etcd"),
                HostSetup.differences(facts, EtcdLayout.DEFAULT));
        assertEquals(Map.of("/etc/etcd", "755 root root", "/var/lib/etcd", "755 root root"), facts.dirs());
    }

    @Test
    void aDataDirWithFilesOfAnotherOwnerIsADifferenceOtherDirectoriesAreNot() {
        // An adopted member's data, written by an etcd that ran as root: etcd running as etcd could not open it.
        HostSetupFacts facts = HostSetupFacts.probe(EtcdLayout.DEFAULT).parse("user=1\ndir=/etc/etcd 755 root root\n"
                + "mixed=/etc/etcd\ndir=/etc/etcd/pki 750 root etcd\ndir=/var/lib/etcd 700 etcd etcd\nmixed=/var/lib/etcd\n");
        assertEquals(List.of("/var/lib/etcd holds files not owned by etcd (etcd ran as another user before): ownership given to"
                + " etcd, contents untouched"), HostSetup.differences(facts, EtcdLayout.DEFAULT));
        assertEquals(java.util.Set.of("/etc/etcd", "/var/lib/etcd"), facts.mixedOwners());
    }

    @Test
    void theProbeReportsADirectoryHoldingAnotherOwnersFile(@TempDir Path dir) throws Exception {
        Path data = Files.createDirectories(dir.resolve("data/member"));
        Probe<HostSetupFacts> probe = HostSetupFacts.probe(new EtcdLayout(dir.resolve("data").toString(), 2379, 2380));
        LocalHost host = new LocalHost(dir);
        LocalHost.Run run = host.run(new RemoteCommand.Script(probe.script(), probe.arguments()), new byte[0], false);
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(probe.parse(run.stdout()).mixedOwners().isEmpty(), run.stdout());
        if (System.getProperty("user.name").equals("root")) {
            new ProcessBuilder("chown", "nobody", data.toString()).start().waitFor();
            run = host.run(new RemoteCommand.Script(probe.script(), probe.arguments()), new byte[0], false);
            assertEquals(java.util.Set.of(dir.resolve("data").toString()), probe.parse(run.stdout()).mixedOwners(), run.stdout());
        }
    }

    @Test
    void theSetupScriptIsValidShell() throws Exception {
        RemoteCommand.Script c = (RemoteCommand.Script) HostSetup.command(EtcdLayout.DEFAULT);
        Process p = new ProcessBuilder("sh", "-n").start();
        p.getOutputStream().write(c.code().getBytes());
        p.getOutputStream().close();
        assertEquals(0, p.waitFor());
    }

    @Test
    void theDataDirReachesTheSetupScriptAndTheProbeAsOneLiteralArgument(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        RemoteCommand.Script benign = (RemoteCommand.Script) HostSetup.command(EtcdLayout.DEFAULT);
        Probe<HostSetupFacts> benignProbe = HostSetupFacts.probe(EtcdLayout.DEFAULT);
        for (String value : host.hostileValues()) {
            EtcdLayout layout = new EtcdLayout(value, 2379, 2380);
            RemoteCommand.Script c = (RemoteCommand.Script) HostSetup.command(layout);
            assertEquals(benign.code(), c.code(), "the setup script is the same text whatever the data dir");
            host.assertArrivesLiterally(c, List.of(value, "/etc/etcd", "755", "root", "root", "/etc/etcd/pki", "750", "root",
                    "etcd", value, "700", "etcd", "etcd"));
            Probe<HostSetupFacts> probe = HostSetupFacts.probe(layout);
            assertEquals(benignProbe.script(), probe.script(), "the probe is the same text whatever the data dir");
            host.assertArrivesLiterally(new RemoteCommand.Script(probe.script(), probe.arguments()),
                    List.of("/etc/etcd", "/etc/etcd/pki", value));
        }
    }

    @Test
    void theProbeStatsAHostileDirectoryWithoutRunningIt(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        Path hostile = Files.createDirectory(dir.resolve("d $(touch pwned-probe);'\"`touch pwned-tick`"));
        Probe<HostSetupFacts> probe = HostSetupFacts.probe(new EtcdLayout(hostile.toString(), 2379, 2380));
        LocalHost.Run run = host.run(new RemoteCommand.Script(probe.script(), probe.arguments()), new byte[0], false);
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stdout().contains("dir=" + hostile + " "), run.stdout());
        host.assertNoMarkers();
    }
}
