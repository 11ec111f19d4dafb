package io.etcdwright.modules.pki;

import io.etcdwright.engine.spec.ClientKeys;

/**
 * Where kubeadm's external etcd setup reads kube-apiserver's etcd files, as kubeadm's published
 * source (k8s.io/kubernetes v1.37.2) makes them:
 * <ul>
 * <li>cmd/kubeadm/app/constants/constants.go: KubernetesDir "/etc/kubernetes", the certificates dir
 *     (ClusterConfiguration.certificatesDir, default "/etc/kubernetes/pki": DefaultCertificatesDir in
 *     apis/kubeadm/v1beta4/defaults.go), EtcdCACertName "etcd/ca.crt", APIServerEtcdClientCertName
 *     "apiserver-etcd-client.crt", APIServerEtcdClientKeyName "apiserver-etcd-client.key";</li>
 * <li>cmd/kubeadm/app/util/pkiutil/pki_helpers.go WriteCert / WriteKey, through client-go's
 *     util/cert/io.go WriteCert (directory 0755, certificate 0644) and util/keyutil/key.go WriteKey
 *     (directory 0755, key 0600), run by kubeadm as root: owner root:root.</li>
 * </ul>
 * etcdwright lands them so (root:root, 0644 and 0600; the directories made as root's mkdir -p makes
 * them, 0755 under the usual umask 022).
 */
public final class KubeadmPaths {
    private KubeadmPaths() {
    }

    public static final String PKI_DIR = "/etc/kubernetes/pki";
    public static final String CA_FILE = PKI_DIR + "/etcd/ca.crt";
    public static final String CERT_FILE = PKI_DIR + "/apiserver-etcd-client.crt";
    public static final String KEY_FILE = PKI_DIR + "/apiserver-etcd-client.key";

    /** Where a client-only host holds the CA file for {@code role} in {@code layout}. */
    public static String caPath(String role, ClientKeys.Layout layout) {
        return kubeadm(role, layout) ? CA_FILE : HostCertificates.certPath(HostCertificates.CA);
    }

    public static String certPath(String role, ClientKeys.Layout layout) {
        return kubeadm(role, layout) ? CERT_FILE : HostCertificates.certPath(role);
    }

    public static String keyPath(String role, ClientKeys.Layout layout) {
        return kubeadm(role, layout) ? KEY_FILE : HostCertificates.keyPath(role);
    }

    /** Only kube-apiserver's files move: the admin pair stays in /etc/etcd/pki in every layout. */
    private static boolean kubeadm(String role, ClientKeys.Layout layout) {
        return layout == ClientKeys.Layout.KUBEADM && HostCertificates.APISERVER.equals(role);
    }
}
