package io.etcdwright.engine.spec;

import java.time.DayOfWeek;
import java.time.LocalTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Maintenance the spec asks for (docs/maintenance.md). Empty parts: nothing scheduled.
 *
 * @param defrag how defragmentation is judged worth it, and whether the members do it on a schedule
 */
public record Maintenance(Optional<Defrag> defrag) {
    public static final Maintenance NONE = new Maintenance(Optional.empty());

    public Maintenance {
        Objects.requireNonNull(defrag, "defrag");
    }

    /** The scheduled defragmentation, when the spec has one. */
    public Optional<DefragSchedule> defragSchedule() {
        return defrag.flatMap(Defrag::schedule);
    }

    /**
     * @param minFragmentationPercent a member is defragmented only when at least this share of its
     *                                database file is free pages; also {@code etcdwright defrag}'s default
     * @param minDbSizeMiB            and (scheduled runs) only when its file is at least this big: below it a
     *                                defragmentation gives back too little to be worth a member's pause
     * @param schedule                empty: only {@code etcdwright defrag} defragments
     */
    public record Defrag(int minFragmentationPercent, int minDbSizeMiB, Optional<DefragSchedule> schedule) {
        public static final int DEFAULT_MIN_FRAGMENTATION_PERCENT = 20;
        public static final int DEFAULT_MIN_DB_SIZE_MIB = 64;

        public Defrag {
            Objects.requireNonNull(schedule, "schedule");
        }
    }

    /**
     * When the members defragment themselves: at {@code at} (UTC) on {@code days} (every day when
     * empty), the member at position i of the members an offset of i × {@code staggerMinutes} later,
     * so that no two start together.
     */
    public record DefragSchedule(LocalTime at, List<DayOfWeek> days, int staggerMinutes) {
        public static final int DEFAULT_STAGGER_MINUTES = 10;

        public DefragSchedule {
            Objects.requireNonNull(at, "at");
            days = List.copyOf(days);
        }
    }
}
