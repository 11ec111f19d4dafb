package io.etcdwright.engine.plan;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * How safe a step is to run with no person watching, as the planner that builds it judges from the
 * facts (never from its text). The automation policy of {@code etcdwright watch} runs only the
 * classes the spec's {@code automation.allow} names; {@link #NEVER} is never among them. Declared
 * from the least to the most careful, so {@link #stricter} can compare them.
 */
public enum SafetyClass {
    /**
     * Puts the spec back without touching membership or data: a stopped member whose data is
     * intact started, a config, unit or certificate file edited or removed on its host written
     * back (and the quorum-safe restart that picks it up), a leaf certificate renewed before it
     * expires, a disabled timer enabled again, a defragmentation by the spec's rules.
     */
    ROUTINE,
    /**
     * Re-joins a member whose data is lost or unusable (its old data moved aside, never deleted):
     * its old identity removed, the member added as a learner, started, promoted.
     */
    REPAIR,
    /** What a spec edit asked for: another version, membership, settings, a CA rotation, the transport. */
    CHANGE,
    /** Only ever by a person: a restore, a minor downgrade, a teardown, a membership change without quorum. */
    NEVER;

    /** How plans, JSON and the spec's {@code automation.allow} spell it: {@code routine}. */
    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The more careful of the two. */
    public SafetyClass stricter(SafetyClass other) {
        return other.ordinal() > ordinal() ? other : this;
    }

    /** The most careful of {@code classes}, {@code floor} when there are none. */
    public static SafetyClass strictest(Collection<SafetyClass> classes, SafetyClass floor) {
        return classes.stream().reduce(floor, SafetyClass::stricter);
    }

    /** The class a label names ({@code routine}), if any. */
    public static Optional<SafetyClass> of(String label) {
        return Arrays.stream(values()).filter(c -> c.label().equals(label)).findFirst();
    }
}
