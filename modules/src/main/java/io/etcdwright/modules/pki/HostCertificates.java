package io.etcdwright.modules.pki;

import io.etcdwright.engine.spec.ClientKeys;
import io.etcdwright.modules.EtcdLayout;

import java.util.List;

/**
 * The certificate files on a member host, by role. Every member holds the CA certificate and its
 * own server, peer and healthcheck client pairs; the admin and kube-apiserver client pairs only
 * where the spec's {@code clients} names the host. The CA's private key is never among them.
 */
public final class HostCertificates {
    private HostCertificates() {
    }

    public static final String CA = "ca";
    public static final String SERVER = "server";
    public static final String PEER = "peer";
    /** The member's own client certificate, for what the host asks its etcd itself (facts, scheduled backups). */
    public static final String HEALTHCHECK = "healthcheck-client";
    public static final String ADMIN = "admin";
    public static final String APISERVER = "kube-apiserver-etcd-client";

    /** Roles with a key pair every member holds, its own. */
    public static final List<String> MEMBER_KEYED = List.of(SERVER, PEER, HEALTHCHECK);
    /** Shared client roles, on the hosts the spec names only. */
    public static final List<String> CLIENTS = List.of(ADMIN, APISERVER);
    /** Roles with a key pair, in the order they are shown. */
    public static final List<String> KEYED = List.of(SERVER, PEER, HEALTHCHECK, ADMIN, APISERVER);

    /** The host role of a client of the spec's {@code clients} ({@link ClientKeys#ADMIN}, {@link ClientKeys#KUBE_APISERVER}). */
    public static String roleOf(String client) {
        return ClientKeys.KUBE_APISERVER.equals(client) ? APISERVER : ADMIN;
    }

    /** The spec's {@code clients} name of a shared client role. */
    public static String clientOf(String role) {
        return APISERVER.equals(role) ? ClientKeys.KUBE_APISERVER : ClientKeys.ADMIN;
    }

    /** The shared client roles the spec's {@code clients} names {@code host} for. */
    public static java.util.Set<String> clientRoles(io.etcdwright.engine.spec.DesiredState desired, String host) {
        java.util.Set<String> roles = new java.util.LinkedHashSet<>();
        for (String client : ClientKeys.CLIENTS) {
            if (desired.clientHosts(client).contains(host)) {
                roles.add(roleOf(client));
            }
        }
        return roles;
    }

    public static boolean isClient(String role) {
        return CLIENTS.contains(role);
    }

    public static String certPath(String role) {
        return EtcdLayout.pkiFile(role + ".crt");
    }

    public static String keyPath(String role) {
        return EtcdLayout.pkiFile(role + ".key");
    }

    /**
     * The files of the first facts probe (etcd_files), in its recorded order: facts recorded before
     * the healthcheck client existed still load. {@link #laterPaths()} are probed beside them.
     */
    public static List<String> certPaths() {
        return List.of(certPath(CA), certPath(SERVER), certPath(PEER), certPath(ADMIN), certPath(APISERVER));
    }

    public static List<String> keyPaths() {
        return List.of(keyPath(SERVER), keyPath(PEER), keyPath(ADMIN), keyPath(APISERVER));
    }

    /** The healthcheck client's certificate and key: a probe of their own, added later. */
    public static List<String> laterPaths() {
        return List.of(certPath(HEALTHCHECK), keyPath(HEALTHCHECK));
    }

    /** Every certificate path, in the order they are shown. */
    public static List<String> allCertPaths() {
        return List.of(certPath(CA), certPath(SERVER), certPath(PEER), certPath(HEALTHCHECK), certPath(ADMIN), certPath(APISERVER));
    }

    /** Every key path, in the order they are shown. */
    public static List<String> allKeyPaths() {
        return KEYED.stream().map(HostCertificates::keyPath).toList();
    }
}
