package io.etcdwright.modules.adopt;

import io.etcdwright.engine.spec.Tls;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.ConfigSettings;
import io.etcdwright.modules.catalogue.SettingType;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * One member of a cluster etcdwright did not create, as its host runs it: etcd's settings from
 * its unit's flags and environment, read into what a desired state says.
 *
 * @param host     inventory host name
 * @param unitFile where its unit came from (for messages)
 * @param program  the etcd binary the unit runs
 * @param settings every etcd setting the member was given (flag names)
 */
public record ForeignMember(String host, String unitFile, String program, Map<String, String> settings) {

    /**
     * Keys a desired state expresses itself (name, paths, URLs, TLS) or that do not carry over:
     * {@code etcd.settings} gets every other setting, as given.
     */
    private static final Set<String> NOT_SETTINGS = Set.of("name", "data-dir", "wal-dir", "listen-peer-urls",
            "listen-client-urls", "listen-client-http-urls", "advertise-client-urls", "initial-advertise-peer-urls",
            "listen-metrics-urls", "initial-cluster", "initial-cluster-state", "initial-cluster-token", "strict-reconfig-check",
            "enable-grpc-gateway",
            "cert-file", "key-file", "trusted-ca-file", "client-cert-auth", "auto-tls", "peer-cert-file", "peer-key-file",
            "peer-trusted-ca-file", "peer-client-cert-auth", "peer-auto-tls", "self-signed-cert-validity", "config-file",
            "peer-skip-client-san-verification", "experimental-peer-skip-client-san-verification",
            "version", "help");
    /** Flags whose config-file key is spelled otherwise (etcd 3.5's YAML key has an extra dash). */
    private static final Map<String, String> KEY_OF_FLAG = Map.of(
            "experimental-snapshot-catchup-entries", "experimental-snapshot-catch-up-entries");

    private static final Set<String> SCHEMES = Set.of("http", "https");

    public ForeignMember {
        settings = Map.copyOf(settings);
    }

    public Optional<String> get(String key) {
        return Optional.ofNullable(settings.get(key)).filter(v -> !v.isEmpty());
    }

    /** The member name; etcd's default is "default". */
    public String name() {
        return get("name").orElse("default");
    }

