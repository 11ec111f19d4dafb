package io.etcdwright.run.rollout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * One shard of a wave, {@code index} of {@code total} from 1: a CI matrix job or a Kubernetes Indexed
 * Job's pod runs one. The split is deterministic (the wave's clusters sorted by name, dealt round
 * robin), so every shard computes the same split from the same inputs and each cluster falls in
 * exactly one shard.
 */
public record Shard(int index, int total) {
    public Shard {
        if (total < 1) {
            throw new IllegalArgumentException("shards: " + total + " is not a positive number of shards");
        }
        if (index < 1 || index > total) {
            throw new IllegalArgumentException("shard " + index + "/" + total + ": the index runs from 1 to " + total);
        }
    }

    /** {@code --shard I/N}. */
    public static Shard parse(String text) {
        String t = text.strip();
        if (!t.matches("\\d{1,6}/\\d{1,6}")) {
            throw new IllegalArgumentException("--shard " + text + ": write INDEX/TOTAL, from 1 (2/4)");
        }
        int slash = t.indexOf('/');
        return new Shard(Integer.parseInt(t.substring(0, slash)), Integer.parseInt(t.substring(slash + 1)));
    }

    /**
     * The shard asked for: {@code --shard I/N}; else GitLab's {@code CI_NODE_INDEX}/{@code CI_NODE_TOTAL}
     * (1-based); else a Kubernetes Indexed Job's {@code JOB_COMPLETION_INDEX} (0-based) with
     * {@code --shards N}; else none (the whole wave).
     */
    public static Optional<Shard> of(Optional<String> option, OptionalInt shards, Map<String, String> env) {
        if (option.isPresent()) {
            return Optional.of(parse(option.get()));
        }
        String node = env.get("CI_NODE_INDEX");
        if (node != null && !node.isBlank()) {
            String total = env.get("CI_NODE_TOTAL");
            if (total == null || total.isBlank()) {
                throw new IllegalArgumentException("CI_NODE_INDEX is set without CI_NODE_TOTAL: give --shard I/N");
            }
            return Optional.of(parse(node.strip() + "/" + total.strip()));
        }
        String completion = env.get("JOB_COMPLETION_INDEX");
        if (completion != null && !completion.isBlank()) {
            if (shards.isEmpty()) {
                throw new IllegalArgumentException("JOB_COMPLETION_INDEX is " + completion + " but --shards is not given:"
                        + " give the Job's completions as --shards N");
            }
            if (!completion.strip().matches("\\d{1,6}")) {
                throw new IllegalArgumentException("JOB_COMPLETION_INDEX " + completion + " is not an index");
            }
            return Optional.of(new Shard(Integer.parseInt(completion.strip()) + 1, shards.getAsInt()));
        }
        if (shards.isPresent()) {
            throw new IllegalArgumentException("--shards " + shards.getAsInt() + " without JOB_COMPLETION_INDEX: give --shard I/N");
        }
        return Optional.empty();
    }

    /** This shard's clusters of {@code wave}: sorted by {@code name}, the k-th (from 0) to shard k mod N + 1. */
    public <T> List<T> take(List<T> wave, Function<T, String> name) {
        List<T> sorted = new ArrayList<>(wave);
        sorted.sort(Comparator.comparing(name));
        List<T> mine = new ArrayList<>();
        for (int k = 0; k < sorted.size(); k++) {
            if (k % total == index - 1) {
                mine.add(sorted.get(k));
            }
        }
        return mine;
    }

    @Override
    public String toString() {
        return index + "/" + total;
    }
}
