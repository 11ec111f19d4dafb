package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.spec.EtcdSettings;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.FactsView;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.restore.WriteFence;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the plan says about the health etcd needs beneath it: alarms, disk space, disk latency,
 * clocks. A real NOSPACE alarm, a disk nearly full, slow synchronous writes and clocks apart are
 * warnings (the fix may be this very apply: a bigger quota, a new host); a file system with no room
 * left for etcd's next WAL file refuses the plan, since any step could be the one that fills it.
 * etcdwright's own write fence (a NOSPACE alarm under {@link WriteFence#MEMBER_ID}) is not a disk
 * problem and is not reported here: the plan lifts it.
 */
public final class MaintenanceChecks {
    /** etcd preallocates each WAL file at 64 MiB; an install unpacks about as much. */
    public static final long MIN_FREE_BYTES = 128L << 20;
    /** Below this much free space left, the plan warns. */
    public static final int LOW_FREE_PERCENT = 10;
    /** etcd's advice: WAL fsync p99 below 10 ms; a mean above it is slower still. */
    public static final long SLOW_FSYNC_MICROS = 10_000;
    /** etcd itself warns of peers' clocks more than 1 s apart (rafthttp's prober). */
    public static final long CLOCK_SKEW_MILLIS = 1_000;
    /** etcd's default quota-backend-bytes: 2 GiB. */
    public static final long DEFAULT_QUOTA_BYTES = 2L << 30;
    /** A database above this share of its quota is about to raise NOSPACE. */
    public static final int NEAR_QUOTA_PERCENT = 80;

    private MaintenanceChecks() {
    }

    public record Findings(List<String> warnings, List<Refusal> refusals) {
        public Findings {
            warnings = List.copyOf(warnings);
            refusals = List.copyOf(refusals);
        }
    }

    /** The quota etcd enforces: the spec's quota-backend-bytes, or etcd's default (0 means the default too). */
    public static long quotaBytes(EtcdSettings etcd) {
        Object q = etcd.settings().get("quota-backend-bytes");
        long quota = q instanceof Number n ? n.longValue() : 0;
        return quota > 0 ? quota : DEFAULT_QUOTA_BYTES;
    }

    public static Findings of(Map<String, EtcdHostFacts> facts, Optional<ClusterStatus> cluster, long quotaBytes) {
        List<String> warnings = new ArrayList<>();
        List<Refusal> refusals = new ArrayList<>();
        for (MemberFacts.Alarm alarm : realAlarms(cluster)) {
            String member = memberName(cluster, alarm.memberId());
            if (alarm.type().equals("NOSPACE")) {
                warnings.add("etcd's NOSPACE alarm is raised on member " + member + ": the cluster refuses writes until it is"
                        + " disarmed. Free space in the database (compact old revisions, delete keys), then run 'etcdwright"
                        + " defrag', which disarms it once every database is below the quota (" + FactsView.bytes(quotaBytes)
                        + "); or raise etcd.settings.quota-backend-bytes and apply");
            } else {
                warnings.add("etcd's " + alarm.type() + " alarm is raised on member " + member + ": its data differs from the"
                        + " others'. Do not disarm it: replace that member (remove it from members, apply, add it back)");
            }
        }
        facts.forEach((host, f) -> {
            DiskFacts disk = f.disk();
            OptionalLong free = disk.freeBytes();
            if (free.isPresent() && free.getAsLong() < MIN_FREE_BYTES) {
                refusals.add(new Refusal("disk-full", host, "the file system of etcd's data directory has "
                        + FactsView.bytes(free.getAsLong()) + " free, less than the " + FactsView.bytes(MIN_FREE_BYTES)
                        + " etcd needs for its next WAL file and an install needs to unpack",
                        "free space on " + host + " (old releases in /opt/etcd, logs), or grow the file system, then plan again"));
            } else if (disk.freePercent().isPresent() && disk.freePercent().getAsLong() < LOW_FREE_PERCENT) {
                warnings.add(host + ": the data directory's file system is nearly full (" + FactsView.bytes(free.getAsLong())
                        + " free, " + disk.freePercent().getAsLong() + "%); when it fills, etcd stops");
            }
            long db = f.member().dbSize().orElse(0);
            if (free.isPresent() && db > 0 && free.getAsLong() < db) {
                warnings.add(host + ": less free space (" + FactsView.bytes(free.getAsLong()) + ") than the database's size ("
                        + FactsView.bytes(db) + "): a defragmentation or a snapshot on the host has no room for its copy");
            }
            if (db > 0 && db * 100 / quotaBytes >= NEAR_QUOTA_PERCENT) {
                warnings.add(host + ": the database (" + FactsView.bytes(db) + ") is at " + db * 100 / quotaBytes
                        + "% of its quota (" + FactsView.bytes(quotaBytes) + "); at 100% etcd raises NOSPACE and refuses writes."
                        + " 'etcdwright defrag' gives back what compaction freed");
            }
            if (disk.fsyncMicros().isPresent() && disk.fsyncMicros().getAsLong() > SLOW_FSYNC_MICROS) {
                warnings.add(host + ": a synchronous 8 KiB write takes " + disk.fsyncMicros().getAsLong() / 1000 + " ms on the data"
                        + " directory's file system; etcd advises WAL fsync under 10 ms (99th percentile), or leaders time"
                        + " out and elections follow. Put the data directory on a faster disk (SSD, not shared)");
            }
            if (Math.abs(f.clockSkewMillis()) > CLOCK_SKEW_MILLIS) {
                warnings.add(host + ": its clock is " + f.clockSkewMillis() + " ms " + (f.clockSkewMillis() > 0 ? "ahead of" : "behind")
                        + " this workstation's; etcd warns of peers more than 1 s apart, leases and certificates depend on"
                        + " time. Run NTP (chrony, systemd-timesyncd) on every host");
            }
        });
        return new Findings(warnings, refusals);
    }

    /** The cluster's alarms, etcdwright's own write fence left out. */
    public static List<MemberFacts.Alarm> realAlarms(Optional<ClusterStatus> cluster) {
        String fence = Long.toHexString(WriteFence.MEMBER_ID);
        return cluster.map(c -> c.alarms().stream().filter(a -> !a.memberId().equals(fence)).toList()).orElse(List.of());
    }

    static String memberName(Optional<ClusterStatus> cluster, String memberId) {
        return cluster.flatMap(c -> c.members().stream().filter(m -> m.id().equals(memberId)).map(MemberStatus::name)
                .filter(n -> !n.isEmpty()).findFirst()).map(n -> n + " (" + memberId + ")").orElse(memberId);
    }
}
