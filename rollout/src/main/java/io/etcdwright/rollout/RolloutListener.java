package io.etcdwright.rollout;

import io.etcdwright.engine.exec.ProgressListener;
import io.etcdwright.engine.plan.Plan;

/** What a running rollout tells the operator: its own lines, and each cluster's plan and steps. */
public interface RolloutListener {
    /** A line of the rollout's own: a wave started, a cluster's state, a gate's check, why it stopped. */
    void line(String line);

    /** {@code cluster}'s plan, made under its lock, before its steps run. */
    void planned(String cluster, Plan plan);

    /** Where {@code cluster}'s steps report their progress. */
    ProgressListener progress(String cluster);
}
