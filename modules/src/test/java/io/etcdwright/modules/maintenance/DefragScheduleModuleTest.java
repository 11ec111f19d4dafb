package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Drift;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Maintenance;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.maintenance.DiskFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.service.ServiceFacts;
import io.etcdwright.modules.timer.TimerJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scheduled defragmentation's files on each member, its staggered calendars, and the plan's diff. */
class DefragScheduleModuleTest {
    static final String SCHEDULE = """
            maintenance:
              defrag:
                minFragmentationPercent: 30
                minDbSizeMiB: 8
                schedule:
                  at: "03:00"
                  staggerMinutes: 15
            """;
    static final String RUNNING_TIMER = "probed=1\ntimer_UnitFileState=enabled\ntimer_ActiveState=active\n";

    static DesiredState desired(Path dir, String extra) throws Exception {
        Files.writeString(dir.resolve("hosts.yaml"), """
                all:
                  children:
                    etcd:
                      hosts:
                        h1: {ansible_host: 10.0.0.11}
                        h2: {ansible_host: 10.0.0.12}
                        h3: {ansible_host: 10.0.0.13}
                """);
        Files.writeString(dir.resolve("spec.yaml"), """
                cluster:
                  name: c1
                members:
                  group: etcd
                etcd:
                  version: 3.5.16
                """ + extra);
        return DesiredStateLoader.load(dir.resolve("hosts.yaml"), dir.resolve("spec.yaml"));
    }

