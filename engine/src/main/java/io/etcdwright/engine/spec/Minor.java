package io.etcdwright.engine.spec;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An etcd minor release line, 3.6: what etcd's upgrade and downgrade rules, its config keys and
 * its tools are decided by. Written "X.Y" wherever etcd writes it (cluster version, downgrade target).
 */
public record Minor(int major, int minor) implements Comparable<Minor> {

    private static final Pattern SHAPE = Pattern.compile("^(\\d{1,4})\\.(\\d{1,4})$");

    public Minor {
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException("minor numbers cannot be negative: " + major + "." + minor);
        }
    }

    public static Minor of(Version v) {
        return new Minor(v.major(), v.minor());
    }

    /** @throws IllegalArgumentException unless {@code text} is X.Y, like 3.6 */
    public static Minor parse(String text) {
        return tryParse(text).orElseThrow(() -> new IllegalArgumentException("'" + text + "' is not a minor X.Y, like 3.6"));
    }

    public static Optional<Minor> tryParse(String text) {
        Matcher m = SHAPE.matcher(text == null ? "" : text.strip());
        return m.matches() ? Optional.of(new Minor(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)))) : Optional.empty();
    }

    /** The minor an upgrade out of this one goes to (etcd moves one minor at a time). */
    public Minor next() {
        return new Minor(major, minor + 1);
    }

    /** The minor a downgrade out of this one goes to; empty for X.0. */
    public Optional<Minor> previous() {
        return minor == 0 ? Optional.empty() : Optional.of(new Minor(major, minor - 1));
    }

    /** Its first release, X.Y.0. */
    public Version first() {
        return new Version(major, minor, 0);
    }

    public boolean contains(Version v) {
        return v.major() == major && v.minor() == minor;
    }

    public boolean isAtLeast(Minor other) {
        return compareTo(other) >= 0;
    }

    @Override
    public int compareTo(Minor other) {
        int byMajor = Integer.compare(major, other.major);
        return byMajor != 0 ? byMajor : Integer.compare(minor, other.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
