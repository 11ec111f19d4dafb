package io.etcdwright.modules.membership;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** No endpoint answered; the message names every endpoint tried and why each one failed. */
public final class EtcdUnreachableException extends EtcdAdminException {
    private final Map<String, String> failures;

    EtcdUnreachableException(Map<String, String> failures) {
        super(message(failures));
        this.failures = Collections.unmodifiableMap(new LinkedHashMap<>(failures));
    }

    private static String message(Map<String, String> failures) {
        if (failures.size() > 1 && new HashSet<>(failures.values()).size() == 1) {
            return "cannot reach etcd at any of " + String.join(", ", failures.keySet()) + ": "
                    + failures.values().iterator().next();
        }
        return "cannot reach etcd at any of the endpoints tried: " + failures.entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue() + ")")
                .collect(Collectors.joining(", "));
    }

    /** Endpoint URL to one-line reason, for every endpoint tried, in the order tried. */
    public Map<String, String> failures() {
        return failures;
    }

    /** The endpoints tried. */
    public List<String> endpoints() {
        return List.copyOf(failures.keySet());
    }
}
