package io.etcdwright.engine.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import com.networknt.schema.path.PathType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates a {@link YamlDocument} against one of etcdwright's JSON Schemas and reports each
 * violation as a {@link Problem} at the offending key or value, in words an operator reads
 * without knowing JSON Schema: {@code unknown field 'prots' (allowed: client, peer, metrics)},
 * {@code must be an integer, got string "x"}, {@code required field 'version' is missing}.
 *
 * <p>A schema may word a message itself with an {@code errorMessage} annotation next to the
 * keyword it explains, either one string for every keyword of that schema or an object from
 * keyword to message (the ajv-errors convention, which editors simply ignore):
 * {@code "pattern": "^\\d+\\.\\d+\\.\\d+$", "errorMessage": {"pattern": "must be a version X.Y.Z, like 3.5.16"}}.
 *
 * <p>Compiling a schema costs a few hundred milliseconds, so each one is compiled on first
 * use and kept for the life of the process.
 */
public final class SchemaCheck {

    /** The Ansible YAML inventory, as far as etcdwright reads it. */
    public static final String INVENTORY_SCHEMA = "/schemas/inventory.schema.json";
    /** The desired state of one cluster (docs/desired-state.md). */
    public static final String CLUSTER_SCHEMA = "/schemas/cluster.schema.json";

    private static final ConcurrentHashMap<String, SchemaCheck> COMPILED = new ConcurrentHashMap<>();

    /** Keywords whose messages end with the offending value ("..., got 70000"). */
    private static final Set<String> VALUE_KEYWORDS = Set.of("type", "pattern", "enum", "const", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "format", "multipleOf");

    private final JsonNode schemaRoot;
    private final Schema schema;

    private SchemaCheck(JsonNode schemaRoot, Schema schema) {
        this.schemaRoot = schemaRoot;
        this.schema = schema;
    }

    /** The compiled schema at {@code classpathResource} (like {@link #CLUSTER_SCHEMA}), compiled once. */
    public static SchemaCheck of(String classpathResource) {
        return COMPILED.computeIfAbsent(classpathResource, SchemaCheck::compile);
    }

    /** Every violation of the schema at {@code classpathResource} in {@code document}; empty when valid. */
    public static List<Problem> check(YamlDocument document, String classpathResource) {
        return of(classpathResource).check(document);
    }

    public List<Problem> check(YamlDocument document) {
        if (document.root().isNull() || document.root().isMissingNode()) {
            String expected = schemaRoot.path("title").asText("a YAML mapping");
            return List.of(Problem.error(Location.ofFile(document.file()), "", "the file is empty; expected " + expected));
        }
        Set<Problem> problems = new LinkedHashSet<>();
        for (Error error : schema.validate(document.root())) {
            problems.add(toProblem(error, document));
        }
        return problems.stream().sorted(Comparator.comparing(Problem::location)).toList();
    }

    private Problem toProblem(Error error, YamlDocument document) {
        FieldPath at = fieldPath(error.getInstanceLocation());
        String keyword = error.getKeyword();
        List<Object> schemaPath = elements(error.getSchemaLocation().getFragment());
        JsonNode owner = schemaAt(schemaPath.subList(0, Math.max(0, schemaPath.size() - 1)));
        Optional<String> custom = customMessage(owner, keyword);
        JsonNode value = error.getInstanceNode();
        String property = error.getProperty();

        switch (keyword) {
            case "additionalProperties", "unevaluatedProperties" -> {
                FieldPath field = at.key(property);
                String message = custom.orElseGet(() -> "unknown field '" + property + "'" + allowedFields(owner));
                return Problem.error(document.keyLocationOf(field), field.toString(), message);
            }
            case "required" -> {
                FieldPath field = at.key(property);
                String message = custom.orElseGet(() -> "required field '" + property + "' is missing");
                return Problem.error(document.keyLocationOf(at), field.toString(), message);
            }
            case "propertyNames" -> {
                FieldPath field = at.key(property);
                String message = custom.orElseGet(() -> "key '" + property + "' is not allowed here");
                return Problem.error(document.keyLocationOf(field), field.toString(), message);
            }
            case "false" -> {
                // ".../properties/<name>/false": the schema that forbids <name> is three steps up.
                JsonNode forbiddenBy = schemaAt(schemaPath.subList(0, Math.max(0, schemaPath.size() - 3)));
                String name = at.lastKey().orElse(at.toString());
                String message = customMessage(forbiddenBy, "false").orElseGet(() -> "field '" + name + "' is not allowed here");
                return Problem.error(document.keyLocationOf(at), at.toString(), message);
            }
            default -> {
                String message = custom.orElseGet(() -> plainMessage(keyword, owner, error));
                if (VALUE_KEYWORDS.contains(keyword) && value != null && !value.isContainerNode()) {
                    String got = keyword.equals("type") ? typedValue(value, document, at) : plainValue(value, document, at);
                    message = message + (keyword.equals("enum") && custom.isEmpty() ? "; got " : ", got ") + got;
                } else if (keyword.equals("type")) {
                    message = message + ", got " + typedValue(value, document, at);
                }
                return Problem.error(document.locationOf(at), at.toString(), message);
            }
        }
    }

