package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.service.ServiceFacts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A one-member desired state from files, and host facts as the probes would parse them. */
final class ScheduleFixtures {
    private ScheduleFixtures() {
    }

    static DesiredState desired(Path dir, String backupYaml) throws IOException {
        Files.writeString(dir.resolve("hosts.yaml"), """
                all:
                  hosts:
                    h1:
                      ansible_host: 10.0.0.11
                """);
        Files.writeString(dir.resolve("spec.yaml"), """
                cluster:
                  name: c1
                members:
                  hosts: [h1]
                etcd:
                  version: 3.5.16
                """ + backupYaml);
        return DesiredStateLoader.load(dir.resolve("hosts.yaml"), dir.resolve("spec.yaml"));
    }

    static EtcdHostFacts facts(Map<String, FileState> files, String scheduleProbeOutput) {
        return new EtcdHostFacts("h1", new SystemFacts("h1", "", "", "", "", "amd64", "systemd", 0, 1, 0),
                new InstallFacts(List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()),
                new HostSetupFacts(true, Map.of()), files, new ServiceFacts("active", true, 0, true, 1, false),
                new MemberFacts(true, true, 100, 1000, Optional.empty()), ScheduleHostFacts.PROBE.parse(scheduleProbeOutput));
    }

    static MemberContext member(DesiredState desired, EtcdHostFacts facts) {
        return new MemberContext(desired.members().get(0), facts, desired.spec(), EtcdLayout.DEFAULT,
                new MemberContext.Bootstrap(List.of(), false, "t"));
    }

    /** Files exactly as desired: what the probe sees after an apply. */
    static Map<String, FileState> asDesired(List<io.etcdwright.modules.timer.TimerJob.DesiredFile> desired, long modifiedMicros) {
        Map<String, FileState> files = new LinkedHashMap<>();
        for (io.etcdwright.modules.timer.TimerJob.DesiredFile f : desired) {
            files.put(f.file().path(), new FileState(f.file().path(), true,
                    io.etcdwright.engine.ssh.HostSession.sha256(f.content()), f.file().mode().replaceFirst("^0", ""),
                    "root", "root", modifiedMicros, Optional.empty()));
        }
        return files;
    }

    static final String RUNNING_TIMER = "probed=1\ntool_bash=1\ntool_gzip=1\ntool_curl=1\ntool_openssl=1\n"
            + "timer_UnitFileState=enabled\ntimer_ActiveState=active\n";
}
