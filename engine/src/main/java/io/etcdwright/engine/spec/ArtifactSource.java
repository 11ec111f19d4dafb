package io.etcdwright.engine.spec;

import java.util.Locale;
import java.util.Optional;

/** Where hosts get the etcd release tarball from. */
public enum ArtifactSource {
    /** The workstation downloads once into its cache, verifies it and copies it to every host. */
    PUSH,
    /** Every host downloads from the URL itself (hosts need internet access, the workstation need not). */
    FETCH;

    /** The spelling in the desired state: {@code push}, {@code fetch}. */
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<ArtifactSource> fromYaml(String name) {
        for (ArtifactSource source : values()) {
            if (source.yamlName().equals(name)) {
                return Optional.of(source);
            }
        }
        return Optional.empty();
    }
}
