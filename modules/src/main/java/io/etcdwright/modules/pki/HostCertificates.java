package io.etcdwright.modules.pki;

import io.etcdwright.modules.EtcdLayout;

import java.util.List;

/** The certificate files every member carries, by role. The CA's private key is never among them. */
public final class HostCertificates {
    private HostCertificates() {
    }

    public static final String CA = "ca";
    public static final String SERVER = "server";
    public static final String PEER = "peer";
    public static final String ADMIN = "admin";
    public static final String APISERVER = "kube-apiserver-etcd-client";

    /** Roles with a key pair, in the order they are shown. */
    public static final List<String> KEYED = List.of(SERVER, PEER, ADMIN, APISERVER);

    public static String certPath(String role) {
        return EtcdLayout.pkiFile(role + ".crt");
    }

    public static String keyPath(String role) {
        return EtcdLayout.pkiFile(role + ".key");
    }

    public static List<String> certPaths() {
        return List.of(certPath(CA), certPath(SERVER), certPath(PEER), certPath(ADMIN), certPath(APISERVER));
    }

    public static List<String> keyPaths() {
        return KEYED.stream().map(HostCertificates::keyPath).toList();
    }
}
