package io.etcdwright.engine.spec;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * What etcd makes of a spec's version and of its settings: which releases etcdwright operates,
 * which config keys each release reads and under which names. The engine checks what a value is
 * (a key's spelling, a number, no mapping); these rules, which the modules' version catalogue
 * provides, say what the spec's etcd does with it, so that a setting the target release dropped or
 * renamed is reported at its line before any host is contacted.
 */
public interface VersionRules {

    /**
     * One thing to tell the operator.
     *
     * @param setting the key of etcd.settings it is about; empty when it is about etcd.version
     */
    record Finding(Optional<String> setting, boolean error, String message) {
        public static Finding aboutVersion(boolean error, String message) {
            return new Finding(Optional.empty(), error, message);
        }

        public static Finding aboutSetting(String key, boolean error, String message) {
            return new Finding(Optional.of(key), error, message);
        }
    }

    /**
     * @param settings the keys of etcd.settings the engine found well-formed (managed keys, bad
     *                 spellings and mappings are refused before), as written
     */
    List<Finding> check(Version version, Map<String, Object> settings);

    /**
     * The rules on the class path (the modules' catalogue registers itself as a service): every
     * command that reads a spec applies them, so none can forget to.
     *
     * @throws IllegalStateException when none is there, rather than checking nothing
     */
    static VersionRules installed() {
        return Holder.INSTALLED;
    }

    /** Looked up once. */
    final class Holder {
        private static final VersionRules INSTALLED = ServiceLoader.load(VersionRules.class).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + VersionRules.class.getName() + " on the class path:"
                        + " etcdwright's modules are missing, and a spec cannot be checked against etcd's releases"));

        private Holder() {
        }
    }
}