    private static String plainMessage(String keyword, JsonNode owner, Error error) {
        JsonNode limit = owner.path(keyword);
        int instanceSize = error.getInstanceNode() == null ? 0 : error.getInstanceNode().size();
        return switch (keyword) {
            case "type" -> "must be " + expectedTypes(limit);
            case "enum" -> "must be one of " + join(limit);
            case "const" -> "must be " + limit;
            case "pattern" -> "must match the pattern " + limit.asText();
            case "minimum", "maximum" -> owner.has("minimum") && owner.has("maximum")
                    ? "must be between " + owner.get("minimum") + " and " + owner.get("maximum")
                    : keyword.equals("minimum") ? "must be at least " + limit : "must be at most " + limit;
            case "exclusiveMinimum" -> "must be greater than " + limit;
            case "exclusiveMaximum" -> "must be less than " + limit;
            case "minLength" -> limit.asInt() == 1 ? "must not be empty" : "must be at least " + limit + " characters long";
            case "maxLength" -> "must be at most " + limit + " characters long";
            case "minItems" -> limit.asInt() == 1 ? "must not be an empty list"
                    : "must list at least " + limit + " items, found " + instanceSize;
            case "maxItems" -> "must list at most " + limit + " items, found " + instanceSize;
            case "uniqueItems" -> "must not list the same value twice";
            case "minProperties" -> limit.asInt() == 1 ? "must not be empty" : "must have at least " + limit + " fields";
            case "maxProperties" -> "must have at most " + limit + " fields";
            case "not" -> "this combination of fields is not allowed";
            default -> error.getMessage();
        };
    }

    private static String allowedFields(JsonNode owner) {
        JsonNode properties = owner.path("properties");
        if (!properties.isObject() || properties.isEmpty()) {
            return " (this mapping takes no fields)";
        }
        List<String> names = new ArrayList<>();
        properties.fieldNames().forEachRemaining(names::add);
        return " (allowed: " + String.join(", ", names) + ")";
    }

    private static Optional<String> customMessage(JsonNode owner, String keyword) {
        JsonNode message = owner.path("errorMessage");
        if (message.isTextual()) {
            return Optional.of(message.asText());
        }
        JsonNode perKeyword = message.path(keyword);
        return perKeyword.isTextual() ? Optional.of(perKeyword.asText()) : Optional.empty();
    }

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

    /** The value as the operator wrote it, with its YAML type: {@code string "x"}, {@code number 3.10}. */
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
        } else if (value.isArray()) {
            return "a list";
        }
        return "a mapping";
    }

    /** The value as the operator wrote it: {@code "pull"}, {@code 70000}. */
    private static String plainValue(JsonNode value, YamlDocument document, FieldPath at) {
        if (value.isTextual()) {
            return quote(value.asText());
        } else if (value.isNull()) {
            return "an empty value";
        }
        return document.sourceText(at).orElse(value.asText());
    }

    private static String quote(String text) {
        String shown = text.length() > 60 ? text.substring(0, 57) + "..." : text;
        return '"' + shown.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }

    private static String join(JsonNode values) {
        List<String> shown = new ArrayList<>();
        values.forEach(v -> shown.add(v.isTextual() ? v.asText() : v.toString()));
        return String.join(", ", shown);
    }

    private static FieldPath fieldPath(NodePath instance) {
        FieldPath path = FieldPath.ROOT;
        for (Object element : elements(instance)) {
            path = element instanceof Integer index ? path.index(index) : path.key(String.valueOf(element));
        }
        return path;
    }

    private static List<Object> elements(NodePath path) {
        List<Object> elements = new ArrayList<>();
        if (path != null) {
            for (int i = 0; i < path.getNameCount(); i++) {
                elements.add(path.getElement(i));
            }
        }
        return elements;
    }

    /** The schema object at a fragment of our own schema file (where the failing keyword sits). */
    private JsonNode schemaAt(List<Object> fragment) {
        JsonNode node = schemaRoot;
        for (Object element : fragment) {
            if (node.isArray()) {
                node = node.path(element instanceof Integer i ? i : Integer.parseInt(String.valueOf(element)));
            } else {
                node = node.path(String.valueOf(element));
            }
        }
        return node;
    }

    private static SchemaCheck compile(String classpathResource) {
        JsonNode schemaRoot;
        try (InputStream in = SchemaCheck.class.getResourceAsStream(classpathResource)) {
            if (in == null) {
                throw new IllegalStateException("schema " + classpathResource + " is not on the classpath: the etcdwright jar is incomplete");
            }
            schemaRoot = Holder.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema " + classpathResource, e);
        }
        Schema schema = Holder.REGISTRY.getSchema(SchemaLocation.of("classpath:" + classpathResource.substring(1)), schemaRoot);
        schema.initializeValidators();
        return new SchemaCheck(schemaRoot, schema);
    }

    /** Created on first use only: neither is needed by commands that never validate. */
    private static final class Holder {
        static final ObjectMapper JSON = new ObjectMapper();
        static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder().pathType(PathType.JSON_POINTER).build()));
    }
}
