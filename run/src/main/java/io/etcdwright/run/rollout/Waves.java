package io.etcdwright.run.rollout;

import io.etcdwright.engine.spec.ClusterSpec;

import java.util.List;
import java.util.Optional;

/**
 * How a rollout's clusters fall into waves (docs/rollouts.md): by sizes ({@code --waves 1,5,25%},
 * {@link WaveSizes}) or one wave a value of a label of the specs ({@code --waves-by site},
 * {@link LabelWaves}). Either way every cluster is in exactly one wave, the clusters of a wave keep
 * the order given, and the waves depend on the specs alone, so every shard of a wave
 * ({@code --wave K --shard I/N}) computes the same waves as the rollout run whole.
 */
public sealed interface Waves permits WaveSizes, LabelWaves {
    /**
     * One wave: its clusters as indices into the list given, in that order, and the label value that
     * makes it ({@code site=dc1}) when it is one.
     */
    record Wave(Optional<String> label, List<Integer> clusters) {
        public Wave {
            clusters = List.copyOf(clusters);
        }
    }

    /**
     * The waves of {@code clusters}, given in the rollout's order.
     *
     * @throws io.etcdwright.engine.source.InvalidInputException when a spec cannot be put in a wave
     *         (it lacks the label): checked before any host is contacted
     */
    List<Wave> group(List<ClusterSpec> clusters);

    /** As the rollout's record and plan say it: {@code 1,5,25%}, or {@code by label site}. */
    String describe();
}
