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
 * clocks. A CORRUPT alarm on a member the spec keeps refuses the plan ({@link #corrupt}). A real NOSPACE alarm, a disk nearly full, slow synchronous writes and clocks apart are
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

    /** etcd's guide to a CORRUPT alarm: which member, and the ways to restore it. */
    public static final String CORRUPTION_GUIDE = "https://etcd.io/docs/v3.6/op-guide/data_corruption/";

    /**
     * @param specPeerUrls the peer URLs of the spec's members: a member a CORRUPT alarm names that the
     *                     spec no longer lists is being replaced by this plan, which is not refused
     */
    public static Findings of(Map<String, EtcdHostFacts> facts, Optional<ClusterStatus> cluster, long quotaBytes,
                              java.util.Set<String> specPeerUrls) {
        List<String> warnings = new ArrayList<>();
        List<Refusal> refusals = new ArrayList<>();
        for (MemberFacts.Alarm alarm : realAlarms(cluster)) {
            String member = memberName(cluster, alarm.memberId());
            if (alarm.type().equals("CORRUPT")) {
                corrupt(alarm, cluster, specPeerUrls).ifPresentOrElse(refusals::add, () -> warnings.add(corruptWarning(alarm, cluster)));
            } else if (alarm.type().equals("NOSPACE")) {
                warnings.add("etcd's NOSPACE alarm is raised on member " + member + ": the cluster refuses writes until it is"
                        + " disarmed. Free space in the database (compact old revisions, delete keys), then run 'etcdwright"
                        + " defrag', which disarms it once every database is below the quota (" + FactsView.bytes(quotaBytes)
                        + "); or raise etcd.settings.quota-backend-bytes and apply");
            } else {
                warnings.add("etcd's " + alarm.type() + " alarm is raised on member " + member + " (an alarm etcdwright does not"
                        + " know): see etcd's logs on that member's host");
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

    /**
     * A CORRUPT alarm refuses the plan while the member it names is still a member the spec keeps:
     * etcd's hash checks found its data differs from the others', so restarting it (any rolling
     * change would) serves the diverged data again, and disarming hides it. The member is replaced
     * instead, as etcd's guide says: removed, its data moved aside, added back empty to take a
     * snapshot from the leader. An alarm on member 0 is etcd saying no majority agreed on a hash:
     * no member can be trusted over the others, and the way back is a restore.
     */
    static Optional<Refusal> corrupt(MemberFacts.Alarm alarm, Optional<ClusterStatus> cluster, java.util.Set<String> specPeerUrls) {
        if (unidentified(alarm)) {
            return Optional.of(new Refusal("corrupt-cluster", "cluster", "etcd raised a CORRUPT alarm naming no member (member"
                    + " id 0): its corruption check found the members' data differ with no majority agreeing, so no member"
                    + " can be trusted over the others, and the cluster refuses writes",
                    "do not restart or disarm anything yet: restore the cluster from the newest backup taken before the"
                            + " divergence ('etcdwright restore', docs/backups.md; etcd's \"restore whole cluster\", "
                            + CORRUPTION_GUIDE + "), which rebuilds every member from one snapshot; the alarm goes with the"
                            + " old data"));
        }
        Optional<MemberStatus> named = cluster.flatMap(c -> c.members().stream().filter(m -> m.id().equals(alarm.memberId()))
                .findFirst());
        // By address and port: a plan may move the scheme (plain HTTP to TLS), never who the member is.
        java.util.Set<String> spec = specPeerUrls.stream().map(MaintenanceChecks::withoutScheme).collect(java.util.stream.Collectors.toSet());
        boolean kept = named.map(m -> m.peerUrls().stream().map(MaintenanceChecks::withoutScheme).anyMatch(spec::contains))
                .orElse(false);
        if (!kept) {
            return Optional.empty();
        }
        String member = memberName(cluster, alarm.memberId());
        String name = named.map(MemberStatus::name).filter(n -> !n.isEmpty()).orElse(alarm.memberId());
        return Optional.of(new Refusal("corrupt-member", "member " + name, "etcd raised a CORRUPT alarm on member " + member
                + ": its corruption check found this member's data differs from the others' (diverged: a disk or a bug"
                + " lost or changed what it applied), and the cluster refuses writes until the alarm is disarmed. It must be"
                + " replaced, not restarted: a restart serves the same data again",
                "replace it as etcd's guide does (" + CORRUPTION_GUIDE + "): 1. remove " + name + " from the spec's members"
                        + " and apply (etcd's member remove; its etcd stops, its data is kept); 2. put " + name + " back and"
                        + " apply: it joins afresh as a learner, its old data moved aside (never deleted), and takes a snapshot"
                        + " from the leader; 3. then disarm the alarm on any member's host: etcdctl alarm disarm (with the"
                        + " environment 'etcdwright client-env' prints); etcdwright never disarms CORRUPT itself"));
    }

    /** The alarm of a member this plan does not keep, or that is gone already: what is left to do. */
    private static String corruptWarning(MemberFacts.Alarm alarm, Optional<ClusterStatus> cluster) {
        boolean listed = cluster.map(c -> c.members().stream().anyMatch(m -> m.id().equals(alarm.memberId()))).orElse(false);
        String member = memberName(cluster, alarm.memberId());
        return "etcd's CORRUPT alarm is raised on member " + member + (listed
                ? ", which this plan removes: put its host back in members afterwards to add it afresh (its old data moved"
                + " aside)"
                : ", which is no longer a member") + "; the cluster refuses writes until the alarm is disarmed: once the member"
                + " is replaced, run etcdctl alarm disarm on a member's host (" + CORRUPTION_GUIDE + ")";
    }

    private static String withoutScheme(String url) {
        int at = url.indexOf("://");
        return at < 0 ? url : url.substring(at + 3);
    }

    /** etcd's member id 0 (a gateway leaves the field out): the check could not tell which member diverged. */
    private static boolean unidentified(MemberFacts.Alarm alarm) {
        return alarm.memberId().isEmpty() || alarm.memberId().equals("0");
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
