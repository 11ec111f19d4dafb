package io.etcdwright.engine.exec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Ansible's play recap: per host, how many steps were ok, changed, failed, skipped, unreachable. */
public record Recap(List<StepResult> results) {
    public record HostTally(int ok, int changed, int failed, int skipped, int unreachable) {
        HostTally add(StepResult.Status status) {
            return switch (status) {
                case OK -> new HostTally(ok + 1, changed, failed, skipped, unreachable);
                case CHANGED -> new HostTally(ok, changed + 1, failed, skipped, unreachable);
                case FAILED -> new HostTally(ok, changed, failed + 1, skipped, unreachable);
                case SKIPPED -> new HostTally(ok, changed, failed, skipped + 1, unreachable);
                case UNREACHABLE -> new HostTally(ok, changed, failed, skipped, unreachable + 1);
            };
        }
    }

    public Map<String, HostTally> byHost() {
        Map<String, HostTally> tallies = new LinkedHashMap<>();
        for (StepResult r : results) {
            tallies.merge(r.step().target(), new HostTally(0, 0, 0, 0, 0).add(r.status()),
                    (a, b) -> a.add(r.status()));
        }
        return tallies;
    }

    public boolean succeeded() {
        return results.stream().allMatch(r -> r.status() == StepResult.Status.OK
                || r.status() == StepResult.Status.CHANGED);
    }

    public boolean changedAnything() {
        return results.stream().anyMatch(r -> r.status() == StepResult.Status.CHANGED);
    }
}
