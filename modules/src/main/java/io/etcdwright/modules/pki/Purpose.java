package io.etcdwright.modules.pki;

import java.util.List;
import org.bouncycastle.asn1.x509.KeyPurposeId;

/** What a certificate is for, which fixes its extended key usages. */
public enum Purpose {
    /**
     * etcd's client listener. It also carries clientAuth because etcd dials its own client URLs
     * with this certificate (the gRPC gateway, and grpc-proxy), and refuses to if it lacks it.
     */
    SERVER(ExtendedKeyUsageName.SERVER_AUTH, ExtendedKeyUsageName.CLIENT_AUTH),
    /** Member to member: every peer is server to some and client to the others with the same certificate. */
    PEER(ExtendedKeyUsageName.SERVER_AUTH, ExtendedKeyUsageName.CLIENT_AUTH),
    /** etcdctl, kube-apiserver, backups: they only ever dial. */
    CLIENT(ExtendedKeyUsageName.CLIENT_AUTH);

    private final List<ExtendedKeyUsageName> usages;

    Purpose(ExtendedKeyUsageName... usages) {
        this.usages = List.of(usages);
    }

    /** The names as {@link CertificateInfo#extKeyUsages()} reports them, e.g. {@code serverAuth}. */
    public List<String> extKeyUsages() {
        return usages.stream().map(ExtendedKeyUsageName::configName).toList();
    }

    KeyPurposeId[] keyPurposeIds() {
        return usages.stream().map(ExtendedKeyUsageName::id).toArray(KeyPurposeId[]::new);
    }
}
