package io.etcdwright.rollout;

import io.etcdwright.modules.backup.BackupsSeen;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The rollout's backup precondition ({@code --backup-within}): a cluster whose spec names backup
 * stores starts only with a complete backup in one of them not older than asked, so that whatever
 * the rollout does to it, a restore point close to now exists. A spec without stores has nothing to
 * check here (its own apply still takes a safety snapshot before a membership change or a minor
 * upgrade). etcdwright verifies each backup when it takes it, before it is complete in a store.
 */
public final class BackupFreshness {
    private BackupFreshness() {
    }

    /** Why {@code seen} does not meet {@code within} at {@code now}; empty when it does, or when the spec has no stores. */
    public static List<String> problems(BackupsSeen seen, Duration within, Instant now) {
        List<String> problems = new ArrayList<>();
        if (!(seen instanceof BackupsSeen.Looked looked)) {
            return problems;
        }
        Optional<BackupsSeen.StoreAnswer.Newest> newest = looked.newest();
        String unreachable = looked.stores().stream().filter(BackupsSeen.StoreAnswer.Unreachable.class::isInstance)
                .map(BackupsSeen.StoreAnswer.Unreachable.class::cast).map(u -> u.store() + " (" + u.why() + ")")
                .reduce((a, b) -> a + ", " + b).map(s -> "; not asked: " + s).orElse("");
        if (newest.isEmpty()) {
            problems.add("no complete backup in its stores" + unreachable + ": take one with 'etcdwright backup', or drop --backup-within");
            return problems;
        }
        Duration age = Duration.between(newest.get().name().time(), now);
        if (age.compareTo(within) > 0) {
            problems.add("its newest backup, " + newest.get().name() + " in " + newest.get().store() + ", is " + words(age)
                    + " old, more than --backup-within " + words(within) + unreachable + ": take one with 'etcdwright backup'");
        }
        return problems;
    }

    static String words(Duration d) {
        long minutes = d.toMinutes();
        if (minutes < 120) {
            return minutes + " min";
        }
        long hours = d.toHours();
        return hours < 48 ? hours + " h" : d.toDays() + " days";
    }
}
