package io.etcdwright.modules.backup;

import io.etcdwright.modules.backup.Retention.Decision;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetentionTest {
    private static final Instant NOW = Instant.parse("2026-11-24T20:30:00Z");
    private static final Retention R = Retention.ETCD_MANAGER;

    private static Decision only(Instant t, Instant now) {
        // A newer backup beside it, so "the newest is always kept" does not decide for t.
        return R.decide(List.of(t, now), now).get(0);
    }

    @Test
    void theDefaultsAreEtcdManagers() {
        assertEquals(new Retention(Duration.ofHours(1), Duration.ofHours(24 * 7), Duration.ofHours(24 * 2 * 365)), R);
    }

    @Test
    void everythingYoungerThanAnHourIsKept() {
        List<Instant> times = List.of(NOW.minusSeconds(3599), NOW.minusSeconds(1800), NOW.minusSeconds(1799), NOW);
        for (Decision d : R.decide(times, NOW)) {
            assertTrue(d.keep(), d.toString());
        }
        assertEquals("younger than 1 hour", R.decide(times, NOW).get(0).reason());
    }

    @Test
    void exactlyOneHourOldIsInTheHourlyTier() {
        // 19:30:00 and 19:40:00 share hour 19; at exactly 1 h the first is bucketed, not kept outright.
        List<Instant> times = List.of(NOW.minusSeconds(3600), NOW.minusSeconds(3000), NOW);
        List<Decision> d = R.decide(times, NOW);
        assertEquals(new Decision(times.get(0), true, "oldest of hour 2026-11-24T19"), d.get(0));
        assertTrue(d.get(1).keep(), "10 minutes younger than an hour: kept outright");
        // One second later both are in hour 19 and only the oldest stays.
        List<Decision> later = R.decide(times, NOW.plusSeconds(600));
        assertTrue(later.get(0).keep());
        assertFalse(later.get(1).keep());
        assertEquals("not the oldest of hour 2026-11-24T19 (2026-11-24T19:30:00Z is kept)", later.get(1).reason());
    }

    @Test
    void theOldestOfEachUtcHourIsKeptForSevenDays() {
        Instant h = Instant.parse("2026-11-22T10:00:00Z");
        List<Instant> times = List.of(h.plusSeconds(59 * 60 + 59), h, h.plusSeconds(900), h.plusSeconds(3600), h.plusSeconds(3600 + 1), NOW);
        List<Decision> d = R.decide(times, NOW);
        assertEquals(List.of(false, true, false, true, false, true), d.stream().map(Decision::keep).toList());
        assertEquals("oldest of hour 2026-11-22T10", d.get(1).reason());
        assertEquals("oldest of hour 2026-11-22T11", d.get(3).reason());
    }

    @Test
    void exactlySevenDaysOldIsInTheDailyTierAndTheOldestOfTheDayIsKept() {
        Instant sevenDays = NOW.minus(Duration.ofDays(7)); // 2026-11-17T20:30:00Z
        Instant sameDayEarlier = Instant.parse("2026-11-17T03:00:00Z");
        Instant sameHourYounger = sevenDays.plusSeconds(1); // still hourly: its own hour bucket
        List<Decision> d = R.decide(List.of(sameDayEarlier, sevenDays, sameHourYounger, NOW), NOW);
        assertEquals(new Decision(sameDayEarlier, true, "oldest of day 2026-11-17"), d.get(0));
        assertEquals(new Decision(sevenDays, false, "not the oldest of day 2026-11-17 (2026-11-17T03:00:00Z is kept)"), d.get(1));
        assertEquals(new Decision(sameHourYounger, true, "oldest of hour 2026-11-17T20"), d.get(2));
    }

    @Test
    void dailyBucketsAreUtcDays() {
        Instant late = Instant.parse("2026-10-01T23:59:59Z");
        Instant early = Instant.parse("2026-10-02T00:00:00Z");
        Instant later = Instant.parse("2026-10-02T12:00:00Z");
        List<Decision> d = R.decide(List.of(late, early, later, NOW), NOW);
        assertEquals(List.of(true, true, false, true), d.stream().map(Decision::keep).toList());
        assertEquals("oldest of day 2026-10-01", d.get(0).reason());
        assertEquals("oldest of day 2026-10-02", d.get(1).reason());
    }

    @Test
    void hourAndDayBucketsDoNotCollide() {
        // etcd-manager's one map would make 2026-11-17T00:00 both the hour-00 bucket and the
        // day's bucket; here the older (daily) and the younger (hourly) both stay.
        Instant now = Instant.parse("2026-11-24T00:30:00Z");
        Instant daily = Instant.parse("2026-11-17T00:10:00Z");
        Instant hourly = Instant.parse("2026-11-17T00:50:00Z");
        List<Decision> d = R.decide(List.of(daily, hourly, now), now);
        assertEquals("oldest of day 2026-11-17", d.get(0).reason());
        assertEquals("oldest of hour 2026-11-17T00", d.get(1).reason());
    }

    @Test
    void olderThanTwoYearsIsDeletedExactlyAtTheBoundary() {
        Instant twoYears = NOW.minus(Duration.ofDays(730));
        assertEquals(new Decision(twoYears, false, "older than 2 years"), only(twoYears, NOW));
        assertEquals(new Decision(twoYears.plusSeconds(1), true, "oldest of day 2024-11-24"), only(twoYears.plusSeconds(1), NOW));
    }

    @Test
    void theNewestBackupIsAlwaysKept() {
        Instant old = NOW.minus(Duration.ofDays(1000));
        List<Decision> d = R.decide(List.of(old.minusSeconds(60), old), NOW);
        assertFalse(d.get(0).keep());
        assertEquals(new Decision(old, true, "the newest backup is always kept (else: older than 2 years)"), d.get(1));
        // Not the oldest of its hour either, and no tier at all: still kept.
        Retention nothing = new Retention(Duration.ZERO, Duration.ZERO, Duration.ZERO);
        List<Decision> none = nothing.decide(List.of(NOW.minusSeconds(5), NOW.minusSeconds(5), NOW.minusSeconds(9)), NOW);
        assertEquals(List.of(false, true, false), none.stream().map(Decision::keep).toList(),
                "of equal times the last given is the newest (highest sequence)");
        assertTrue(R.decide(List.of(), NOW).isEmpty());
    }

    @Test
    void settingsAreHonouredAndReasonsSayThem() {
        Retention short_ = new Retention(Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofDays(3));
        List<Decision> d = short_.decide(List.of(NOW.minus(Duration.ofDays(3)), NOW.minusSeconds(600), NOW), NOW);
        assertEquals("older than 3 days", d.get(0).reason());
        assertEquals("younger than 30 minutes", d.get(1).reason());
        assertThrows(IllegalArgumentException.class, () -> new Retention(Duration.ofHours(-1), Duration.ZERO, Duration.ZERO));
    }
}
