package io.etcdwright.engine.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a value sits in a document: mapping keys and list indexes from the root.
 *
 * <p>Two spellings: {@link #toString()} is what operators read in messages
 * ({@code members.hosts[2]}, {@code all.children.etcd.hosts.h1.ansible_port}) and
 * {@link #pointer()} is the RFC 6901 JSON Pointer that JSON Schema validators and
 * {@link YamlDocument} use ({@code /members/hosts/2}). Keeping the segments typed avoids
 * guessing whether {@code /2} was a list index or a key named "2".
 */
public record FieldPath(List<Segment> segments) {

    /** One step down: into a mapping by key, or into a list by index. */
    public sealed interface Segment permits Key, Index {}

    public record Key(String name) implements Segment {
        public Key {
            Objects.requireNonNull(name, "name");
        }
    }

    public record Index(int index) implements Segment {
        public Index {
            if (index < 0) {
                throw new IllegalArgumentException("list index must be >= 0: " + index);
            }
        }
    }

    public static final FieldPath ROOT = new FieldPath(List.of());

    public FieldPath {
        segments = List.copyOf(segments);
    }

    /** A path of mapping keys, like {@code FieldPath.of("etcd", "ports", "peer")}. */
    public static FieldPath of(String... keys) {
        FieldPath path = ROOT;
        for (String key : keys) {
            path = path.key(key);
        }
        return path;
    }

    public FieldPath key(String name) {
        return append(new Key(name));
    }

    public FieldPath index(int index) {
        return append(new Index(index));
    }

    public boolean isRoot() {
        return segments.isEmpty();
    }

    public Optional<FieldPath> parent() {
        return isRoot() ? Optional.empty() : Optional.of(new FieldPath(segments.subList(0, segments.size() - 1)));
    }

    /** The last key of this path, if it ends in a mapping key. */
    public Optional<String> lastKey() {
        return !isRoot() && segments.get(segments.size() - 1) instanceof Key key ? Optional.of(key.name()) : Optional.empty();
    }

    /** Whether {@code other} is this path or lies below it. */
    public boolean contains(FieldPath other) {
        return other.segments.size() >= segments.size() && other.segments.subList(0, segments.size()).equals(segments);
    }

    /** RFC 6901 JSON Pointer: {@code ""} for the root, {@code /a/0/b~1c} otherwise. */
    public String pointer() {
        StringBuilder pointer = new StringBuilder();
        for (Segment segment : segments) {
            pointer.append('/');
            if (segment instanceof Key key) {
                pointer.append(key.name().replace("~", "~0").replace("/", "~1"));
            } else if (segment instanceof Index index) {
                pointer.append(index.index());
            }
        }
        return pointer.toString();
    }

    /** Dotted path for messages: {@code members.hosts[2]}; empty for the root. */
    @Override
    public String toString() {
        StringBuilder dotted = new StringBuilder();
        for (Segment segment : segments) {
            if (segment instanceof Key key) {
                if (dotted.length() > 0) {
                    dotted.append('.');
                }
                dotted.append(printable(key.name()));
            } else if (segment instanceof Index index) {
                dotted.append('[').append(index.index()).append(']');
            }
        }
        return dotted.toString();
    }

    /** A key as messages show it: control characters escaped, so a key cannot rewrite the line it is printed on. */
    private static String printable(String name) {
        if (Quoted.firstControl(name) < 0) {
            return name;
        }
        String quoted = Quoted.of(name);
        return quoted.substring(1, quoted.lastIndexOf('"'));
    }

    private FieldPath append(Segment segment) {
        List<Segment> longer = new ArrayList<>(segments.size() + 1);
        longer.addAll(segments);
        longer.add(segment);
        return new FieldPath(longer);
    }
}