    static EtcdHostFacts facts(String host, Map<String, FileState> files, String defragProbe) {
        return new EtcdHostFacts(host, new SystemFacts(host, "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), files, new ServiceFacts("active", true, 0, true, 1, false),
                new MemberFacts(true, true, 100, 1000, Optional.empty()), ScheduleHostFacts.PROBE.parse("probed=1\n"),
                Optional.empty(), DiskFacts.UNKNOWN, 0, DefragScheduleJob.PROBE.parse(defragProbe));
    }

    static MemberContext member(DesiredState desired, int i, EtcdHostFacts facts) {
        return new MemberContext(desired.members().get(i), facts, desired.spec(), EtcdLayout.DEFAULT,
                new MemberContext.Bootstrap(List.of(), false, "t"));
    }

    static Optional<MemberModule.Change> plan(DesiredState desired, int i, EtcdHostFacts facts) {
        return new DefragScheduleModule(desired.spec(), desired.members()).plan(member(desired, i, facts));
    }

    static Map<String, FileState> asDesired(List<TimerJob.DesiredFile> files) {
        Map<String, FileState> map = new LinkedHashMap<>();
        for (TimerJob.DesiredFile f : files) {
            map.put(f.file().path(), new FileState(f.file().path(), true, io.etcdwright.engine.ssh.HostSession.sha256(f.content()),
                    f.file().mode().replaceFirst("^0", ""), "root", "root", 1, Optional.empty()));
        }
        return map;
    }

    static String content(List<TimerJob.DesiredFile> files, String path) {
        return new String(files.stream().filter(f -> f.file().path().equals(path)).findFirst().orElseThrow().content(),
                StandardCharsets.UTF_8);
    }

    @Test
    void eachMemberStartsItsStaggerLaterAndPastMidnightOnTheNextDay() {
        Maintenance.DefragSchedule daily = new Maintenance.DefragSchedule(LocalTime.of(3, 0), List.of(), 15);
        assertEquals("*-*-* 03:00:00 UTC", DefragScheduleModule.calendar(daily, 0));
        assertEquals("*-*-* 03:15:00 UTC", DefragScheduleModule.calendar(daily, 1));
        assertEquals("*-*-* 03:30:00 UTC", DefragScheduleModule.calendar(daily, 2));
        Maintenance.DefragSchedule weekend = new Maintenance.DefragSchedule(LocalTime.of(23, 50), List.of(DayOfWeek.SATURDAY,
                DayOfWeek.SUNDAY), 10);
        assertEquals("Sat,Sun *-*-* 23:50:00 UTC", DefragScheduleModule.calendar(weekend, 0));
        assertEquals("Mon,Sun *-*-* 00:00:00 UTC", DefragScheduleModule.calendar(weekend, 1), "Saturday's run moves to Sunday, Sunday's to Monday");
        assertEquals("*-*-* 00:10:00 UTC", DefragScheduleModule.calendar(new Maintenance.DefragSchedule(LocalTime.of(23, 50),
                List.of(), 10), 2));
    }

    @Test
    void theSpecIsReadWithItsDefaults(@TempDir Path dir) throws Exception {
        Maintenance.Defrag d = desired(dir, SCHEDULE).spec().maintenance().defrag().orElseThrow();
        assertEquals(30, d.minFragmentationPercent());
        assertEquals(8, d.minDbSizeMiB());
        assertEquals(new Maintenance.DefragSchedule(LocalTime.of(3, 0), List.of(), 15), d.schedule().orElseThrow());
        Maintenance.Defrag defaults = desired(dir, "maintenance:\n  defrag:\n    schedule: {at: \"01:30\", days: [Sun, Wed]}\n")
                .spec().maintenance().defrag().orElseThrow();
        assertEquals(Maintenance.Defrag.DEFAULT_MIN_FRAGMENTATION_PERCENT, defaults.minFragmentationPercent());
        assertEquals(Maintenance.Defrag.DEFAULT_MIN_DB_SIZE_MIB, defaults.minDbSizeMiB());
        assertEquals(new Maintenance.DefragSchedule(LocalTime.of(1, 30), List.of(DayOfWeek.WEDNESDAY, DayOfWeek.SUNDAY),
                Maintenance.DefragSchedule.DEFAULT_STAGGER_MINUTES), defaults.schedule().orElseThrow());
        assertEquals(Maintenance.NONE, desired(dir, "").spec().maintenance());
    }

    @Test
    void eachMemberGetsItsOwnEndpointItsCalendarAndTheThresholds(@TempDir Path dir) throws Exception {
        DesiredState desired = desired(dir, SCHEDULE);
        DefragScheduleModule module = new DefragScheduleModule(desired.spec(), desired.members());
        List<TimerJob.DesiredFile> h2 = module.desiredFiles(member(desired, 1, facts("h2", Map.of(), "probed=1\n")));
        String conf = content(h2, DefragScheduleJob.CONF);
        assertTrue(conf.contains("\nMEMBER=h2\n"), conf);
        assertTrue(conf.contains("\nENDPOINT=https://10.0.0.12:2379\n"), conf);
        assertTrue(conf.contains("\nENDPOINTS=https://10.0.0.11:2379,https://10.0.0.12:2379,https://10.0.0.13:2379\n"), conf);
        assertTrue(conf.contains("\nTLS=true\n") && conf.contains("\nCERT=/etc/etcd/pki/healthcheck-client.crt\n"), conf);
        assertTrue(conf.contains("\nLOCK_KEY=/etcdwright/lock/c1\n"), conf);
        assertTrue(conf.contains("\nMIN_FRAGMENTATION_PERCENT=30\n") && conf.contains("\nMIN_DB_SIZE_BYTES=8388608\n"), conf);
        assertTrue(content(h2, DefragScheduleJob.JOB.timerFile()).contains("\nOnCalendar=*-*-* 03:15:00 UTC\n"));
        assertTrue(content(h2, DefragScheduleJob.JOB.serviceFile()).contains("\nExecStart=/usr/local/lib/etcdwright/etcd-defrag /etc/etcdwright/defrag\n"));
        h2.forEach(f -> assertEquals("root", f.file().owner()));
        assertEquals("0600", h2.get(1).file().mode(), "the configuration is root's only");

        DesiredState plain = desired(dir, SCHEDULE + "tls:\n  transport: {clients: plaintext, peers: plaintext}\n");
        MemberContext h1 = new MemberContext(plain.members().get(0), facts("h1", Map.of(), "probed=1\n"), plain.spec(),
                EtcdLayout.DEFAULT.withTransport(io.etcdwright.modules.config.MemberTransport.of(plain.spec().tls().transport())),
                new MemberContext.Bootstrap(List.of(), false, "t"));
        String plainConf = content(new DefragScheduleModule(plain.spec(), plain.members()).desiredFiles(h1), DefragScheduleJob.CONF);
        assertTrue(plainConf.contains("\nTLS=false\n") && plainConf.contains("\nENDPOINT=http://10.0.0.11:2379\n"), plainConf);
    }

    @Test
    void installChangeAndRemoveAreOneStepEachAndAConvergedHostHasNone(@TempDir Path dir) throws Exception {
        DesiredState desired = desired(dir, SCHEDULE);
        Step create = plan(desired, 2, facts("h3", Map.of(), "probed=1\n")).orElseThrow().step().does(ctx -> null);
        assertEquals(ChangeKind.CREATE, create.kind());
        assertTrue(create.summary().contains("*-*-* 03:30:00 UTC") && create.summary().contains("30% free and 8 MiB"), create.summary());

        List<TimerJob.DesiredFile> files = new DefragScheduleModule(desired.spec(), desired.members())
                .desiredFiles(member(desired, 2, facts("h3", Map.of(), "probed=1\n")));
        Map<String, FileState> installed = asDesired(files);
        assertEquals(Optional.empty(), plan(desired, 2, facts("h3", installed, RUNNING_TIMER)));

        DesiredState later = desired(dir, SCHEDULE.replace("03:00", "04:00"));
        MemberModule.Change change = plan(later, 2, facts("h3", installed, RUNNING_TIMER)).orElseThrow();
        Step update = change.step().does(ctx -> null);
        assertEquals(ChangeKind.UPDATE, update.kind());
        assertEquals("etcdwright-defrag.timer differs", update.reason());
        assertTrue(update.diff().orElseThrow().after().contains("OnCalendar=*-*-* 04:30:00 UTC"));
        assertTrue(change.restartCause().isEmpty(), "a schedule change never restarts etcd");

        DesiredState none = desired(dir, "");
        Step delete = plan(none, 2, facts("h3", installed, RUNNING_TIMER)).orElseThrow().step().does(ctx -> null);
        assertEquals(ChangeKind.DELETE, delete.kind());
        assertEquals("the spec has no maintenance.defrag.schedule", delete.reason());
        assertEquals(Optional.empty(), plan(none, 2, facts("h3", Map.of(), "probed=1\n")), "nothing there, nothing to remove");
        assertEquals(Optional.empty(), plan(none, 2, facts("h3", installed, "")), "facts from before the probe: nothing known");
        // A threshold without a schedule is etcdwright defrag's default only: nothing on the hosts.
        assertEquals(Optional.empty(), plan(desired(dir, "maintenance:\n  defrag:\n    minFragmentationPercent: 5\n"), 0,
                facts("h1", Map.of(), "probed=1\n")));
    }

    static String run(String result, String message) {
        String json = "{\"result\":\"" + result + "\",\"time\":\"2026-11-27T03:15:02Z\",\"member\":\"h2\",\"message\":\""
                + message + "\",\"name\":\"\",\"objectSize\":0}";
        return "last-run=" + java.util.Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8)) + "\n";
    }

    @Test
    void aFailedRunIsDriftAndStatusShowsEachMembersLastRun(@TempDir Path dir) throws Exception {
        DesiredState desired = desired(dir, SCHEDULE);
        Map<String, EtcdHostFacts> facts = new LinkedHashMap<>();
        facts.put("h1", facts("h1", Map.of(), RUNNING_TIMER + run("skipped", "member h1 not defragmented: the cluster's lock is held")));
        facts.put("h2", facts("h2", Map.of(), RUNNING_TIMER + run("failed", "failed while defragmenting") + "failed_runs=2\n"));
        List<Drift> drift = DefragRuns.drift(desired.spec(), facts);
        assertEquals(1, drift.size(), drift.toString());
        assertEquals("h2", drift.get(0).subject());
        assertTrue(drift.get(0).what().contains("failed while defragmenting (2 failed runs in a row)"), drift.get(0).what());
        assertEquals(List.of(), DefragRuns.drift(desired(dir, "").spec(), facts), "no schedule in the spec: no drift");

        Map<String, ScheduleHostFacts> runs = Map.of("h1", facts.get("h1").defragSchedule(), "h2", facts.get("h2").defragSchedule());
        Map<String, Object> doc = DefragRuns.document(desired.spec().maintenance().defrag().orElseThrow(), desired.members(), runs);
        String text = String.join("\n", DefragRuns.text(doc));
        assertTrue(text.contains("*-*-* 03:00:00 UTC") && text.contains("skipped at 2026-11-27T03:15:02Z: member h1 not defragmented: the cluster's lock is held"), text);
        assertTrue(text.contains("WARNING: h2's last scheduled defragmentation failed"), text);
        assertTrue(text.contains("h3") && text.contains("not reached over SSH"), text);
        assertFalse(text.contains("WARNING: the defrag timer is not enabled"), text);
    }
}
