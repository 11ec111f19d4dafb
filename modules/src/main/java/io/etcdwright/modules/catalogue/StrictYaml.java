package io.etcdwright.modules.catalogue;

import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One mapping of the catalogue's YAML, read strictly: a key it does not know, a missing key or a
 * value of the wrong kind stops the load with where it is, so that a typo in the catalogue fails
 * the build's tests instead of turning a rule off.
 */
final class StrictYaml {
    private final String where;
    private final Map<?, ?> map;
    private final Set<String> read = new LinkedHashSet<>();

    private StrictYaml(String where, Map<?, ?> map) {
        this.where = where;
        this.map = map;
    }

    static StrictYaml of(Object node, String where) {
        if (!(node instanceof Map<?, ?> map)) {
            throw new IllegalStateException("etcd-versions.yaml: " + where + " must be a mapping, got " + node);
        }
        return new StrictYaml(where, map);
    }

    String where() {
        return where;
    }

    private Optional<Object> raw(String key) {
        read.add(key);
        return Optional.ofNullable(map.get(key));
    }

    private Object required(String key) {
        return raw(key).orElseThrow(() -> new IllegalStateException("etcd-versions.yaml: " + where + "." + key + " is missing"));
    }

    String string(String key) {
        Object v = required(key);
        if (!(v instanceof String s)) {
            throw new IllegalStateException("etcd-versions.yaml: " + where + "." + key + " must be a string, got " + v);
        }
        return s;
    }

    Optional<String> optionalString(String key) {
        return raw(key).isPresent() ? Optional.of(string(key)) : Optional.empty();
    }

    boolean bool(String key) {
        Object v = required(key);
        if (!(v instanceof Boolean b)) {
            throw new IllegalStateException("etcd-versions.yaml: " + where + "." + key + " must be true or false, got " + v);
        }
        return b;
    }

    boolean optionalBool(String key, boolean otherwise) {
        return raw(key).isPresent() ? bool(key) : otherwise;
    }

    Version version(String key) {
        return parsed(key, string(key), Version::tryParse, "a version X.Y.Z");
    }

    Optional<Version> optionalVersion(String key) {
        return raw(key).isPresent() ? Optional.of(version(key)) : Optional.empty();
    }

    Minor minor(String key) {
        return parsed(key, string(key), Minor::tryParse, "a minor X.Y");
    }

    StrictYaml mapping(String key) {
        return of(required(key), where + "." + key);
    }

    Optional<StrictYaml> optionalMapping(String key) {
        return raw(key).isPresent() ? Optional.of(mapping(key)) : Optional.empty();
    }

    List<String> strings(String key) {
        Object v = required(key);
        if (!(v instanceof List<?> list) || list.stream().anyMatch(item -> !(item instanceof String))) {
            throw new IllegalStateException("etcd-versions.yaml: " + where + "." + key + " must be a list of strings, got " + v);
        }
        List<String> out = new ArrayList<>();
        list.forEach(item -> out.add((String) item));
        return out;
    }

    Optional<List<String>> optionalStrings(String key) {
        return raw(key).isPresent() ? Optional.of(strings(key)) : Optional.empty();
    }

    List<StrictYaml> mappings(String key) {
        Object v = required(key);
        if (!(v instanceof List<?> list)) {
            throw new IllegalStateException("etcd-versions.yaml: " + where + "." + key + " must be a list, got " + v);
        }
        List<StrictYaml> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            out.add(of(list.get(i), where + "." + key + "[" + i + "]"));
        }
        return out;
    }

    /** Every entry of this mapping, keys as strings, each value a mapping read strictly. */
    Map<String, StrictYaml> entries() {
        Map<String, StrictYaml> out = new LinkedHashMap<>();
        map.forEach((k, v) -> {
            read.add(String.valueOf(k));
            out.put(String.valueOf(k), of(v, where + "." + k));
        });
        return out;
    }

    /** Every entry of this mapping as strings. */
    Map<String, String> stringEntries() {
        Map<String, String> out = new LinkedHashMap<>();
        map.forEach((k, v) -> {
            read.add(String.valueOf(k));
            if (!(v instanceof String s)) {
                throw new IllegalStateException("etcd-versions.yaml: " + where + "." + k + " must be a string, got " + v);
            }
            out.put(String.valueOf(k), s);
        });
        return out;
    }

    /** Every entry of this mapping as booleans. */
    Map<String, Boolean> boolEntries() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        map.forEach((k, v) -> {
            read.add(String.valueOf(k));
            if (!(v instanceof Boolean b)) {
                throw new IllegalStateException("etcd-versions.yaml: " + where + "." + k + " must be true or false, got " + v);
            }
            out.put(String.valueOf(k), b);
        });
        return out;
    }

    /** Stops the load when the mapping holds a key nobody asked for (a typo would otherwise be a rule lost). */
    void done() {
        for (Object key : map.keySet()) {
            if (!read.contains(String.valueOf(key))) {
                throw new IllegalStateException("etcd-versions.yaml: " + where + " has an unknown key '" + key + "'");
            }
        }
    }

    private <T> T parsed(String key, String text, java.util.function.Function<String, Optional<T>> parse, String what) {
        return parse.apply(text).orElseThrow(() -> new IllegalStateException("etcd-versions.yaml: " + where + "." + key
                + " must be " + what + ", got '" + text + "'"));
    }
}
