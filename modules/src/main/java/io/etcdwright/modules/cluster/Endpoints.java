package io.etcdwright.modules.cluster;

import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;

import java.util.List;

/** How the workstation reaches the members: their client URLs (the scheme the layout's transport advertises) and the admin certificate. */
public final class Endpoints {
    private Endpoints() {
    }

    /**
     * The workstation's admin certificate and the cluster's CA (the bundle of the old and the new
     * CA while a rotation runs): how apply and status ask etcd about health.
     */
    public static Health.Access healthAccess(ClusterPki pki) {
        ClusterPki.LocalPair access = pki.accessPair();
        return new Health.Access(pki.trustedCaFile(), access.cert(), access.key());
    }

    /** The client URLs of the members, in their order: what etcdctl and kube-apiserver are given. */
    public static List<String> clientUrls(List<Member> members, EtcdLayout layout) {
        return members.stream().map(m -> clientUrl(m, layout)).toList();
    }

    public static String clientUrl(Member m, EtcdLayout layout) {
        return layout.transport().clientScheme() + "://" + urlHost(m) + ":" + layout.clientPort();
    }

    /** The peer URLs of the members, as a set: which etcd members the spec keeps. */
    public static java.util.Set<String> peerUrls(List<Member> members, EtcdLayout layout) {
        return members.stream().map(m -> peerUrl(m, layout)).collect(java.util.stream.Collectors.toSet());
    }

    public static String peerUrl(Member m, EtcdLayout layout) {
        return layout.transport().peerScheme() + "://" + urlHost(m) + ":" + layout.peerPort();
    }

    private static String urlHost(Member m) {
        return m.address().contains(":") ? "[" + m.address() + "]" : m.address();
    }
}
