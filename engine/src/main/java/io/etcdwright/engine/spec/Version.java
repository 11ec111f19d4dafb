package io.etcdwright.engine.spec;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An etcd release version, X.Y.Z, ordered numerically (3.5.10 is newer than 3.5.9). */
public record Version(int major, int minor, int patch) implements Comparable<Version> {

    private static final Pattern SHAPE = Pattern.compile("^(\\d+)\\.(\\d+)\\.(\\d+)$");

    public Version {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("version numbers cannot be negative: " + major + "." + minor + "." + patch);
        }
    }

    /** @throws IllegalArgumentException unless {@code text} is X.Y.Z, like 3.5.16 */
    public static Version parse(String text) {
        return tryParse(text).orElseThrow(() -> new IllegalArgumentException(
                "'" + text + "' is not a version X.Y.Z, like 3.5.16"));
    }

    public static Optional<Version> tryParse(String text) {
        Matcher matcher = SHAPE.matcher(text == null ? "" : text.strip());
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Version(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)),
                    Integer.parseInt(matcher.group(3))));
        } catch (NumberFormatException tooLarge) {
            return Optional.empty();
        }
    }

    /** Its minor release line: 3.6 for 3.6.14. */
    public Minor minorLine() {
        return new Minor(major, minor);
    }

    public boolean isAtLeast(Version other) {
        return compareTo(other) >= 0;
    }

    @Override
    public int compareTo(Version other) {
        int byMajor = Integer.compare(major, other.major);
        if (byMajor != 0) {
            return byMajor;
        }
        int byMinor = Integer.compare(minor, other.minor);
        return byMinor != 0 ? byMinor : Integer.compare(patch, other.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
