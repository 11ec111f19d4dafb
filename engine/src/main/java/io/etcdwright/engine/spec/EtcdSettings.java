package io.etcdwright.engine.spec;

import io.etcdwright.engine.source.JsonValues;
import java.util.Map;
import java.util.Objects;

/**
 * How etcd runs on every member.
 *
 * @param version  the release, X.Y.Z (see {@link #parsedVersion()})
 * @param dataDir  absolute data directory on each member
 * @param settings extra keys of etcd's config file, passed through as written (never the keys
 *                 etcdwright manages: the loader refuses those)
 */
public record EtcdSettings(String version, Ports ports, String dataDir, Map<String, Object> settings) {

    public static final String DEFAULT_DATA_DIR = "/var/lib/etcd";

    public EtcdSettings {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(ports, "ports");
        Objects.requireNonNull(dataDir, "dataDir");
        settings = JsonValues.orderedCopy(settings);
    }

    /** @throws IllegalArgumentException if the version is not X.Y.Z (a loaded spec's always is) */
    public Version parsedVersion() {
        return Version.parse(version);
    }
}
