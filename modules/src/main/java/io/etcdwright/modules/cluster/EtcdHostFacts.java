package io.etcdwright.modules.cluster;

import io.etcdwright.modules.monitoring.CertificateMetricsJob;
import io.etcdwright.modules.maintenance.DefragScheduleJob;

import io.etcdwright.modules.maintenance.DiskFacts;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.HostFacts;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.restore.RestoreMarker;
import io.etcdwright.modules.service.ServiceFacts;

import java.util.Map;
import java.util.Optional;

/**
 * One host's facts, typed, as the etcd modules read them.
 *
 * @param restoreMarker what a restore left beside the data directory ({@link RestoreMarker}): one in
 *                      flight is finished by the next apply
 */
public record EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                            Map<String, FileState> files, ServiceFacts service, MemberFacts member,
                            ScheduleHostFacts schedule, Optional<RestoreMarker> restoreMarker, DiskFacts disk,
                            long clockSkewMillis, ScheduleHostFacts defragSchedule,
                            io.etcdwright.modules.monitoring.CertificateMetricsFacts certMetrics) {

    /** Facts without the certificate metrics' (nothing known of them). */
    public EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                         Map<String, FileState> files, ServiceFacts service, MemberFacts member,
                         ScheduleHostFacts schedule, Optional<RestoreMarker> restoreMarker, DiskFacts disk,
                         long clockSkewMillis, ScheduleHostFacts defragSchedule) {
        this(host, system, install, setup, files, service, member, schedule, restoreMarker, disk, clockSkewMillis, defragSchedule,
                io.etcdwright.modules.monitoring.CertificateMetricsFacts.UNKNOWN);
    }

    /** Facts without the scheduled defragmentation's (nothing known of it). */
    public EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                         Map<String, FileState> files, ServiceFacts service, MemberFacts member,
                         ScheduleHostFacts schedule, Optional<RestoreMarker> restoreMarker, DiskFacts disk,
                         long clockSkewMillis) {
        this(host, system, install, setup, files, service, member, schedule, restoreMarker, disk, clockSkewMillis,
                DefragScheduleJob.PROBE.parse(""));
    }

    public EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                         Map<String, FileState> files, ServiceFacts service, MemberFacts member,
                         ScheduleHostFacts schedule, Optional<RestoreMarker> restoreMarker) {
        this(host, system, install, setup, files, service, member, schedule, restoreMarker, DiskFacts.UNKNOWN, 0);
    }

    public EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                         Map<String, FileState> files, ServiceFacts service, MemberFacts member,
                         ScheduleHostFacts schedule) {
        this(host, system, install, setup, files, service, member, schedule, Optional.empty());
    }

    /** Facts without the scheduled backups' (nothing known of them). */
    public EtcdHostFacts(String host, SystemFacts system, InstallFacts install, HostSetupFacts setup,
                         Map<String, FileState> files, ServiceFacts service, MemberFacts member) {
        this(host, system, install, setup, files, service, member, ScheduleHostFacts.PROBE.parse(""));
    }

    public static EtcdHostFacts from(HostFacts facts, EtcdProbes probes) {
        Map<String, FileState> files = new java.util.LinkedHashMap<>(facts.get(probes.files()));
        files.putAll(facts.get(probes.backupFiles()));
        files.putAll(facts.get(probes.pkiFiles()));
        files.putAll(facts.get(EtcdProbes.DEFRAG_FILES));
        files.putAll(facts.get(EtcdProbes.RUNNING_CONFIG));
        files.putAll(facts.get(CertificateMetricsJob.FILES));
        return new EtcdHostFacts(facts.host(), facts.get(SystemFacts.PROBE),
                facts.get(io.etcdwright.modules.install.InstallFacts.PROBE), facts.get(probes.hostSetup()),
                java.util.Collections.unmodifiableMap(files), facts.get(ServiceFacts.PROBE), facts.get(probes.member()),
                facts.get(ScheduleHostFacts.PROBE), facts.get(probes.restoreMarker()),
                facts.get(probes.disk()), facts.clockSkewMillis(), facts.get(DefragScheduleJob.PROBE),
                new io.etcdwright.modules.monitoring.CertificateMetricsFacts(facts.get(CertificateMetricsJob.TIMER_PROBE),
                        facts.get(CertificateMetricsJob.FRESHNESS)));
    }

    public FileState file(String path) {
        FileState state = files.get(path);
        return state == null ? FileState.missing(path) : state;
    }
}
