package io.etcdwright.modules.teardown;

import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.service.ServiceFacts;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClientHostsRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TeardownPlannerTest {
    @TempDir
    Path pkiDir;

    /** A teardown of members only: no host holds client files. */
    private Plan plan(Map<String, EtcdHostFacts> facts, EtcdLayout layout, boolean wipeData) {
        return TeardownPlanner.plan("c", facts, Map.of(), layout, wipeData, ClientHostFacts.NONE, new ClientHostsRecord(pkiDir));
    }

    private static EtcdHostFacts withData(String host) {
        return new EtcdHostFacts(host, new SystemFacts(host, "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), Map.of(),
                new ServiceFacts("inactive", false, 0, true, 0, false),
                new MemberFacts(true, true, 100, 1000, Optional.empty()));
    }

    @Test
    void dataIsKeptWithoutTheFlagAndWipedOnlyThroughTheGuardWithIt() {
        Plan kept = plan(Map.of("h1", withData("h1")), EtcdLayout.DEFAULT, false);
        assertTrue(kept.steps().isEmpty());
        assertTrue(kept.warnings().get(0).contains("pass --wipe-data"), kept.warnings().toString());

        Plan wiped = plan(Map.of("h1", withData("h1")), EtcdLayout.DEFAULT, true);
        Step data = wiped.steps().get(0);
        assertEquals("DELETE data dir /var/lib/etcd", data.summary());
        assertTrue(wiped.warnings().isEmpty(), wiped.warnings().toString());
    }

    @Test
    void theBackupTimerGoesFirstSoNoTickRunsAgainstAHalfRemovedMember() {
        EtcdHostFacts f = withData("h1");
        EtcdHostFacts scheduled = new EtcdHostFacts("h1", f.system(), f.install(), f.setup(),
                Map.of(EtcdLayout.UNIT_FILE, new io.etcdwright.engine.facts.FileState(EtcdLayout.UNIT_FILE, true, "x", "644",
                        "root", "root", 1, Optional.empty())), new ServiceFacts("active", true, 0, true, 1, false), f.member(),
                io.etcdwright.modules.backup.schedule.ScheduleHostFacts.PROBE.parse(
                        "probed=1\ntimer_UnitFileState=enabled\ntimer_ActiveState=active\n"));
        Plan plan = plan(Map.of("h1", scheduled), EtcdLayout.DEFAULT, false);
        assertEquals("h1/backup-schedule", plan.steps().get(0).id());
        Step unit = plan.steps().get(1);
        assertEquals("stop and remove etcd.service", unit.summary());
        assertEquals(List.of("h1/backup-schedule"), unit.after());
        assertTrue(plan(Map.of("h1", withData("h1")), EtcdLayout.DEFAULT, false).steps().stream()
                .noneMatch(s -> s.id().contains("backup")), "nothing to remove without a schedule");
    }

    @Test
    void aSystemDirectoryAsDataDirIsFlaggedWhenPlanning() {
        Plan plan = plan(Map.of("h1", withData("h1")), new EtcdLayout("/usr", 2379, 2380), true);
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("h1: data dir /usr will not be deleted: /usr is a system directory")),
                plan.warnings().toString());
    }
}