    public List<URI> urls(String key) {
        return get(key).map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .map(URI::create).toList()).orElse(List.of());
    }

    public boolean flag(String key) {
        return get(key).map(v -> v.equalsIgnoreCase("true") || v.equals("1")).orElse(false);
    }

    /** Metrics port of a plain-HTTP listen-metrics-urls entry, if any. */
    public OptionalInt metricsPort() {
        return urls("listen-metrics-urls").stream().filter(u -> "http".equals(u.getScheme()) && u.getPort() > 0)
                .mapToInt(URI::getPort).findFirst();
    }

    /**
     * Every other setting (heartbeat-interval, quota-backend-bytes, ...) under its config file's key,
     * typed by the catalogue as that file holds it: numbers, booleans, lists (comma-separated as flags),
     * strings even when they look like numbers; durations as written ("10m", which a spec may say).
     */
    public Map<String, Object> extraSettings() {
        Map<String, Object> out = new TreeMap<>();
        settings.forEach((k, v) -> {
            if (NOT_SETTINGS.contains(k) || k.startsWith("discovery")) {
                return;
            }
            String key = KEY_OF_FLAG.getOrDefault(k, k);
            out.put(key, typed(key, v));
        });
        return new LinkedHashMap<>(out);
    }

    /**
     * The settings as a spec for {@code version} writes them ({@link VersionCatalogue#spelledFor}):
     * a 3.6 member's deprecated experimental flags under their new names, booleans that became feature
     * gates in feature-gates. Its errors are what the member runs with that etcdwright cannot express.
     */
    public ConfigSettings extraSettings(Version version) {
        return VersionCatalogue.builtIn().spelledFor(version, extraSettings());
    }

    static Object typed(String key, String value) {
        Optional<SettingType> type = VersionCatalogue.builtIn().settingType(key);
        if (type.filter(SettingType.LIST::equals).isPresent()) {
            return Arrays.stream(value.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
        }
        if (type.filter(t -> t == SettingType.STRING || t == SettingType.DURATION || t == SettingType.GATES).isPresent()) {
            return value;
        }
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        if (value.matches("-?[0-9]{1,18}")) {
            return Long.parseLong(value);
        }
        return value;
    }

    /** What etcdwright cannot take over as the member runs it, each in the operator's words. */
    public List<String> unsupported() {
        List<String> why = new ArrayList<>();
        if (get("config-file").isPresent()) {
            why.add("etcd reads its settings from " + get("config-file").get() + " (--config-file): import reads flags and"
                    + " ETCD_* variables only; put the settings in the unit or its environment file, or write the spec by hand");
        }
        if (get("data-dir").isEmpty()) {
            why.add("no --data-dir/ETCD_DATA_DIR: etcd's default is relative to its working directory; set it explicitly first");
        } else if (!get("data-dir").get().startsWith("/")) {
            why.add("data dir " + get("data-dir").get() + " is not an absolute path");
        }
        get("wal-dir").ifPresent(w -> why.add("the write-ahead log is kept apart (--wal-dir " + w + "): etcdwright keeps it"
                + " inside the data dir; move it back with etcd's own procedure first"));
        if (flag("auto-tls") || flag("peer-auto-tls")) {
            why.add("etcd makes its own certificates (--auto-tls/--peer-auto-tls): there is no CA to import");
        }
        List<URI> peers = urls("initial-advertise-peer-urls");
        List<URI> clients = urls("advertise-client-urls");
        if (peers.isEmpty() || clients.isEmpty()) {
            why.add("no --initial-advertise-peer-urls or --advertise-client-urls: etcd's localhost defaults cannot form a cluster"
                    + " across hosts");
        }
        if (peers.stream().anyMatch(u -> !SCHEMES.contains(u.getScheme()))
                || clients.stream().anyMatch(u -> !SCHEMES.contains(u.getScheme()))) {
            why.add("an advertised URL is neither http:// nor https:// (unix sockets?): etcdwright advertises one http(s) URL"
                    + " per side");
        } else if (!peers.isEmpty() && !clients.isEmpty()) {
            // Each side as it runs: plain HTTP is described as tls.transport plaintext (moved to TLS later, live).
            if (clientMode() == Tls.Mode.MUTUAL_TLS && (get("trusted-ca-file").isEmpty() || get("cert-file").isEmpty())) {
                why.add("clients on TLS without --trusted-ca-file and --cert-file: no CA to import");
            }
            if (peerMode() == Tls.Mode.MUTUAL_TLS && (get("peer-cert-file").isEmpty()
                    || clientMode() == Tls.Mode.PLAINTEXT && get("peer-trusted-ca-file").isEmpty())) {
                why.add("peers on TLS without --peer-cert-file" + (clientMode() == Tls.Mode.PLAINTEXT
                        ? " and --peer-trusted-ca-file" : "") + ": no CA to import");
            }
        }
        if (peers.size() > 1 || clients.size() > 1) {
            why.add("more than one advertised peer or client URL: etcdwright gives each member one address");
        }
        return why;
    }

    /** How clients reach the member: plain HTTP when it advertises an http:// client URL. */
    public Tls.Mode clientMode() {
        return modeOf(urls("advertise-client-urls"));
    }

    /** How peers reach the member: plain HTTP when it advertises an http:// peer URL. */
    public Tls.Mode peerMode() {
        return modeOf(urls("initial-advertise-peer-urls"));
    }

    private static Tls.Mode modeOf(List<URI> urls) {
        return !urls.isEmpty() && "http".equals(urls.get(0).getScheme()) ? Tls.Mode.PLAINTEXT : Tls.Mode.MUTUAL_TLS;
    }

    /**
     * The CA file the member trusts, on the side that speaks TLS (the client side's when both do,
     * which {@link #unsupported()} holds to be the peers' too); empty for a plain-HTTP member.
     */
    public Optional<String> trustedCaFile() {
        if (clientMode() == Tls.Mode.MUTUAL_TLS) {
            return get("trusted-ca-file");
        }
        return peerMode() == Tls.Mode.MUTUAL_TLS ? get("peer-trusted-ca-file") : Optional.empty();
    }

    /** The address the member advertises to its peers (a host name or an IP literal without brackets). */
    public String peerHost() {
        String h = urls("initial-advertise-peer-urls").get(0).getHost();
        return h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
    }

    public int peerPort() {
        return portOf(urls("initial-advertise-peer-urls").get(0), 2380);
    }

    public int clientPort() {
        return portOf(urls("advertise-client-urls").get(0), 2379);
    }

    private static int portOf(URI u, int dflt) {
        return u.getPort() > 0 ? u.getPort() : dflt;
    }
}
