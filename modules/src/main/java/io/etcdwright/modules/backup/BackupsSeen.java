package io.etcdwright.modules.backup;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the spec's backup stores offer a restore, looked up when a plan finds the cluster without
 * quorum (a restore is then one of the ways out, and the operator needs to know from which backup,
 * and how old it is). Each store answers with its newest complete backup, that it holds none, or
 * why it could not be asked; a plan made offline does not look.
 */
public sealed interface BackupsSeen {

    /** Looks the stores up; called only when a plan needs it (a cluster without quorum), bounded in time. */
    @FunctionalInterface
    interface Lookup {
        BackupsSeen look();

        /** For plans that do not look (offline from recorded facts). */
        static Lookup notLooked(String why) {
            return () -> new NotLooked(why);
        }
    }

    /** The spec names no backup store. */
    record NoStores() implements BackupsSeen {
    }

    /** Not looked up, and why ("the plan is made offline from recorded facts"). */
    record NotLooked(String why) implements BackupsSeen {
        public NotLooked {
            Objects.requireNonNull(why, "why");
        }
    }

    /** Every store of the spec, in its order, with what it answered. */
    record Looked(List<StoreAnswer> stores) implements BackupsSeen {
        public Looked {
            stores = List.copyOf(stores);
        }

        /** The newest complete backup of all the stores. */
        public Optional<StoreAnswer.Newest> newest() {
            return stores.stream().filter(StoreAnswer.Newest.class::isInstance).map(StoreAnswer.Newest.class::cast)
                    .max(Comparator.comparing(StoreAnswer.Newest::name));
        }
    }

    /** What one store answered. */
    sealed interface StoreAnswer {
        /** The store's name in the spec. */
        String store();

        /** Its newest complete backup (the revision when etcdwright's meta says it). */
        record Newest(String store, BackupName name, OptionalLong revision) implements StoreAnswer {
        }

        /** It answered, and holds no complete backup. */
        record Empty(String store) implements StoreAnswer {
        }

        /** It could not be asked: down, refused, or no answer in time. */
        record Unreachable(String store, String why) implements StoreAnswer {
        }
    }

    /**
     * One sentence for an operator choosing a way out: the newest backup with its store and age, the
     * stores that hold none and those that could not be asked.
     */
    static String describe(BackupsSeen seen, Instant now) {
        if (seen instanceof NoStores) {
            return "the spec names no backup store (backup.stores), so no backup of this cluster is known here: a restore"
                    + " needs a snapshot file or a backup directory you have";
        }
        if (seen instanceof NotLooked notLooked) {
            return "the backup stores were not looked at (" + notLooked.why() + "): 'etcdwright backups list' shows them";
        }
        Looked looked = (Looked) seen;
        StringBuilder out = new StringBuilder();
        Optional<StoreAnswer.Newest> newest = looked.newest();
        if (newest.isPresent()) {
            StoreAnswer.Newest n = newest.get();
            out.append("the newest backup is ").append(n.name()).append(" in store '").append(n.store()).append("', taken ")
                    .append(age(Duration.between(n.name().time(), now))).append(" ago")
                    .append(n.revision().isPresent() ? " at revision " + n.revision().getAsLong() : "")
                    .append(" (writes since then are lost)");
        } else {
            out.append("no store holds a complete backup of this cluster");
        }
        List<String> empty = looked.stores().stream().filter(StoreAnswer.Empty.class::isInstance)
                .map(s -> "'" + s.store() + "'").toList();
        if (!empty.isEmpty() && newest.isPresent()) {
            out.append("; no backup in ").append(String.join(", ", empty));
        } else if (!empty.isEmpty()) {
            out.append(" (").append(String.join(", ", empty)).append(empty.size() == 1 ? " holds" : " hold").append(" none)");
        }
        for (StoreAnswer s : looked.stores()) {
            if (s instanceof StoreAnswer.Unreachable u) {
                out.append("; store '").append(u.store()).append("' could not be asked (").append(u.why())
                        .append("), it may hold a newer one");
            }
        }
        return out.toString();
    }

    /** "3 minutes", "5 hours", "2 days": how long ago, as an operator reads it. */
    static String age(Duration d) {
        long minutes = Math.max(0, d.toMinutes());
        if (minutes < 1) {
            return "less than a minute";
        }
        if (minutes < 120) {
            return minutes + (minutes == 1 ? " minute" : " minutes");
        }
        long hours = d.toHours();
        if (hours < 48) {
            return hours + " hours";
        }
        return d.toDays() + " days";
    }
}
