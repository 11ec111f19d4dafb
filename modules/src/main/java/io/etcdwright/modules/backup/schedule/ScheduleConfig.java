package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.spec.BackupStore;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.pki.HostCertificates;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The files of one member's backup schedule: {@code backup.conf} and the two systemd units.
 *
 * <p>{@code backup.conf} is {@code KEY=VALUE} lines that the script reads as data (the value is
 * everything after the first '=', taken literally: nothing in it is expanded or evaluated), so any
 * character is safe in a value except a line break, which would start another setting: values
 * with control characters are refused here rather than escaped.
 */
public final class ScheduleConfig {
    private ScheduleConfig() {
    }

    /** The local member's endpoint and what it is asked with: the member's own healthcheck client (no admin key on the hosts). */
    public record Member(String name, String clientUrl) {
    }

    public static String conf(ScheduleTarget target, Member member) {
        return conf(target, member, java.util.Optional.empty());
    }

    /** With {@code textfileDir} (monitoring.textfileDir), the script also writes its metrics there. */
    public static String conf(ScheduleTarget target, Member member, java.util.Optional<String> textfileDir) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("CLUSTER", target.clusterName());
        values.put("MEMBER", member.name());
        values.put("MEMBER_COUNT", Integer.toString(target.memberCount()));
        values.put("ENDPOINT", member.clientUrl());
        values.put("CACERT", HostCertificates.certPath(HostCertificates.CA));
        values.put("CERT", HostCertificates.certPath(HostCertificates.HEALTHCHECK));
        values.put("KEY", HostCertificates.keyPath(HostCertificates.HEALTHCHECK));
        // The links to the active version: a version change does not rewrite this file.
        values.put("ETCD_BIN_DIR", EtcdLayout.LINK_DIR);
        BackupStore store = target.store();
        values.put("STORE_TYPE", store.type());
        if (store instanceof BackupStore.Directory d) {
            values.put("STORE_PATH", trimSlash(d.path()));
        } else if (store instanceof BackupStore.Sftp s) {
            ScheduleTarget.SftpEndpoint e = target.sftp().orElseThrow();
            values.put("STORE_PATH", trimSlash(s.path()));
            values.put("SFTP_HOST", e.address());
            values.put("SFTP_PORT", Integer.toString(e.port()));
            values.put("SFTP_USER", e.user());
        } else if (store instanceof BackupStore.S3 s) {
            values.put("S3_ENDPOINT", s.endpoint().orElse(""));
            values.put("S3_REGION", s.region().orElse("us-east-1"));
            values.put("S3_BUCKET", s.bucket());
            values.put("S3_PREFIX", s.prefix());
            values.put("S3_PATH_STYLE", Boolean.toString(s.pathStyle()));
        }
        values.put("ENCRYPT", Boolean.toString(target.recipients().isPresent()));
        values.put("KEEP_ALL_FOR_HOURS", Integer.toString(target.retention().keepAllForHours()));
        values.put("HOURLY_FOR_DAYS", Integer.toString(target.retention().hourlyForDays()));
        values.put("DAILY_FOR_DAYS", Integer.toString(target.retention().dailyForDays()));
        textfileDir.ifPresent(dir -> {
            // Only with metrics: a configuration written before them stays as it was.
            values.put("STORE_NAME", store.name());
            values.put("INTERVAL_SECONDS", Integer.toString(target.schedule().intervalMinutes() * 60));
            values.put(io.etcdwright.modules.timer.TimerJob.Metrics.CONF_KEY, dir);
        });
        StringBuilder text = new StringBuilder("# Managed by etcdwright: edits here are reverted by the next apply.\n"
                + "# Read by " + ScheduleLayout.SCRIPT + " as data: KEY=VALUE, the value taken literally.\n");
        values.forEach((k, v) -> text.append(k).append('=').append(value(k, v)).append('\n'));
        return text.toString();
    }

    /** Refuses a store whose values could not be written as one line each. */
    static void checkStore(BackupStore store) {
        if (store instanceof BackupStore.Directory d) {
            value("path of store " + d.name(), d.path());
        } else if (store instanceof BackupStore.Sftp s) {
            value("path of store " + s.name(), s.path());
        } else if (store instanceof BackupStore.S3 s) {
            value("bucket of store " + s.name(), s.bucket());
            value("prefix of store " + s.name(), s.prefix());
            s.endpoint().ifPresent(e -> value("endpoint of store " + s.name(), e));
            s.region().ifPresent(r -> value("region of store " + s.name(), r));
        }
    }

    private static String value(String what, String value) {
        if (value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new IllegalArgumentException("the " + what + " holds a control character (a line break?), which"
                    + " cannot be written into " + ScheduleLayout.CONF);
        }
        return value;
    }

    private static String trimSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** The oneshot service a tick starts: one backup attempt, recorded by systemd as success or failure. */
    public static String service(ScheduleTarget target) {
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright scheduled backup of etcd cluster %s (only the leader takes one)
                After=network-online.target %s
                Wants=network-online.target

                [Service]
                Type=oneshot
                ExecStart=%s %s
                UMask=0077
                PrivateTmp=yes
                # A backup must not slow etcd down: lowest I/O and CPU priority.
                Nice=10
                IOSchedulingClass=idle
                TimeoutStartSec=%dmin
                """.formatted(target.clusterName(), EtcdLayout.UNIT, ScheduleLayout.SCRIPT, ScheduleLayout.CONF_DIR,
                Math.max(10, 2 * target.schedule().intervalMinutes()));
    }

    /**
     * The timer: a tick {@code intervalMinutes} after it starts (at boot, or when apply enables it)
     * and then after each run. A small random delay keeps the members' ticks (and many clusters'
     * uploads) from landing in the same second.
     */
    public static String timer(ScheduleTarget target) {
        int minutes = target.schedule().intervalMinutes();
        int jitterSeconds = Math.min(60, minutes * 6);
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright scheduled backups of etcd cluster %s every %d min

                [Timer]
                OnActiveSec=%dmin
                OnUnitActiveSec=%dmin
                AccuracySec=1s
                RandomizedDelaySec=%ds
                Unit=%s

                [Install]
                WantedBy=timers.target
                """.formatted(target.clusterName(), minutes, minutes, minutes, jitterSeconds, ScheduleLayout.SERVICE);
    }
}
