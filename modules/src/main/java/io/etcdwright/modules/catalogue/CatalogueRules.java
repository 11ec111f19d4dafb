package io.etcdwright.modules.catalogue;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.spec.VersionRules;

import java.util.List;
import java.util.Map;

/**
 * The built-in catalogue as the engine's {@link VersionRules}, registered in
 * META-INF/services so that every spec any command reads is checked against etcd's releases.
 */
public final class CatalogueRules implements VersionRules {
    public CatalogueRules() {
        // ServiceLoader's way in.
    }

    @Override
    public List<Finding> check(Version version, Map<String, Object> settings) {
        return VersionCatalogue.builtIn().check(version, settings);
    }
}
