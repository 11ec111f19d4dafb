package io.etcdwright.engine.source;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plain Java values for free-form parts of the input (inventory variables, etcd settings):
 * String, Integer/Long/BigInteger, Double, Boolean, null, List and Map (in document order).
 * Collections come back unmodifiable, so records can hand them out safely.
 */
public final class JsonValues {

    private JsonValues() {}

    public static Object toJava(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        } else if (node.isTextual()) {
            return node.textValue();
        } else if (node.isBoolean()) {
            return node.booleanValue();
        } else if (node.isNumber()) {
            return node.numberValue();
        } else if (node.isArray()) {
            List<Object> items = new ArrayList<>(node.size());
            node.forEach(item -> items.add(toJava(item)));
            return Collections.unmodifiableList(items);
        } else if (node.isObject()) {
            return toJavaMap(node);
        }
        return node.asText();
    }

    /** The fields of a mapping node, in document order; empty for anything else (null included). */
    public static Map<String, Object> toJavaMap(JsonNode node) {
        Map<String, Object> map = new LinkedHashMap<>();
        if (node != null && node.isObject()) {
            node.properties().forEach(field -> map.put(field.getKey(), toJava(field.getValue())));
        }
        return Collections.unmodifiableMap(map);
    }

    /** An unmodifiable copy that keeps insertion order and allows null values (Map.copyOf does neither). */
    public static <K, V> Map<K, V> orderedCopy(Map<K, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
