package io.etcdwright.modules.backup.store;

import java.io.IOException;
import java.util.Optional;

/**
 * A versioned write or delete that found the object elsewhere than expected: another writer got
 * there first (or the object was removed). Nothing was written; {@link #current()} is the version
 * found, empty when the object is absent, so the caller can read who wrote it and say so.
 */
public final class VersionConflictException extends IOException {
    private final String key;
    private final Optional<String> expected;
    private final Optional<String> current;

    public VersionConflictException(String where, String key, Optional<String> expected, Optional<String> current) {
        super(where + ": " + key + " is " + current.map(v -> "at version " + v).orElse("absent") + ", not "
                + expected.map(v -> "at version " + v).orElse("absent") + " as expected: another writer got there first;"
                + " nothing was written");
        this.key = key;
        this.expected = expected;
        this.current = current;
    }

    public String key() {
        return key;
    }

    public Optional<String> expected() {
        return expected;
    }

    /** The version found; empty when the object was absent (or could not be told, as S3 says only "precondition failed"). */
    public Optional<String> current() {
        return current;
    }
}
