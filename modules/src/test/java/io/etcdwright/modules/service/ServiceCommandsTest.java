package io.etcdwright.modules.service;

import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.engine.ssh.LocalHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The service commands carry no value but the unit's name, and that as an argument. */
class ServiceCommandsTest {
    @Test
    void theUnitNameIsTheOnlyArgumentAndArrivesWhole(@TempDir Path dir) throws Exception {
        LocalHost host = new LocalHost(dir);
        host.assertArrivesLiterally(ServiceSteps.loadAndEnable(true), List.of(EtcdLayout.UNIT, "reload"));
        host.assertArrivesLiterally(ServiceSteps.loadAndEnable(false), List.of(EtcdLayout.UNIT, "if-needed"));
        host.assertArrivesLiterally(ServiceSteps.START, List.of(EtcdLayout.UNIT));
        host.assertArrivesLiterally(ServiceSteps.restartCommand("/var/lib/etcd $(reboot)", "etcd"),
                List.of(EtcdLayout.UNIT, "/var/lib/etcd $(reboot)", "etcd"));
        host.assertArrivesLiterally(ServiceSteps.START_AND_WAIT, List.of(EtcdLayout.UNIT));
        host.assertArrivesLiterally(ServiceSteps.STOP, List.of(EtcdLayout.UNIT));
        host.assertArrivesLiterally(ServiceSteps.STOP_AND_DISABLE, List.of(EtcdLayout.UNIT));
        host.assertArrivesLiterally(ServiceSteps.UNIT_STATE_AND_LOG, List.of(EtcdLayout.UNIT));
    }

    /**
     * A restart of a member cut off from its peers never ends (etcd notifies systemd only once it
     * reaches a quorum): FaultsIT saw "h3: command did not finish within 180 s: sh script: set -eu".
     * The step now says what systemd and etcd say, why, and what to do.
     */
    @Test
    void aRestartThatRunsOutOfTimeSaysWhatEtcdWaitsForAndWhatToDo() {
        String log = "{\"level\":\"warn\",\"msg\":\"prober detected unhealthy status\",\"error\":\"dial tcp 10.77.4.12:2380: "
                + "connect: permission denied\"" + "x".repeat(400) + "}\n";
        String cut = ServiceSteps.notReadyMessage("h3", "restarted", java.time.Duration.ofSeconds(20), "activating start", log);
        assertTrue(cut.startsWith("h3: etcd was restarted but has not reported ready within 20 s (systemd: activating start)."), cut);
        assertTrue(cut.contains("h3 cannot reach the other members (a network partition, a firewall on the peer port 2380),"
                + " or they have lost quorum"), cut);
        assertTrue(cut.contains("What to do: make sure h3 reaches the other members' peer URLs and 'etcdwright status' shows"
                + " them healthy, then apply again"), cut);
        assertTrue(cut.contains("etcd's last log lines on h3:\n  {\"level\":\"warn\",\"msg\":\"prober detected unhealthy status\""), cut);
        assertTrue(cut.endsWith(" ..."), "a long log line is cut: " + cut);

        String other = ServiceSteps.notReadyMessage("h2", "started to join", java.time.Duration.ofSeconds(180), "deactivating stop", "");
        assertEquals("h2: etcd was started to join but did not come up within 180 s (systemd: deactivating stop); no later step"
                + " ran. What to do: look at 'journalctl -u etcd.service' on h2; once etcd runs there, apply again.", other);
    }

    /** Stop, then what another user owns in the data dir to etcd's user, then start: nothing else is touched. */
    @Test
    void aRestartStopsGivesTheDataDirToEtcdsUserAndStarts(@TempDir Path dir) throws Exception {
        FakeSystemctl unit = new FakeSystemctl(dir, "active", "enabled");
        Path data = java.nio.file.Files.createDirectories(dir.resolve("data/member/wal"));
        java.nio.file.Files.writeString(data.resolve("0.wal"), "w");
        String me = System.getProperty("user.name");
        LocalHost.Run run = unit.host.run(ServiceSteps.restartCommand(dir.resolve("data").toString(), me), new byte[0], false);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(List.of("stop etcd.service", "start etcd.service"), unit.changes());
        assertEquals("active", unit.active());
        assertEquals(me, java.nio.file.Files.getOwner(data.resolve("0.wal")).getName());
        // A data dir not there yet (a member never started) is no error.
        LocalHost.Run fresh = unit.host.run(ServiceSteps.restartCommand(dir.resolve("none").toString(), me), new byte[0], false);
        assertEquals(0, fresh.exitCode(), fresh.stderr());
    }

