package io.etcdwright.rollout;

/** Where one cluster of a rollout is, as its record says (docs/rollouts.md). */
public enum ClusterState {
    /** Not started: its wave has not come, or it is waiting its turn in the wave. */
    WAITING,
    /** Its apply is running (a rollout killed here resumes it: its own apply converges). */
    APPLYING,
    /** Applied; its health gate is being checked. */
    VALIDATING,
    /** Applied and validated; the soak is running before the last check. */
    SOAKING,
    /** Applied, validated and soaked: not applied again when the rollout resumes. */
    DONE,
    /** Its apply or its gate failed: counted against the wave's failure budget. */
    FAILED,
    /** Never started: the rollout was aborted, or stopped before its wave. */
    SKIPPED;

    /** As the reports and the JSON write it. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Started and not finished: what a resumed rollout picks up first. */
    public boolean inProgress() {
        return this == APPLYING || this == VALIDATING || this == SOAKING;
    }
}
