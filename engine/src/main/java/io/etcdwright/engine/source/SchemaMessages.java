package io.etcdwright.engine.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The words of {@link SchemaCheck}'s messages: what a keyword demands, said the way an operator
 * would say it, followed by what was actually written ("must be between 1 and 65535, got 70000").
 */
final class SchemaMessages {

    /** Keywords about a single value, whose messages end with that value. */
    private static final Set<String> VALUE_KEYWORDS = Set.of("pattern", "enum", "const", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "format", "multipleOf");

    private SchemaMessages() {}

    /**
     * The schema's own wording for {@code keyword}: an {@code errorMessage} string next to it
     * (for every keyword of that schema) or an {@code errorMessage} object keyed by keyword.
     */
    static Optional<String> custom(JsonNode owner, String keyword) {
        JsonNode message = owner.path("errorMessage");
        if (message.isTextual()) {
            return Optional.of(message.asText());
        }
        JsonNode perKeyword = message.path(keyword);
        return perKeyword.isTextual() ? Optional.of(perKeyword.asText()) : Optional.empty();
    }

    /** {@code " (allowed: client, peer, metrics)"}: the fields the schema {@code owner} knows. */
    static String allowedFields(JsonNode owner) {
        JsonNode properties = owner.path("properties");
        if (!properties.isObject() || properties.isEmpty()) {
            return " (this mapping takes no fields)";
        }
        List<String> names = new ArrayList<>();
        properties.properties().forEach(property -> names.add(property.getKey()));
        return " (allowed: " + String.join(", ", names) + ")";
    }

    /** A message about the value itself (its type, range, shape), ending with what was written. */
    static String aboutValue(String keyword, JsonNode owner, Optional<String> custom, Error error,
                             YamlDocument document, FieldPath at) {
        String demand = custom.orElseGet(() -> demand(keyword, owner, error));
        JsonNode value = error.getInstanceNode();
        if (keyword.equals("type")) {
            return demand + ", got " + typedValue(value, document, at);
        }
        if (VALUE_KEYWORDS.contains(keyword) && value != null && !value.isContainerNode()) {
            // "must be one of push, fetch; got ..." reads better than a second comma in a list.
            String separator = keyword.equals("enum") && custom.isEmpty() ? "; got " : ", got ";
            return demand + separator + plainValue(value, document, at);
        }
        return demand;
    }

    private static String demand(String keyword, JsonNode owner, Error error) {
        JsonNode limit = owner.path(keyword);
        int size = error.getInstanceNode() == null ? 0 : error.getInstanceNode().size();
        return switch (keyword) {
            case "type" -> "must be " + expectedTypes(limit);
            case "enum" -> "must be one of " + join(limit);
            case "const" -> "must be " + (limit.isTextual() ? limit.asText() : limit.toString());
            case "pattern" -> "must match the pattern " + limit.asText();
            case "minimum", "maximum" -> owner.has("minimum") && owner.has("maximum")
                    ? "must be between " + owner.get("minimum") + " and " + owner.get("maximum") + unit(owner)
                    : (keyword.equals("minimum") ? "must be at least " + limit : "must be at most " + limit) + unit(owner);
            case "exclusiveMinimum" -> "must be greater than " + limit;
            case "exclusiveMaximum" -> "must be less than " + limit;
            case "minLength" -> limit.asInt() == 1 ? "must not be empty" : "must be at least " + limit + " characters long";
            case "maxLength" -> "must be at most " + limit + " characters long";
            case "minItems" -> limit.asInt() == 1 ? "must not be an empty list" : "must list at least " + limit + " items, found " + size;
            case "maxItems" -> "must list at most " + limit + " items, found " + size;
            case "uniqueItems" -> "must not list the same value twice";
            case "minProperties" -> limit.asInt() == 1 ? "must not be empty" : "must have at least " + limit + " fields";
            case "maxProperties" -> "must have at most " + limit + " fields";
            case "not" -> "this combination of fields is not allowed";
            default -> error.getMessage();
        };
    }

    /** " days" for a field titled "... (days)": a bare number invites the wrong unit (seconds? hours?). */
    private static String unit(JsonNode owner) {
        Matcher unit = UNIT_IN_TITLE.matcher(owner.path("title").asText(""));
        return unit.find() ? " " + unit.group(1) : "";
    }

    private static final Pattern UNIT_IN_TITLE = Pattern.compile("\\(([a-z]+)\\)$");

    private static String expectedTypes(JsonNode type) {
        if (type.isArray()) {
            List<String> names = new ArrayList<>();
            type.forEach(t -> names.add(typeName(t.asText())));
            return String.join(" or ", names);
        }
        return typeName(type.asText());
    }

    private static String typeName(String jsonType) {
        return switch (jsonType) {
            case "integer" -> "an integer";
            case "number" -> "a number";
            case "string" -> "a string";
            case "boolean" -> "true or false";
            case "object" -> "a mapping";
            case "array" -> "a list";
            case "null" -> "empty";
            default -> jsonType;
        };
    }

    /**
     * The value as written, with the type YAML gave it: {@code string "x"}, {@code number 3.10}.
     * The type matters: {@code 3.10} unquoted is the number 3.1 to YAML, which explains the error.
     */
    private static String typedValue(JsonNode value, YamlDocument document, FieldPath at) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return "an empty value";
        } else if (value.isTextual()) {
            return "string " + quote(value.asText());
        } else if (value.isIntegralNumber()) {
            return "integer " + document.sourceText(at).orElse(value.asText());
        } else if (value.isNumber()) {
            return "number " + document.sourceText(at).orElse(value.asText());
        } else if (value.isBoolean()) {
            return "boolean " + document.sourceText(at).orElse(value.asText());
        }
        return value.isArray() ? "a list" : "a mapping";
    }

    /** The value as written: {@code "pull"}, {@code 70000}. */
    private static String plainValue(JsonNode value, YamlDocument document, FieldPath at) {
        if (value.isTextual()) {
            return quote(value.asText());
        }
        return value.isNull() ? "an empty value" : document.sourceText(at).orElse(value.asText());
    }

    private static String quote(String text) {
        return Quoted.of(text);
    }

    private static String join(JsonNode values) {
        List<String> shown = new ArrayList<>();
        values.forEach(v -> shown.add(v.isTextual() ? v.asText() : v.toString()));
        return String.join(", ", shown);
    }
}
