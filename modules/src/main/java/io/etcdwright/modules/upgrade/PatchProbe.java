package io.etcdwright.modules.upgrade;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finds the newest patch of a minor a release source offers, asking it about single versions:
 * downwards from the newest patch the catalogue knows (a mirror may hold only some releases), then
 * upwards past it until a release is missing (etcd numbers patches without gaps, and releases newer
 * than the catalogue exist sooner or later).
 */
public record PatchProbe(VersionCatalogue catalogue, Predicate<Version> offered) implements VersionChange.PatchOffers {
    /** Upward probes beyond the first miss are pointless; this bounds a source that answers yes to everything. */
    private static final int MAX_UPWARD = 50;

    @Override
    public Optional<Version> newestAfter(Version current) {
        Version known = catalogue.newestKnownPatch(current.minorLine())
                .filter(v -> v.compareTo(current) > 0).orElse(current);
        Optional<Version> found = Optional.empty();
        for (int patch = known.patch(); patch > current.patch(); patch--) {
            Version candidate = new Version(current.major(), current.minor(), patch);
            if (offered.test(candidate)) {
                found = Optional.of(candidate);
                break;
            }
        }
        Version top = found.orElse(known);
        for (int i = 1; i <= MAX_UPWARD; i++) {
            Version candidate = new Version(current.major(), current.minor(), top.patch() + i);
            if (!offered.test(candidate)) {
                break;
            }
            found = Optional.of(candidate);
        }
        return found;
    }
}
