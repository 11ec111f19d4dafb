package io.etcdwright.modules.monitoring;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.FilesProbe;
import io.etcdwright.engine.facts.LaterProbe;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.timer.TimerJob;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the certificate-expiry metrics job lives on a member's host and how its facts are read:
 * the facts belong to the concern, and reading them needs nothing of how the job is planned
 * ({@link CertificateMetricsModule}), so the host's facts record can hold them without depending on
 * the modules that plan from it.
 */
public final class CertificateMetricsJob {
    public static final String SCRIPT = "/usr/local/lib/etcdwright/etcd-cert-metrics";
    public static final String CONF_DIR = "/etc/etcdwright/cert-metrics";
    public static final String CONF = CONF_DIR + "/cert-metrics.conf";
    public static final String STATE_DIR = "/var/lib/etcdwright/cert-metrics";
    public static final String SERVICE = "etcdwright-cert-metrics.service";
    public static final String TIMER = "etcdwright-cert-metrics.timer";
    public static final String TEXTFILE = "etcdwright_certificates.prom";
    public static final TimerJob JOB = new TimerJob(SCRIPT, CONF_DIR, STATE_DIR, SERVICE, TIMER,
            List.of(SCRIPT, CONF, "/etc/systemd/system/" + SERVICE, "/etc/systemd/system/" + TIMER)).withMetrics(CONF, TEXTFILE);

    /** The job's files (none secret: all read back). */
    public static final Probe<Map<String, FileState>> FILES = new LaterProbe<>(
            new FilesProbe("cert_metrics_files", JOB.files(), Set.copyOf(JOB.files().subList(1, JOB.files().size()))), "");
    /** The job's timer and run records. */
    public static final Probe<ScheduleHostFacts> TIMER_PROBE = ScheduleHostFacts.probe("cert_metrics_schedule", JOB);
    /** Whether the textfile is as new as the certificates. */
    public static final Probe<CertificateMetricsFacts.Freshness> FRESHNESS = new LaterProbe<>(CertificateMetricsFacts.probe(
            CONF, TEXTFILE, EtcdLayout.PKI_DIR), "");

    private CertificateMetricsJob() {
    }
}
