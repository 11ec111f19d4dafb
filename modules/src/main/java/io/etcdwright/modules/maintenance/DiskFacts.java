package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.facts.KeyValues;
import io.etcdwright.engine.facts.LaterProbe;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;

import java.util.List;
import java.util.OptionalLong;

/**
 * The file system etcd's data directory is on (or will be on): its size and free space, and how
 * long a small synchronous write takes there, etcd's WAL fsync in miniature (etcd's advice: WAL
 * fsync p99 under 10 ms). Empty when not measured (facts recorded before this probe, a read-only
 * file system).
 *
 * @param totalBytes       the file system's size
 * @param freeBytes        space available to unprivileged writers (df's "Available")
 * @param fsyncMicros      mean time of one 8 KiB write with O_DSYNC, of {@link #WRITES}
 */
public record DiskFacts(OptionalLong totalBytes, OptionalLong freeBytes, OptionalLong fsyncMicros) {
    /** Writes of the probe: enough to average out one slow write, few enough to stay well under a second. */
    public static final int WRITES = 5;
    public static final DiskFacts UNKNOWN = new DiskFacts(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

    /**
     * $1 the data directory. The probe file goes beside the data directory (never inside it), on the
     * same file system: in the data directory's parent, or in the data directory itself only when it
     * is a mount point of its own; it is removed at once. Paths are absolute and normalized, so the
     * shell cuts off a parent itself ({@code ${p%/*}}), and dd reports its own time ("... copied,
     * 0.0123 s, ..."): every process the facts script starts is about a millisecond of the host's
     * CPU, on every host of every plan.
     */
    private static final String SCRIPT = "d=$1\n"
            + "p=$d; while [ ! -d \"$p\" ]; do u=${p%/*}; p=${u:-/}; done\n"
            // df -P: a header of seven words, then device, size, used, available, capacity, mount point.
            + "set -- $(df -PB1 -- \"$p\"); [ \"$#\" -ge 11 ] && echo \"total_bytes=$9\" && echo \"free_bytes=${11}\"\n"
            + "t=$p; u=${d%/*}; u=${u:-/}\n"
            + "if [ \"$p\" = \"$d\" ]; then set -- $(stat -c %d -- \"$d\" \"$u\"); [ \"$1\" = \"$2\" ] && t=$u; fi\n"
            // dd makes the file itself, and only a new one (conv=excl: O_EXCL, which follows no link
            // put there), so no mktemp; it is removed unless it was there before dd (not this run's).
            + "f=$t/.etcdwright-fsync.$$\n"
            + "r=$(dd if=/dev/zero of=\"$f\" bs=8k count=" + WRITES + " oflag=dsync conv=excl 2>&1) && case $r in\n"
            + "  *' copied, '*' s,'*) r=${r##*copied, }; echo \"fsync_total_seconds=${r%% s,*}\" ;;\n"
            + "esac\n"
            + "case $r in *'File exists'*) ;; *) rm -f -- \"$f\" ;; esac\n";

    public static Probe<DiskFacts> probe(EtcdLayout layout) {
        return new LaterProbe<>(new Probe<>() {
            @Override
            public String name() {
                return "etcd_disk";
            }

            @Override
            public String script() {
                return SCRIPT;
            }

            @Override
            public List<String> arguments() {
                return List.of(layout.dataDir());
            }

            @Override
            public DiskFacts parse(String output) {
                KeyValues kv = KeyValues.parse(output);
                // fsync_total_ns: facts recorded before dd's own time was read.
                OptionalLong fsync = kv.getLong("fsync_total_ns").map(ns -> OptionalLong.of(ns / WRITES / 1000))
                        .orElseGet(() -> kv.get("fsync_total_seconds").flatMap(DiskFacts::seconds)
                                .map(seconds -> OptionalLong.of((long) (seconds * 1_000_000 / WRITES)))
                                .orElse(OptionalLong.empty()));
                return new DiskFacts(optional(kv.getLong("total_bytes")), optional(kv.getLong("free_bytes")), fsync);
            }
        }, "");
    }

    private static java.util.Optional<Double> seconds(String text) {
        try {
            double seconds = Double.parseDouble(text.strip());
            return seconds >= 0 && Double.isFinite(seconds) ? java.util.Optional.of(seconds) : java.util.Optional.empty();
        } catch (NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }

    private static OptionalLong optional(java.util.Optional<Long> value) {
        return value.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    /** Free space as a percentage of the file system, when both are known. */
    public OptionalLong freePercent() {
        if (totalBytes.isEmpty() || freeBytes.isEmpty() || totalBytes.getAsLong() <= 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(freeBytes.getAsLong() * 100 / totalBytes.getAsLong());
    }
}
