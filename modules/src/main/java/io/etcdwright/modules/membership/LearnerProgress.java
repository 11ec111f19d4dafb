package io.etcdwright.modules.membership;

/**
 * How far a learner's log has come: its applied index against the leader's raft index. etcd's
 * leader promotes a learner whose raft progress (Match) has reached 90% of its own; the applied
 * index is what a client can read, and trails Match a little, so this is an estimate: etcd has the
 * last word (see {@link MembershipChanges#promote}).
 */
public record LearnerProgress(long appliedIndex, long leaderRaftIndex) {
    /** etcd promotes a learner whose log has reached 90% of the leader's. */
    static final double IN_SYNC_FRACTION = 0.9;

    /** Whether etcd would likely promote it now. */
    public boolean caughtUp() {
        return appliedIndex >= (long) Math.ceil(IN_SYNC_FRACTION * leaderRaftIndex);
    }

    /** Whole percent of the leader's log, at most 100 (a leader that just restarted may be behind for a moment). */
    public int percent() {
        if (leaderRaftIndex <= 0) {
            return 100;
        }
        return (int) Math.min(100, appliedIndex * 100 / leaderRaftIndex);
    }

    /** One line for an operator. */
    public String describe() {
        return "applied index " + appliedIndex + " of the leader's " + leaderRaftIndex + " (" + percent() + "%): "
                + (caughtUp() ? "caught up, can be promoted" : "catching up; etcd promotes at " + Math.round(IN_SYNC_FRACTION * 100) + "%");
    }
}
