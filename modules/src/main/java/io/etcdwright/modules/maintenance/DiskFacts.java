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
     * is a mount point of its own; it is removed at once.
     */
    private static final String SCRIPT = "d=$1\n"
            + "p=$d; while [ ! -d \"$p\" ]; do p=$(dirname -- \"$p\"); done\n"
            + "df -PB1 -- \"$p\" | awk 'NR==2 {print \"total_bytes=\" $2; print \"free_bytes=\" $4}'\n"
            + "t=$p\n"
            + "if [ \"$p\" = \"$d\" ] && [ \"$(stat -c %d -- \"$d\")\" = \"$(stat -c %d -- \"$(dirname -- \"$d\")\")\" ]; then t=$(dirname -- \"$d\"); fi\n"
            + "if f=$(mktemp -p \"$t\" .etcdwright-fsync.XXXXXX); then\n"
            + "  s=$(date +%s%N)\n"
            + "  if dd if=/dev/zero of=\"$f\" bs=8k count=" + WRITES + " oflag=dsync 2>/dev/null; then e=$(date +%s%N); echo \"fsync_total_ns=$((e - s))\"; fi\n"
            + "  rm -f -- \"$f\"\n"
            + "fi\n";

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
                OptionalLong fsync = kv.getLong("fsync_total_ns").map(ns -> OptionalLong.of(ns / WRITES / 1000))
                        .orElse(OptionalLong.empty());
                return new DiskFacts(optional(kv.getLong("total_bytes")), optional(kv.getLong("free_bytes")), fsync);
            }
        }, "");
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
