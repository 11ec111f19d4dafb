package io.etcdwright.engine.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Whether a document has an inventory's shape: groups, hosts and variables are mappings (or
 * empty) and groups hold only hosts, vars and children. Only then can an inventory be built
 * from it. A variable of the wrong type does not break the shape: it falls back to its default,
 * so one mistyped variable does not hide the rest of the checks.
 */
final class InventoryShape {

    private InventoryShape() {}

    static boolean isInventory(JsonNode root) {
        return root.isObject() && allMatch(root, InventoryShape::isGroup);
    }

    private static boolean isGroup(JsonNode group) {
        if (group.isNull()) {
            return true;
        }
        if (!group.isObject()) {
            return false;
        }
        for (Map.Entry<String, JsonNode> field : group.properties()) {
            JsonNode value = field.getValue();
            boolean sound = switch (field.getKey()) {
                case "vars" -> isMappingOrEmpty(value);
                case "hosts" -> isMappingOrEmpty(value) && allMatch(value, InventoryShape::isMappingOrEmpty);
                case "children" -> isMappingOrEmpty(value) && allMatch(value, InventoryShape::isGroup);
                default -> false;
            };
            if (!sound) {
                return false;
            }
        }
        return true;
    }

    private static boolean isMappingOrEmpty(JsonNode node) {
        return node.isObject() || node.isNull();
    }

    private static boolean allMatch(JsonNode mapping, Predicate<JsonNode> test) {
        return mapping.isNull() || mapping.properties().stream().allMatch(field -> test.test(field.getValue()));
    }
}
