package io.etcdwright.cli;

import io.etcdwright.rollout.RolloutRecord;
import io.etcdwright.run.rollout.FailureBudget;
import io.etcdwright.run.rollout.LabelWaves;
import io.etcdwright.run.rollout.WaveSizes;
import io.etcdwright.run.rollout.Waves;
import picocli.CommandLine.Option;

import java.time.Duration;

/** How a rollout's waves are made, gated and budgeted (docs/rollouts.md): the options of 'apply' over a fleet and of 'rollout plan'. */
final class RolloutOptions {
    /** With no --waves: one cluster first (a canary), then every other one. */
    static final String DEFAULT_WAVES = "1,100%";

    @Option(names = "--waves", paramLabel = "SIZES", description = "Clusters a wave, as Ansible's serial: counts or percentages,"
            + " the last one repeating (1,5,25%%). Default: 1 cluster, then all the others.")
    String waves;

    @Option(names = "--waves-by", paramLabel = "LABEL", description = "One wave a value of this label of the specs (cluster.labels),"
            + " in the order each value first appears among the clusters given (site: dc1's, then dc2's). Not with --waves.")
    String wavesBy;

    @Option(names = "--max-failures", defaultValue = "0", paramLabel = "N|P%",
            description = "Clusters of a wave that may fail before the rollout stops (default: ${DEFAULT-VALUE}).")
    String maxFailures;

    @Option(names = "--validate-count", defaultValue = "2", paramLabel = "N",
            description = "Health checks of each applied cluster before the next wave (default: ${DEFAULT-VALUE}).")
    int validateCount;

    @Option(names = "--validate-interval", defaultValue = "10s", paramLabel = "DURATION",
            description = "Time between a cluster's health checks (default: ${DEFAULT-VALUE}).")
    String validateInterval;

    @Option(names = "--soak", defaultValue = "0", paramLabel = "DURATION",
            description = "Time each applied cluster runs before its last health check (default: ${DEFAULT-VALUE}).")
    String soak;

    @Option(names = "--pause-after-wave", description = "Pause after every wave but the last: 'etcdwright rollout resume' starts the next.")
    boolean pauseAfterWave;

    @Option(names = "--backup-within", paramLabel = "DURATION", description = "Start only if every cluster whose spec names backup"
            + " stores has a complete backup in one of them not older than this (24h, 90m).")
    String backupWithin;

    /** The backup precondition asked for, checked as the other options are. */
    java.util.Optional<Duration> backupWithin() {
        return backupWithin == null ? java.util.Optional.empty() : java.util.Optional.of(DurationText.parse("--backup-within", backupWithin));
    }

    @Option(names = "--wave", paramLabel = "K", description = "Run wave K only, as one of its shards (--shard): the gate of wave K-1"
            + " is checked from the hosts first (a CI stage or a Kubernetes Job a wave; docs/rollouts.md). Needs --rollout.")
    Integer wave;

    @Option(names = "--shard", paramLabel = "I/N", description = "With --wave: this shard of the wave (from 1). Default: GitLab's"
            + " CI_NODE_INDEX/CI_NODE_TOTAL, or an Indexed Job's JOB_COMPLETION_INDEX with --shards.")
    String shard;

    @Option(names = "--shards", paramLabel = "N", description = "With --wave and JOB_COMPLETION_INDEX: the Job's completions.")
    Integer shards;

    @Option(names = "--rollout", paramLabel = "NAME", description = "The rollout's name (default: rollout-DATE-TIME).")
    String name;

    /** Some option only a rollout takes was given: one cluster is rolled out too (a rollout of one, with its gate and record). */
    boolean asked() {
        return waves != null || wavesBy != null || backupWithin != null || wave != null || shard != null || shards != null
                || !"0".equals(maxFailures) || validateCount != 2 || !"10s".equals(validateInterval) || !"0".equals(soak)
                || pauseAfterWave || name != null;
    }

    /** How the clusters fall into waves, by sizes or by a label: checked before any host is contacted. */
    Waves grouping() {
        if (waves != null && wavesBy != null) {
            throw new IllegalArgumentException("--waves " + waves + " and --waves-by " + wavesBy + ": give one, the sizes of the waves"
                    + " or the label whose values are the waves");
        }
        return wavesBy != null ? new LabelWaves(wavesBy) : WaveSizes.parse(waves == null ? DEFAULT_WAVES : waves);
    }

    /** The rollout's settings, every option checked. */
    RolloutRecord.Settings settings(int parallel) {
        Waves grouping = grouping();
        FailureBudget.parse(maxFailures);
        ConnectionOptions.positive("--validate-count", validateCount);
        backupWithin();
        Duration interval = DurationText.parse("--validate-interval", validateInterval);
        Duration soakFor = DurationText.parse("--soak", soak);
        return new RolloutRecord.Settings(grouping.describe(),
                grouping instanceof LabelWaves byLabel ? java.util.Optional.of(byLabel.label()) : java.util.Optional.empty(), parallel,
                maxFailures, validateCount, interval, soakFor, pauseAfterWave);
    }

    String id() {
        if (name != null) {
            return io.etcdwright.rollout.RolloutRecords.checkId(name);
        }
        return "rollout-" + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(java.time.ZoneOffset.UTC)
                .format(java.time.Instant.now());
    }
}
