package io.etcdwright.modules.catalogue;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.spec.VersionRules.Finding;

import java.util.List;
import java.util.Map;

/**
 * The spec's etcd.settings as one etcd release reads them ({@link VersionCatalogue#settingsFor}):
 * each key under the name that release gives it, booleans that became feature gates gathered into
 * its {@code feature-gates} string, values in the form its config file takes (durations in
 * nanoseconds, strings as strings), and what the operator should hear about it.
 *
 * @param readBy   the release whose binary reads the file
 * @param config   the keys to write into etcd's config file, sorted by key
 * @param findings errors (a setting this release does not have, or has under a name also written)
 *                 and warnings (a setting written under a name this release still reads but renamed)
 * @param defaults the reasons of etcdwright's own defaults written into {@code config} (the catalogue's
 *                 {@code defaults}, for what the spec does not set); none for the spec's settings alone
 */
public record ConfigSettings(Version readBy, Map<String, Object> config, List<Finding> findings, List<String> defaults) {
    public ConfigSettings {
        config = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(config));
        findings = List.copyOf(findings);
        defaults = List.copyOf(defaults);
    }

    public List<Finding> errors() {
        return findings.stream().filter(Finding::error).toList();
    }

    public List<Finding> warnings() {
        return findings.stream().filter(f -> !f.error()).toList();
    }

    /**
     * The keys to write, for a release the spec was checked against (validate refused every error
     * for it already).
     *
     * @throws IllegalStateException when this release cannot take the settings: a planner that
     *                               writes a config for another release (a hop, a downgrade) asks
     *                               {@link #errors()} first and refuses with them
     */
    public Map<String, Object> orThrow() {
        if (!errors().isEmpty()) {
            throw new IllegalStateException("etcd " + readBy + " cannot take these settings: " + String.join("; ",
                    errors().stream().map(f -> f.setting().map(k -> k + ": ").orElse("") + f.message()).toList()));
        }
        return config;
    }
}
