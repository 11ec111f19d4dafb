package io.etcdwright.modules.cluster;

import io.etcdwright.modules.monitoring.CertificateMetricsJob;
import io.etcdwright.modules.maintenance.DefragScheduleJob;

import io.etcdwright.modules.maintenance.DiskFacts;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.FilesProbe;
import io.etcdwright.engine.facts.LaterProbe;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.backup.schedule.ScheduleLayout;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.facts.SystemFacts;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.config.HostSetupFacts;
import io.etcdwright.modules.install.InstallFacts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.pki.CertificatesReadEarly;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.restore.RestoreMarker;
import io.etcdwright.modules.service.ServiceFacts;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Every module's probes for one layout: all of them run in the single facts script of a host. */
public record EtcdProbes(EtcdLayout layout, Probe<HostSetupFacts> hostSetup, Probe<Map<String, FileState>> files,
                         Probe<MemberFacts> member, Probe<Map<String, FileState>> backupFiles,
                         Probe<Optional<RestoreMarker>> restoreMarker, Probe<Map<String, FileState>> pkiFiles,
                         Probe<DiskFacts> disk) {

    /** The scheduled backups' files: their own probe, so facts recorded before it still load. */
    private static final Probe<Map<String, FileState>> BACKUP_FILES = new LaterProbe<>(
            new FilesProbe("backup_files", ScheduleLayout.FILES, Set.copyOf(ScheduleLayout.READABLE)), "");
    /** The scheduled defragmentation's files: their own probe, as above. */
    static final Probe<Map<String, FileState>> DEFRAG_FILES = new LaterProbe<>(new FilesProbe("defrag_files",
            DefragScheduleJob.JOB.files(), Set.copyOf(DefragScheduleJob.READABLE)), "");
    /** The copy of the config the running etcd started from: a probe of its own, as above. */
    static final Probe<Map<String, FileState>> RUNNING_CONFIG = new LaterProbe<>(new FilesProbe("running_config",
            List.of(EtcdLayout.RUNNING_CONFIG_FILE), Set.of(EtcdLayout.RUNNING_CONFIG_FILE)), "");
    /** The healthcheck client's certificate: the one later PKI file whose text is read. */
    private static final Set<String> LATER_CERTIFICATE = Set.of(HostCertificates.laterPaths().get(0));
    /** The member's healthcheck client (certificate readable, key by digest): added later, as above. */
    private static final Probe<Map<String, FileState>> PKI_FILES = new LaterProbe<>(new CertificatesReadEarly(
            new FilesProbe("pki_files", HostCertificates.laterPaths(), LATER_CERTIFICATE), LATER_CERTIFICATE), "");


    public static EtcdProbes of(EtcdLayout layout) {
        List<String> paths = new ArrayList<>();
        paths.add(EtcdLayout.CONFIG_FILE);
        paths.add(EtcdLayout.UNIT_FILE);
        paths.addAll(HostCertificates.certPaths());
        paths.addAll(HostCertificates.keyPaths());
        // Read back what is public (config, unit, certificates); keys are compared by digest only.
        Set<String> readable = new HashSet<>(List.of(EtcdLayout.CONFIG_FILE, EtcdLayout.UNIT_FILE));
        readable.addAll(HostCertificates.certPaths());
        // A restore in flight (its marker beside the data directory) is finished by the next apply:
        // its own probe, so facts recorded before it still load (as no marker).
        return new EtcdProbes(layout, HostSetupFacts.probe(layout),
                new CertificatesReadEarly(new FilesProbe("etcd_files", paths, readable), Set.copyOf(HostCertificates.certPaths())),
                MemberFacts.probe(layout), BACKUP_FILES, new LaterProbe<>(RestoreMarker.probe(layout), ""), PKI_FILES,
                DiskFacts.probe(layout));
    }

    /** The same probes, the member probe asking the cluster-wide questions on every host. */
    public EtcdProbes askingEveryMember() {
        return new EtcdProbes(layout, hostSetup, files, MemberFacts.probeAskingEveryMember(layout), backupFiles, restoreMarker,
                pkiFiles, disk);
    }

    public List<Probe<?>> all() {
        return List.of(SystemFacts.PROBE, InstallFacts.PROBE, hostSetup, files, ServiceFacts.PROBE, member, backupFiles,
                ScheduleHostFacts.PROBE, restoreMarker, pkiFiles, disk, DEFRAG_FILES, RUNNING_CONFIG, DefragScheduleJob.PROBE,
                CertificateMetricsJob.FILES, CertificateMetricsJob.TIMER_PROBE, CertificateMetricsJob.FRESHNESS);
    }
}
