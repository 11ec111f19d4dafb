package io.etcdwright.run.rollout;

import io.etcdwright.engine.spec.ClusterSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The sizes of a rollout's waves, {@code --waves 1,5,25%}, with Ansible's {@code serial} meaning:
 * each entry the size of the next wave, the last entry repeating; a percentage is of all the
 * clusters, rounded down, at least 1; a wave never takes more than is left, so the last one takes
 * the remainder (30% of 20 clusters: 6, 6, 6, 2).
 */
public final class WaveSizes implements Waves {
    private final String text;
    private final List<String> entries;

    private WaveSizes(String text, List<String> entries) {
        this.text = text;
        this.entries = entries;
    }

    public static WaveSizes parse(String text) {
        List<String> entries = new ArrayList<>();
        for (String e : text.split(",", -1)) {
            String t = e.strip();
            if (!t.matches("[1-9]\\d*%?") || (t.endsWith("%") && Integer.parseInt(t.substring(0, t.length() - 1)) > 100)) {
                throw new IllegalArgumentException("--waves " + text + ": '" + t + "' is not a positive count or a percentage");
            }
            entries.add(t);
        }
        return new WaveSizes(text, entries);
    }

    @Override
    public List<Wave> group(List<ClusterSpec> clusters) {
        return split(IntStream.range(0, clusters.size()).boxed().toList()).stream().map(w -> new Wave(Optional.empty(), w)).toList();
    }

    /** The sizes as given. */
    @Override
    public String describe() {
        return text;
    }

    public <T> List<List<T>> split(List<T> ordered) {
        List<List<T>> waves = new ArrayList<>();
        int next = 0;
        int i = 0;
        while (next < ordered.size()) {
            String e = entries.get(Math.min(i++, entries.size() - 1));
            int size = e.endsWith("%") ? Math.max(1, Integer.parseInt(e.substring(0, e.length() - 1)) * ordered.size() / 100)
                    : Integer.parseInt(e);
            int end = Math.min(ordered.size(), next + size);
            waves.add(List.copyOf(ordered.subList(next, end)));
            next = end;
        }
        return waves;
    }
}
