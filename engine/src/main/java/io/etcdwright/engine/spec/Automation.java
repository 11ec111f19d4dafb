package io.etcdwright.engine.spec;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.etcdwright.engine.plan.SafetyClass;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code etcdwright watch} may do by itself (the spec's {@code automation} section,
 * docs/desired-state.md): the safety classes it runs unattended, how long a member must be down
 * before it is re-joined, how often it looks, how long a step may take, and maintenance windows.
 * Read by watch's policy only; {@code apply} is a person's and runs whatever it plans.
 *
 * @param allow        the classes run unattended; never {@link SafetyClass#NEVER} (refused at the field)
 * @param repairAfter  how long a member must have been seen down before its repair runs: a reboot
 *                     must not cost a re-join
 * @param interval     between two cycles of the watcher (a --interval option may say otherwise)
 * @param stepDeadline how long one unattended step may run; one that does not finish by then is
 *                     stopped and held for a person
 * @param windows      allow and deny windows for {@code change} and {@code repair} (deny wins)
 */
public record Automation(Set<SafetyClass> allow, Duration repairAfter, Duration interval, Duration stepDeadline,
                         List<Window> windows) {
    public static final int DEFAULT_REPAIR_AFTER_MINUTES = 10;
    public static final int DEFAULT_INTERVAL_SECONDS = 30;
    public static final int DEFAULT_STEP_DEADLINE_MINUTES = 15;
    /** The shortest interval: each cycle gathers facts on every member over SSH. */
    public static final int MIN_INTERVAL_SECONDS = 5;
    /** Routine and repair: a spec edit waits for a person's apply unless the spec says otherwise. */
    public static final Set<SafetyClass> DEFAULT_ALLOW = Set.copyOf(EnumSet.of(SafetyClass.ROUTINE, SafetyClass.REPAIR));
    /** The classes a window may name: routine always runs, never never does. */
    public static final Set<SafetyClass> WINDOWED = Set.copyOf(EnumSet.of(SafetyClass.CHANGE, SafetyClass.REPAIR));
    /** A spec without an automation section. */
    public static final Automation DEFAULT = new Automation(DEFAULT_ALLOW, Duration.ofMinutes(DEFAULT_REPAIR_AFTER_MINUTES),
            Duration.ofSeconds(DEFAULT_INTERVAL_SECONDS), Duration.ofMinutes(DEFAULT_STEP_DEADLINE_MINUTES), List.of());

    public Automation {
        allow = Set.copyOf(allow);
        if (allow.contains(SafetyClass.NEVER)) {
            throw new IllegalArgumentException("never cannot be allowed");
        }
        Objects.requireNonNull(repairAfter, "repairAfter");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(stepDeadline, "stepDeadline");
        windows = List.copyOf(windows);
    }

    public boolean allows(SafetyClass safety) {
        return allow.contains(safety);
    }

    public enum Kind { ALLOW, DENY }

    /**
     * A maintenance window: from each time {@code schedule} names (a five-field cron expression,
     * UTC, as Argo CD's sync windows), for {@code duration}. While a deny window is open, its
     * classes do not run; while allow windows exist for a class, it runs only inside one of them.
     *
     * @param schedule the expression as written, for messages
     */
    public record Window(Kind kind, String schedule, Cron cron, Duration duration, Set<SafetyClass> classes) {
        public Window {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(cron, "cron");
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("a window lasts a while");
            }
            classes = Set.copyOf(classes);
        }

        public boolean applies(SafetyClass safety) {
            return classes.contains(safety);
        }

        /** When the opening that covers {@code now} began, if one does: the latest start within a duration before it. */
        public Optional<Instant> openedAt(Instant now) {
            ExecutionTime times = ExecutionTime.forCron(cron);
            ZonedDateTime at = now.atZone(ZoneOffset.UTC);
            // A start exactly now counts: lastExecution is strictly before, so ask from a second later.
            Optional<ZonedDateTime> last = times.lastExecution(at.plusSeconds(1));
            return last.map(ZonedDateTime::toInstant).filter(start -> start.plus(duration).isAfter(now));
        }

        /** When the opening that covers {@code now} ends, if one does. */
        public Optional<Instant> endsAfter(Instant now) {
            return openedAt(now).map(start -> start.plus(duration));
        }

        /** The next opening after {@code now}. */
        public Optional<Instant> nextOpening(Instant now) {
            return ExecutionTime.forCron(cron).nextExecution(now.atZone(ZoneOffset.UTC)).map(ZonedDateTime::toInstant);
        }
    }

    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    /**
     * A five-field cron expression (minute hour day-of-month month day-of-week, as crontab(5)
     * reads it), parsed by cron-utils; the parser's own words when it is not one.
     */
    public static Parsed parse(String expression) {
        try {
            Cron cron = PARSER.parse(expression);
            cron.validate();
            return new Parsed(Optional.of(cron), "");
        } catch (IllegalArgumentException e) {
            return new Parsed(Optional.empty(), e.getMessage() == null ? "not a cron expression" : e.getMessage());
        }
    }

    /** A parsed expression, or why it is none. */
    public record Parsed(Optional<Cron> cron, String problem) {
    }
}
