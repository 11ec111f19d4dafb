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
     * The timer: ticks at fixed times of the UTC day, every {@code intervalMinutes} from midnight
     * (systemd's OnCalendar), and {@code Persistent=true}: a tick that fell while the host was off (or
     * the timer stopped) is caught up as soon as the timer starts again at boot, as an operator expects
     * of a backup schedule, instead of the next tick waiting a whole interval after boot (a monotonic
     * timer's OnUnitActiveSec forgets what it missed). A small random delay keeps the members' ticks
     * (and many clusters' uploads) from landing in the same second. The interval divides a day, or is
     * a week (the spec's checks): the ticks are the same every day, so none is ever cut short.
     */
    public static String timer(ScheduleTarget target) {
        int minutes = target.schedule().intervalMinutes();
        int jitterSeconds = Math.min(60, minutes * 6);
        String calendars = calendars(minutes).stream().map(c -> "OnCalendar=" + c + "\n").collect(java.util.stream.Collectors.joining());
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright scheduled backups of etcd cluster %s every %d min

                [Timer]
                %sPersistent=true
                AccuracySec=1s
                RandomizedDelaySec=%ds
                Unit=%s

                [Install]
                WantedBy=timers.target
                """.formatted(target.clusterName(), minutes, calendars, jitterSeconds, ScheduleLayout.SERVICE);
    }

    /**
     * systemd calendar expressions, in UTC, for a tick every {@code minutes} from midnight: one when
     * the interval divides an hour or is whole hours dividing a day; a day, a week; otherwise one per
     * tick minute of the hours where the ticks repeat (an interval of 45 min repeats every 3 hours:
     * 00/3:00, 00/3:45, 01/3:30, 02/3:15).
     *
     * @throws IllegalArgumentException for an interval that neither divides a day nor is a week
     */
    public static java.util.List<String> calendars(int minutes) {
        if (minutes == WEEK_MINUTES) {
            return java.util.List.of("Mon *-*-* 00:00:00 UTC");
        }
        if (minutes == DAY_MINUTES) {
            return java.util.List.of("*-*-* 00:00:00 UTC");
        }
        if (minutes <= 0 || DAY_MINUTES % minutes != 0) {
            throw new IllegalArgumentException("an interval of " + minutes + " min neither divides a day nor is a week");
        }
        // An hour is whole hours below: systemd refuses a minute repetition of 60 ("*:00/60").
        if (minutes < 60 && 60 % minutes == 0) {
            return java.util.List.of("*-*-* *:00/" + minutes + ":00 UTC");
        }
        if (minutes % 60 == 0) {
            return java.util.List.of("*-*-* 00/" + minutes / 60 + ":00:00 UTC");
        }
        int period = minutes / gcd(minutes, 60) * 60; // the least multiple of an hour the ticks repeat in
        java.util.List<String> calendars = new java.util.ArrayList<>();
        for (int t = 0; t < period; t += minutes) {
            // Ticks that repeat only daily take no repetition: systemd refuses an hour repetition of 24 ("04/24").
            calendars.add(period == DAY_MINUTES
                    ? String.format(java.util.Locale.ROOT, "*-*-* %02d:%02d:00 UTC", t / 60, t % 60)
                    : String.format(java.util.Locale.ROOT, "*-*-* %02d/%d:%02d:00 UTC", t / 60, period / 60, t % 60));
        }
        return calendars;
    }

    /** Whether the timer can tick every {@code minutes} at the same times every day: it divides a day, or is a week. */
    public static boolean fitsTheCalendar(int minutes) {
        return minutes == WEEK_MINUTES || minutes > 0 && DAY_MINUTES % minutes == 0;
    }

    private static final int DAY_MINUTES = 1440;
    private static final int WEEK_MINUTES = 7 * DAY_MINUTES;

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
