package io.etcdwright.engine.spec;

import java.util.List;
import java.util.Map;

/**
 * The engine's tests' {@link VersionRules}: the support floor alone (etcd 3.4), every setting
 * accepted. The real rules are the modules' catalogue, tested there; the engine's tests prove that
 * the loaders ask the rules and report what they say at the right line.
 */
public final class SupportFloorRules implements VersionRules {
    public static final SupportFloorRules RULES = new SupportFloorRules();

    @Override
    public List<Finding> check(Version version, Map<String, Object> settings) {
        if (!version.isAtLeast(new Version(3, 4, 0))) {
            return List.of(Finding.aboutVersion(true, "etcd " + version + " is not supported: etcdwright needs etcd 3.4 or newer"));
        }
        return settings.keySet().stream().filter(k -> k.startsWith("not-in-this-release"))
                .map(k -> Finding.aboutSetting(k, true, "is not a setting of etcd " + version)).toList();
    }
}
