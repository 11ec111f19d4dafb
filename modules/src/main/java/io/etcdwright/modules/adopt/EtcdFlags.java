package io.etcdwright.modules.adopt;

import io.etcdwright.modules.catalogue.SettingType;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * etcd's settings as a running member got them: its command-line flags (Go's flag syntax:
 * {@code -name value}, {@code --name=value}; a boolean only as {@code --name} or {@code --name=value})
 * over its {@code ETCD_*} environment variables (ETCD_INITIAL_CLUSTER_TOKEN is initial-cluster-token),
 * as etcd itself combines them. Keys are etcd's flag names, which are also its config file's keys.
 */
public final class EtcdFlags {
    /**
     * etcd's boolean flags that are no key of its config file (TLS and socket flags, --version):
     * the others are the catalogue's booleans. A boolean never takes the next word as its value.
     */
    private static final Set<String> FLAG_ONLY_BOOLEANS = Set.of("client-cert-auth", "peer-client-cert-auth", "auto-tls",
            "peer-auto-tls", "client-crl-file-check", "peer-skip-client-san-verification", "socket-reuse-port",
            "socket-reuse-address", "version", "help");

    private EtcdFlags() {
    }

    static boolean isBoolean(String flag) {
        return FLAG_ONLY_BOOLEANS.contains(flag)
                || VersionCatalogue.builtIn().settingType(flag).filter(SettingType.BOOL::equals).isPresent();
    }

    /**
     * @param args      the command line after the program
     * @param env       the environment the unit gives it
     * @param where     how to name the source in errors (the unit file)
     */
    public static Map<String, String> of(List<String> args, Map<String, String> env, String where) {
        Map<String, String> settings = new LinkedHashMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith("ETCD_") && name.length() > 5) {
                settings.put(name.substring(5).toLowerCase(java.util.Locale.ROOT).replace('_', '-'), value);
            }
        });
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                if (i + 1 < args.size()) {
                    throw new UnitSyntaxException(where, 0, "etcd takes no arguments after '--', got '" + args.get(i + 1) + "'");
                }
                break;
            }
            if (!a.startsWith("-") || a.equals("-")) {
                throw new UnitSyntaxException(where, 0, "etcd takes flags only, got the argument '" + a + "'");
            }
            String body = a.startsWith("--") ? a.substring(2) : a.substring(1);
            int eq = body.indexOf('=');
            String name = eq < 0 ? body : body.substring(0, eq);
            String value;
            if (eq >= 0) {
                value = body.substring(eq + 1);
            } else if (isBoolean(name)) {
                value = "true";
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UnitSyntaxException(where, 0, "flag --" + name + " has no value");
            }
            if (name.isEmpty() || !name.matches("[a-z0-9]+(-[a-z0-9]+)*")) {
                throw new UnitSyntaxException(where, 0, "'" + a + "' is not an etcd flag");
            }
            flags.put(name, value);
        }
        // A flag wins over the environment (etcd 3.4+ refuses to start when both set one, so they agree anyway).
        settings.putAll(flags);
        return settings;
    }
}