    @Test
    void aRemovedMembersEtcdIsStoppedAndDisabledOnceAndThenLeftAlone(@TempDir Path dir) throws Exception {
        for (String state : List.of("active", "activating")) {
            FakeSystemctl unit = new FakeSystemctl(dir.resolve(state), state, "enabled");
            LocalHost.Run run = unit.host.run(ServiceSteps.STOP_AND_DISABLE, new byte[0], false);
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals("stopped\ndisabled", run.stdout().strip());
            assertEquals(List.of("stop etcd.service", "disable etcd.service"), unit.changes());
            assertEquals("inactive", unit.active());
            assertEquals("disabled", unit.enabled());

            LocalHost.Run again = unit.host.run(ServiceSteps.STOP_AND_DISABLE, new byte[0], false);
            assertEquals(0, again.exitCode(), again.stderr());
            assertEquals("", again.stdout().strip(), "nothing to do the second time: the step reports OK");
            assertEquals(2, unit.changes().size());
        }
    }

    @Test
    void aStoppedButEnabledUnitIsOnlyDisabledAndAStoppedDisabledOneIsLeftAlone(@TempDir Path dir) throws Exception {
        FakeSystemctl failed = new FakeSystemctl(dir.resolve("failed"), "failed", "enabled");
        assertEquals("disabled", failed.host.run(ServiceSteps.STOP_AND_DISABLE, new byte[0], false).stdout().strip());
        assertEquals(List.of("disable etcd.service"), failed.changes());
        FakeSystemctl done = new FakeSystemctl(dir.resolve("done"), "inactive", "disabled");
        assertEquals("", done.host.run(ServiceSteps.STOP_AND_DISABLE, new byte[0], false).stdout().strip());
        assertEquals(List.of(), done.changes());
    }

    @Test
    void aJoinerThatRunsAlreadyIsNotStartedAgain(@TempDir Path dir) throws Exception {
        FakeSystemctl unit = new FakeSystemctl(dir, "active", "enabled");
        LocalHost.Run run = unit.host.run(ServiceSteps.START_AND_WAIT, new byte[0], false);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(ServiceSteps.ALREADY_RUNNING, run.stdout().strip());
        assertEquals(List.of(), unit.changes());
    }

    @Test
    void aStoppedJoinerIsStarted(@TempDir Path dir) throws Exception {
        FakeSystemctl unit = new FakeSystemctl(dir, "failed", "enabled");
        LocalHost.Run run = unit.host.run(ServiceSteps.START_AND_WAIT, new byte[0], false);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("", run.stdout().strip());
        assertEquals(List.of("reset-failed etcd.service", "start etcd.service"), unit.changes());
        assertEquals("active", unit.active());
    }

    @Test
    void stopEndsARunningUnitAndACrashLoopAndLeavesAStoppedOneAlone(@TempDir Path dir) throws Exception {
        for (String state : List.of("active", "activating")) {
            FakeSystemctl unit = new FakeSystemctl(dir.resolve(state), state, "enabled");
            LocalHost.Run run = unit.host.run(ServiceSteps.STOP, new byte[0], false);
            assertEquals(0, run.exitCode(), run.stderr());
            assertEquals(List.of("stop etcd.service"), unit.changes(), state);
            assertEquals("inactive", unit.active());
        }
        for (String state : List.of("inactive", "failed")) {
            FakeSystemctl unit = new FakeSystemctl(dir.resolve(state), state, "enabled");
            LocalHost.Run run = unit.host.run(ServiceSteps.STOP, new byte[0], false);
            assertEquals(ServiceSteps.NOT_RUNNING, run.stdout().strip(), state);
            assertEquals(List.of(), unit.changes(), state);
        }
    }
}
