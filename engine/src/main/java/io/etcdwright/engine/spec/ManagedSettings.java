package io.etcdwright.engine.spec;

import io.etcdwright.engine.source.Quoted;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The keys of etcd's config file that etcdwright writes itself (modules/config/EtcdConfigFile),
 * or that would undo what it writes: each is refused in {@code etcd.settings} with the reason
 * and the spec field to use instead, never silently merged over etcdwright's value.
 */
final class ManagedSettings {

    private static final String MANAGES = "etcdwright manages this setting: ";
    private static final String URLS = MANAGES + "it builds every URL from etcd.ports and each host's etcd_address"
            + " (or ansible_host) in the inventory; set those";
    private static final String BOOTSTRAP = MANAGES + "it builds the initial cluster from the members (with a token"
            + " unique to each bootstrap); choose them with members.group or members.hosts";
    private static final String TLS = MANAGES + "peers and clients always use mutual TLS with the certificates it"
            + " issues and installs; configure them through tls.pki";

    /** Key -> why it is refused, in the order of etcd's config file. */
    private static final Map<String, String> MANAGED = new LinkedHashMap<>();

    static {
        MANAGED.put("name", MANAGES + "the member name is the inventory host name; set etcd_member_name on the host"
                + " to choose another");
        MANAGED.put("data-dir", MANAGES + "set it through etcd.dataDir");
        MANAGED.put("wal-dir", MANAGES + "it keeps the write-ahead log inside etcd.dataDir, so that destroy, backups"
                + " and the data-directory safety checks see all of a member's data");
        MANAGED.put("listen-peer-urls", URLS);
        MANAGED.put("listen-client-urls", URLS);
        MANAGED.put("listen-client-http-urls", URLS);
        MANAGED.put("advertise-client-urls", URLS);
        MANAGED.put("initial-advertise-peer-urls", URLS);
        MANAGED.put("listen-metrics-urls", MANAGES + "set the metrics port through etcd.ports.metrics");
        MANAGED.put("initial-cluster", BOOTSTRAP);
        MANAGED.put("initial-cluster-state", BOOTSTRAP);
        MANAGED.put("initial-cluster-token", BOOTSTRAP);
        MANAGED.put("strict-reconfig-check", MANAGES + "etcd always refuses membership changes that would lose quorum;"
                + " this safety check cannot be turned off");
        MANAGED.put("enable-grpc-gateway", MANAGES + "status, the health checks and the member facts ask etcd through its"
                + " gRPC gateway, so it stays on (etcdwright turns it on where a release needs telling, as 3.4 does)");
        MANAGED.put("force-new-cluster", "etcdwright refuses this setting: it turns the member into a new one-member"
                + " cluster every time it starts (a one-off recovery flag, never a desired state)");
        MANAGED.put("client-transport-security", TLS);
        MANAGED.put("peer-transport-security", TLS);
        for (String side : new String[] {"", "peer-"}) {
            for (String key : new String[] {"cert-file", "key-file", "trusted-ca-file", "client-cert-auth", "auto-tls"}) {
                MANAGED.put(side + key, TLS);
            }
        }
        MANAGED.put("self-signed-cert-validity", TLS);
        // etcd 3.6's name for peer-transport-security's skip-client-san-verification (3.5: a flag only).
        MANAGED.put("peer-skip-client-san-verification", TLS);
        MANAGED.put("experimental-peer-skip-client-san-verification", TLS);
    }

    private static final Set<String> POSITIVE_INTEGERS = Set.of("heartbeat-interval", "election-timeout", "snapshot-count",
            "max-request-bytes", "max-txn-ops", "max-concurrent-streams");
    private static final Set<String> NON_NEGATIVE_INTEGERS = Set.of("quota-backend-bytes", "max-snapshots", "max-wals",
            "backend-batch-limit");
    private static final Set<String> BOOLEANS = Set.of("enable-v2", "enable-pprof", "pre-vote");
    private static final Map<String, Set<String>> ENUMS = Map.of(
            "auto-compaction-mode", Set.of("periodic", "revision"),
            "log-level", Set.of("debug", "info", "warn", "error", "panic", "fatal"),
            "logger", Set.of("zap", "capnslog"));

    /**
     * etcd's own flag description: "Disables fsync, unsafe, will cause data loss." Only false, its
     * default, is let through: a cluster etcdwright operates is one whose acknowledged writes stay.
     */
    private static final String NO_FSYNC = "unsafe-no-fsync";

    private ManagedSettings() {}

    /** Why {@code key} cannot be set in etcd.settings, when etcdwright manages it. */
    static Optional<String> managed(String key) {
        if (key.startsWith("discovery")) {
            return Optional.of(BOOTSTRAP);
        }
        return Optional.ofNullable(MANAGED.get(key));
    }

    /** Every key refused outright (besides discovery*), for documentation and tests. */
    static Set<String> keys() {
        return MANAGED.keySet();
    }

    /** Why {@code value} is not a value of the well-known setting {@code key}; empty when it is, or the key is not well known. */
    static Optional<String> valueProblem(String key, Object value) {
        if (key.equals(NO_FSYNC) && !Boolean.FALSE.equals(value)) {
            return Optional.of("must be false" + got(value) + ": with fsync off, etcd acknowledges writes before they are on"
                    + " disk, so a power failure or a crash of the host loses writes that clients were told are saved (and"
                    + " can leave the members disagreeing); etcd offers it for tests only. Remove the setting (false is"
                    + " etcd's default)");
        }
        if (POSITIVE_INTEGERS.contains(key) && !(isInteger(value) && ((Number) value).longValue() >= 1)) {
            return Optional.of("must be a whole number of at least 1" + got(value));
        }
        if (NON_NEGATIVE_INTEGERS.contains(key) && !(isInteger(value) && ((Number) value).longValue() >= 0)) {
            return Optional.of("must be a whole number of at least 0" + got(value));
        }
        if (BOOLEANS.contains(key) && !(value instanceof Boolean)) {
            return Optional.of("must be true or false" + got(value));
        }
        if (ENUMS.containsKey(key) && !(value instanceof String text && ENUMS.get(key).contains(text))) {
            return Optional.of("must be one of " + String.join(", ", ENUMS.get(key).stream().sorted().toList()) + got(value));
        }
        return Optional.empty();
    }

    private static boolean isInteger(Object value) {
        return value instanceof Integer || value instanceof Long;
    }

    private static String got(Object value) {
        return value instanceof String text ? ", got string " + Quoted.of(text) : ", got " + value;
    }
}
