package io.etcdwright.engine.exec;

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

    /** Cluster-wide steps first, then hosts in natural order (h2 before h10). */
    public Map<String, HostTally> byHost() {
        return byHost(List.of());
    }

    /**
     * As {@link #byHost()}, with every host of the run listed, those no step touched with all
     * zeros: as Ansible's recap does, so "changed=0" is said, not left to be inferred.
     */
    public Map<String, HostTally> byHost(java.util.Collection<String> hosts) {
        Map<String, HostTally> tallies = new java.util.TreeMap<>(Recap::compareTargets);
        hosts.forEach(h -> tallies.put(h, new HostTally(0, 0, 0, 0, 0)));
        for (StepResult r : results) {
            tallies.merge(r.step().target(), new HostTally(0, 0, 0, 0, 0).add(r.status()),
                    (a, b) -> a.add(r.status()));
        }
        return tallies;
    }

    static int compareTargets(String a, String b) {
        if (a.equals(b)) {
            return 0;
        }
        if (a.equals("cluster") || b.equals("cluster")) {
            return a.equals("cluster") ? -1 : 1;
        }
        String pa = a.replaceAll("\\d+$", "");
        String pb = b.replaceAll("\\d+$", "");
        if (pa.equals(pb) && !pa.equals(a) && !pb.equals(b)) {
            return Long.compare(Long.parseLong(a.substring(pa.length())), Long.parseLong(b.substring(pb.length())));
        }
        return a.compareTo(b);
    }

    public boolean succeeded() {
        return results.stream().allMatch(r -> r.status() == StepResult.Status.OK
                || r.status() == StepResult.Status.CHANGED);
    }

    public boolean changedAnything() {
        return results.stream().anyMatch(r -> r.status() == StepResult.Status.CHANGED);
    }
}
