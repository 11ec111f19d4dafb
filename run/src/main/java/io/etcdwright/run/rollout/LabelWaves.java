package io.etcdwright.run.rollout;

import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.LabelSyntax;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code --waves-by LABEL}: one wave a value of the specs' label {@code cluster.labels.LABEL}, the
 * waves in the order their values first appear among the clusters as given (the order of -f, a
 * directory's files by name), so the operator orders the sites by the order of the specs; the clusters
 * of a wave in that order too. A spec without the label has no wave: refused, naming the spec.
 */
public record LabelWaves(String label) implements Waves {
    public LabelWaves {
        if (!LabelSyntax.isKey(label)) {
            throw new IllegalArgumentException("--waves-by " + label + ": not " + LabelSyntax.KEY_RULE);
        }
    }

    @Override
    public List<Wave> group(List<ClusterSpec> clusters) {
        Map<String, List<Integer>> byValue = new LinkedHashMap<>();
        List<Problem> unlabelled = new ArrayList<>();
        for (int i = 0; i < clusters.size(); i++) {
            ClusterSpec spec = clusters.get(i);
            String value = spec.labels().get(label);
            if (value == null) {
                unlabelled.add(Problem.error(Location.ofFile(spec.file()), "cluster.labels",
                        "no label '" + label + "' (--waves-by " + label + ")"));
            } else {
                byValue.computeIfAbsent(value, v -> new ArrayList<>()).add(i);
            }
        }
        if (!unlabelled.isEmpty()) {
            // Every spec without it at once, as every other input problem is reported.
            throw new InvalidInputException(unlabelled);
        }
        return byValue.entrySet().stream().map(e -> new Wave(Optional.of(label + "=" + e.getKey()), e.getValue())).toList();
    }

    @Override
    public String describe() {
        return "by label " + label;
    }
}
