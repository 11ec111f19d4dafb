package io.etcdwright.modules;

import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.config.EtcdConfigFile;

import java.util.List;

/**
 * What a module may read when it plans for one member: the member as the spec wants it, its
 * host's facts, and how it starts (the bootstrap settings its config carries).
 *
 * @param bootstrap the initial cluster, state and token written into its config
 */
public record MemberContext(Member member, EtcdHostFacts facts, ClusterSpec spec, EtcdLayout layout, Bootstrap bootstrap) {
    public String host() {
        return member.host().name();
    }

    /**
     * Whether the member's etcd runs the spec's version now, by its own answer: a member already on
     * the target (a rollback from a change an earlier apply left half done) needs no restart for the
     * version, even when its links and unit were moved on before that apply stopped.
     */
    public boolean runsSpecVersion() {
        return facts.service().running() && facts.member().status()
                .map(io.etcdwright.modules.membership.MemberFacts.LocalStatus::version)
                .filter(spec.etcd().version()::equals).isPresent();
    }

    /**
     * @param initialCluster the members it starts with: all of the spec's for a new cluster, the
     *                       cluster's own at its turn for a joiner
     * @param joining        whether it joins a running cluster ("existing") rather than forming one
     * @param token          the cluster's bootstrap token
     */
    public record Bootstrap(List<EtcdConfigFile.Peer> initialCluster, boolean joining, String token) {
        public Bootstrap {
            initialCluster = List.copyOf(initialCluster);
        }
    }
}
