package io.etcdwright.engine.spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The cluster's certificate authority and the certificates issued from it. Paths are resolved
 * relative to the spec file (and {@code ~} to the home directory) when the spec is loaded.
 *
 * @param dir          workstation directory of the CA and issued certificates; empty: the
 *                     default {@code $ETCDWRIGHT_HOME/clusters/<name>/pki}, see {@link #dirOr}
 * @param caCert       a CA certificate the operator brings
 * @param caKey        that CA's private key; empty with {@code caCert}: trust-only, the operator
 *                     keeps the key and etcdwright issues nothing ({@link #trustOnly()})
 * @param keyAlgorithm one of {@link #KEY_ALGORITHMS}
 * @param extraSans    extra DNS names or addresses in every server certificate (a VIP)
 * @param caGeneration which CA etcdwright generates (1 the first): raising it rotates the cluster
 *                     to a new generated CA; a bring-your-own CA rotates by naming another one
 * @param fromHosts    trust-only: where each member's own certificate and key already are on its
 *                     host, by role (server, peer, healthcheck-client); copied on the host into
 *                     etcdwright's layout when that has none yet
 */
public record Pki(Optional<Path> dir, Optional<Path> caCert, Optional<Path> caKey, String keyAlgorithm,
                  int validityDays, int renewBeforeDays, int caValidityDays, List<String> extraSans, int caGeneration,
                  Map<String, HostFiles> fromHosts) {

    /** A certificate and its key on a member host (absolute paths there). */
    public record HostFiles(String cert, String key) {
        public HostFiles {
            Objects.requireNonNull(cert, "cert");
            Objects.requireNonNull(key, "key");
        }
    }

    /** The member roles {@code fromHosts} can name, as the spec spells them. */
    public static final List<String> HOST_ROLES = List.of("server", "peer", "healthcheck-client");

    public static final List<String> KEY_ALGORITHMS = List.of("ecdsa-p256", "rsa-2048", "rsa-4096");
    public static final String DEFAULT_KEY_ALGORITHM = "ecdsa-p256";
    public static final int DEFAULT_VALIDITY_DAYS = 365;
    public static final int DEFAULT_RENEW_BEFORE_DAYS = 30;
    public static final int DEFAULT_CA_VALIDITY_DAYS = 3650;
    public static final int FIRST_CA_GENERATION = 1;

    /** Without certificates taken from the hosts (every spec that is not trust-only). */
    public Pki(Optional<Path> dir, Optional<Path> caCert, Optional<Path> caKey, String keyAlgorithm,
               int validityDays, int renewBeforeDays, int caValidityDays, List<String> extraSans, int caGeneration) {
        this(dir, caCert, caKey, keyAlgorithm, validityDays, renewBeforeDays, caValidityDays, extraSans, caGeneration, Map.of());
    }

    /** As before CA generations existed: the first generated CA. */
    public Pki(Optional<Path> dir, Optional<Path> caCert, Optional<Path> caKey, String keyAlgorithm,
               int validityDays, int renewBeforeDays, int caValidityDays, List<String> extraSans) {
        this(dir, caCert, caKey, keyAlgorithm, validityDays, renewBeforeDays, caValidityDays, extraSans, FIRST_CA_GENERATION);
    }

    public Pki {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(caCert, "caCert");
        Objects.requireNonNull(caKey, "caKey");
        Objects.requireNonNull(keyAlgorithm, "keyAlgorithm");
        extraSans = List.copyOf(extraSans);
        fromHosts = Map.copyOf(fromHosts);
    }

    public static Pki defaults() {
        return new Pki(Optional.empty(), Optional.empty(), Optional.empty(), DEFAULT_KEY_ALGORITHM,
                DEFAULT_VALIDITY_DAYS, DEFAULT_RENEW_BEFORE_DAYS, DEFAULT_CA_VALIDITY_DAYS, List.of());
    }

    /** Whether the operator brings the CA (etcdwright then never creates or rotates it). */
    public boolean bringsOwnCa() {
        return caCert.isPresent() && caKey.isPresent();
    }

    /**
     * Whether the operator gives the CA certificate without its key: etcdwright then operates the
     * cluster with the certificates its members and admin already have, and issues none.
     */
    public boolean trustOnly() {
        return caCert.isPresent() && caKey.isEmpty();
    }

    /** {@code dir}, or the default {@code <etcdwrightHome>/clusters/<clusterName>/pki}. */
    public Path dirOr(Path etcdwrightHome, String clusterName) {
        return dir.orElseGet(() -> etcdwrightHome.resolve("clusters").resolve(clusterName).resolve("pki"));
    }
}
