package io.etcdwright.engine.facts;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The {@code key=value} lines most probes print; later keys win, lines without '=' are ignored. */
public record KeyValues(Map<String, String> values) {
    public static KeyValues parse(String output) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                map.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return new KeyValues(Map.copyOf(map));
    }

    public Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key)).filter(v -> !v.isEmpty());
    }

    public String getOr(String key, String fallback) {
        return get(key).orElse(fallback);
    }

    public Optional<Long> getLong(String key) {
        return get(key).flatMap(v -> {
            try {
                return Optional.of(Long.parseLong(v));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    public boolean isTrue(String key) {
        return "1".equals(values.get(key)) || "yes".equals(values.get(key)) || "true".equals(values.get(key));
    }
}
