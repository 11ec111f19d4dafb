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
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TeardownPlannerTest {
    private static EtcdHostFacts withData(String host) {
        return new EtcdHostFacts(host, new SystemFacts(host, "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), Map.of(),
                new ServiceFacts("inactive", false, 0, true, 0, false),
                new MemberFacts(true, true, 100, 1000, Optional.empty()));
    }

    @Test
    void dataIsKeptWithoutTheFlagAndWipedOnlyThroughTheGuardWithIt() {
        Plan kept = TeardownPlanner.plan("c", Map.of("h1", withData("h1")), Map.of(), EtcdLayout.DEFAULT, false);
        assertTrue(kept.steps().isEmpty());
        assertTrue(kept.warnings().get(0).contains("pass --wipe-data"), kept.warnings().toString());

        Plan wiped = TeardownPlanner.plan("c", Map.of("h1", withData("h1")), Map.of(), EtcdLayout.DEFAULT, true);
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
        Plan plan = TeardownPlanner.plan("c", Map.of("h1", scheduled), Map.of(), EtcdLayout.DEFAULT, false);
        assertEquals("h1/backup-schedule", plan.steps().get(0).id());
        Step unit = plan.steps().get(1);
        assertEquals("stop and remove etcd.service", unit.summary());
        assertEquals(List.of("h1/backup-schedule"), unit.after());
        assertTrue(TeardownPlanner.plan("c", Map.of("h1", withData("h1")), Map.of(), EtcdLayout.DEFAULT, false).steps().stream()
                .noneMatch(s -> s.id().contains("backup")), "nothing to remove without a schedule");
    }

    @Test
    void aSystemDirectoryAsDataDirIsFlaggedWhenPlanning() {
        Plan plan = TeardownPlanner.plan("c", Map.of("h1", withData("h1")), Map.of(), new EtcdLayout("/usr", 2379, 2380), true);
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("h1: data dir /usr will not be deleted: /usr is a system directory")),
                plan.warnings().toString());
    }
}
