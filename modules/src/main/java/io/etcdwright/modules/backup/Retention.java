package io.etcdwright.modules.backup;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which backups to keep, etcd-manager's rules (etcdadm etcd-manager/pkg/backupcontroller/cleanup.go:114-161)
 * by default. With a backup's age = now - its time:
 * <ul>
 * <li>age &lt; keepAllFor (1 h): kept;</li>
 * <li>else age &lt; hourlyFor (7 d): the oldest of its UTC hour is kept, the others deleted;</li>
 * <li>else age &lt; dailyFor (2 y = 730 d): the oldest of its UTC day is kept, the others deleted;</li>
 * <li>else deleted.</li>
 * </ul>
 * The comparisons are strict, as there: a backup exactly 1 h old is in the hourly tier, one
 * exactly 7 d old in the daily tier, one exactly 730 d old is deleted. Hours and days are UTC
 * (Go's {@code t.Truncate(time.Hour)} and {@code Truncate(24h)} count from the zero time, UTC).
 * Two differences, both keeping more: etcd-manager puts hourly and daily buckets in one map,
 * so an hour-00 bucket and its day's bucket collide and the newer backup of the two is lost;
 * here they are separate. And the newest backup is always kept, whatever the settings: after a
 * week without backups etcd-manager would keep only the oldest of the last hour that had any.
 */
public record Retention(Duration keepAllFor, Duration hourlyFor, Duration dailyFor) {
    /** etcd-manager's defaults: HourlyBackupsRetention 24*7 h, DailyBackupsRetention 24*2*365 h (cleanup.go:33-36). */
    public static final Retention ETCD_MANAGER = new Retention(Duration.ofHours(1), Duration.ofDays(7), Duration.ofDays(730));

    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("uuuu-MM-dd").withZone(ZoneOffset.UTC);

    public Retention {
        Objects.requireNonNull(keepAllFor, "keepAllFor");
        Objects.requireNonNull(hourlyFor, "hourlyFor");
        Objects.requireNonNull(dailyFor, "dailyFor");
        if (keepAllFor.isNegative() || hourlyFor.isNegative() || dailyFor.isNegative()) {
            throw new IllegalArgumentException("retention periods cannot be negative: " + this);
        }
    }

    /** One backup's fate. */
    public record Decision(Instant time, boolean keep, String reason) {
    }

    private enum Tier { ALL, HOURLY, DAILY, EXPIRED }

    /**
     * A decision for each backup time, in the order given. Equal times (backups of one second)
     * count as taken in the order given: the first is the oldest of its bucket.
     */
    public List<Decision> decide(List<Instant> times, Instant now) {
        List<Tier> tiers = new ArrayList<>(times.size());
        Map<Instant, Integer> oldestOfHour = new HashMap<>();
        Map<Instant, Integer> oldestOfDay = new HashMap<>();
        for (int i = 0; i < times.size(); i++) {
            Instant t = times.get(i);
            Duration age = Duration.between(t, now);
            Tier tier = age.compareTo(keepAllFor) < 0 ? Tier.ALL
                    : age.compareTo(hourlyFor) < 0 ? Tier.HOURLY
                    : age.compareTo(dailyFor) < 0 ? Tier.DAILY : Tier.EXPIRED;
            tiers.add(tier);
            if (tier == Tier.HOURLY) {
                oldestOfHour.merge(t.truncatedTo(ChronoUnit.HOURS), i, (a, b) -> older(times, a, b));
            } else if (tier == Tier.DAILY) {
                oldestOfDay.merge(t.truncatedTo(ChronoUnit.DAYS), i, (a, b) -> older(times, a, b));
            }
        }
        int newest = newest(times);
        List<Decision> decisions = new ArrayList<>(times.size());
        for (int i = 0; i < times.size(); i++) {
            Instant t = times.get(i);
            Decision d = switch (tiers.get(i)) {
                case ALL -> new Decision(t, true, "younger than " + human(keepAllFor));
                case HOURLY -> bucket(times, i, oldestOfHour.get(t.truncatedTo(ChronoUnit.HOURS)), "hour " + HOUR.format(t));
                case DAILY -> bucket(times, i, oldestOfDay.get(t.truncatedTo(ChronoUnit.DAYS)), "day " + DAY.format(t));
                case EXPIRED -> new Decision(t, false, "older than " + human(dailyFor));
            };
            if (i == newest && !d.keep()) {
                d = new Decision(t, true, "the newest backup is always kept (else: " + d.reason() + ")");
            }
            decisions.add(d);
        }
        return decisions;
    }

    private static Decision bucket(List<Instant> times, int i, int oldest, String bucket) {
        return i == oldest
                ? new Decision(times.get(i), true, "oldest of " + bucket)
                : new Decision(times.get(i), false, "not the oldest of " + bucket + " (" + times.get(oldest) + " is kept)");
    }

    private static int older(List<Instant> times, int a, int b) {
        return times.get(b).isBefore(times.get(a)) ? b : a;
    }

    /** The newest time; of equal ones the last given (the highest sequence in a sorted listing). */
    private static int newest(List<Instant> times) {
        int newest = -1;
        for (int i = 0; i < times.size(); i++) {
            if (newest < 0 || !times.get(i).isBefore(times.get(newest))) {
                newest = i;
            }
        }
        return newest;
    }

    /** "1 hour", "7 days", "2 years" (365-day years, as etcd-manager's "y"), else ISO-8601. */
    static String human(Duration d) {
        long days = d.toDays();
        if (d.equals(Duration.ofDays(days)) && days > 0) {
            if (days % 365 == 0) {
                return plural(days / 365, "year");
            }
            return plural(days, "day");
        }
        long hours = d.toHours();
        if (d.equals(Duration.ofHours(hours)) && hours > 0) {
            return plural(hours, "hour");
        }
        long minutes = d.toMinutes();
        if (d.equals(Duration.ofMinutes(minutes))) {
            return plural(minutes, "minute");
        }
        return d.toString();
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }
}
