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
