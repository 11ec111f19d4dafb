package io.etcdwright.modules.backup.schedule;

import java.util.List;

/** Where scheduled backups live on a member's host: one place, for the module, the probe and removal. */
public final class ScheduleLayout {
    private ScheduleLayout() {
    }

    public static final String SCRIPT = "/usr/local/lib/etcdwright/etcd-backup";
    public static final String CONF_DIR = "/etc/etcdwright/backup";
    public static final String CONF = CONF_DIR + "/backup.conf";
    /** The store credentials of the hosts (never the workstation's): S3 keys or an SSH key. */
    public static final String CREDENTIALS = CONF_DIR + "/credentials";
    public static final String RECIPIENTS = CONF_DIR + "/recipients.pem";
    public static final String KNOWN_HOSTS = CONF_DIR + "/known_hosts";
    public static final String SERVICE = "etcdwright-backup.service";
    public static final String TIMER = "etcdwright-backup.timer";
    public static final String SERVICE_FILE = "/etc/systemd/system/" + SERVICE;
    public static final String TIMER_FILE = "/etc/systemd/system/" + TIMER;
    /** The script's own state: last-run.json, last-success.json, failed-runs; root-only. */
    public static final String STATE_DIR = "/var/lib/etcdwright/backup";

    /** Its file in the members' textfile directory (monitoring.textfileDir). */
    public static final String TEXTFILE = "etcdwright_backup.prom";

    /** Every file the module may write, in the order they are written (units last). */
    public static final List<String> FILES = List.of(SCRIPT, CONF, CREDENTIALS, RECIPIENTS, KNOWN_HOSTS, SERVICE_FILE, TIMER_FILE);
    /** The job as the shared timer machinery sees it. */
    public static final io.etcdwright.modules.timer.TimerJob JOB = new io.etcdwright.modules.timer.TimerJob(SCRIPT, CONF_DIR,
            STATE_DIR, SERVICE, TIMER, FILES).withMetrics(CONF, TEXTFILE);
    /** Files whose text the probe may read back: none holds a secret. */
    public static final List<String> READABLE = List.of(CONF, RECIPIENTS, KNOWN_HOSTS, SERVICE_FILE, TIMER_FILE);
}
