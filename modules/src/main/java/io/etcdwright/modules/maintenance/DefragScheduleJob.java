package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.timer.TimerJob;

import java.util.List;

/**
 * Where scheduled defragmentation lives on a member's host and how its facts are read: the facts
 * belong to the concern, and reading them needs nothing of how the job is planned
 * ({@link DefragScheduleModule}), so the host's facts record can hold them without depending on the
 * modules that plan from it.
 */
public final class DefragScheduleJob {
    public static final String SCRIPT = "/usr/local/lib/etcdwright/etcd-defrag";
    public static final String CONF_DIR = "/etc/etcdwright/defrag";
    public static final String CONF = CONF_DIR + "/defrag.conf";
    public static final String STATE_DIR = "/var/lib/etcdwright/defrag";
    public static final String SERVICE = "etcdwright-defrag.service";
    public static final String TIMER = "etcdwright-defrag.timer";
    public static final TimerJob JOB = new TimerJob(SCRIPT, CONF_DIR, STATE_DIR, SERVICE, TIMER,
            List.of(SCRIPT, CONF, "/etc/systemd/system/" + SERVICE, "/etc/systemd/system/" + TIMER))
            .withMetrics(CONF, "etcdwright_defrag.prom");
    /** Files whose text the probe reads back: none holds a secret. */
    public static final List<String> READABLE = List.of(CONF, JOB.serviceFile(), JOB.timerFile());
    /** The timer, service and run records of each member's host. */
    public static final Probe<ScheduleHostFacts> PROBE = ScheduleHostFacts.probe("defrag_schedule", JOB);

    private DefragScheduleJob() {
    }
}
