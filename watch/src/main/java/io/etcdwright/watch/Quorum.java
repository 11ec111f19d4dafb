package io.etcdwright.watch;

import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The cluster's voting members and which of them answer healthy, by inventory host, from the facts
 * the plan was made from: what a repair's quorum margin is judged on.
 *
 * @param voters  every voting member (learners are not), by host; a member on no host of the spec by name
 * @param healthy the voters that answered healthy
 */
public record Quorum(Set<String> voters, Set<String> healthy) {
    /** No member answered: nothing known, so no repair is allowed (the plan is refused anyway). */
    public static final Quorum UNKNOWN = new Quorum(Set.of(), Set.of());

    public Quorum {
        voters = Set.copyOf(voters);
        healthy = Set.copyOf(healthy);
        if (!voters.containsAll(healthy)) {
            throw new IllegalArgumentException("a healthy voter is a voter: " + healthy + " of " + voters);
        }
    }

    /** From the cluster's own member list (ClusterRun.Facts.cluster()), members named by their host in the spec. */
    public static Quorum of(Optional<ClusterStatus> cluster, DesiredState desired) {
        if (cluster.isEmpty()) {
            return UNKNOWN;
        }
        Set<String> voters = new LinkedHashSet<>();
        Set<String> healthy = new LinkedHashSet<>();
        for (MemberStatus m : cluster.get().members()) {
            if (m.learner()) {
                continue;
            }
            String host = desired.members().stream().filter(d -> d.name().equals(m.name())).map(Member::host)
                    .map(h -> h.name()).findFirst().orElse(m.name().isEmpty() ? m.id() : m.name());
            voters.add(host);
            if (m.healthy()) {
                healthy.add(host);
            }
        }
        return new Quorum(voters, healthy);
    }

    /** A majority of the voters. */
    public int needed() {
        return voters.size() / 2 + 1;
    }

    public boolean allHealthy() {
        return !voters.isEmpty() && healthy.equals(voters);
    }
}
