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
        // The schema object holding the failing keyword: its siblings word the message.
        JsonNode owner = schemaAt(schemaPath.subList(0, Math.max(0, schemaPath.size() - 1)));
        Optional<String> custom = SchemaMessages.custom(owner, keyword);
        String property = error.getProperty();

        return switch (keyword) {
            case "additionalProperties", "unevaluatedProperties" -> atKey(document, at.key(property),
                    custom.orElseGet(() -> "unknown field '" + property + "'" + SchemaMessages.allowedFields(owner)));
            case "propertyNames" -> atKey(document, at.key(property),
                    custom.orElseGet(() -> "key '" + property + "' is not allowed here"));
            case "required" -> Problem.error(document.keyLocationOf(at), at.key(property).toString(),
                    custom.orElseGet(() -> "required field '" + property + "' is missing"));
            case "false" -> {
                // ".../properties/<name>/false": the schema that forbids <name> is three steps up.
                JsonNode forbiddenBy = schemaAt(schemaPath.subList(0, Math.max(0, schemaPath.size() - 3)));
                String name = at.lastKey().orElse(at.toString());
                yield atKey(document, at, SchemaMessages.custom(forbiddenBy, "false")
                        .orElseGet(() -> "field '" + name + "' is not allowed here"));
            }
            default -> Problem.error(document.locationOf(at), at.toString(),
                    SchemaMessages.aboutValue(keyword, owner, custom, error, document, at));
        };
    }

    private static Problem atKey(YamlDocument document, FieldPath field, String message) {
        return Problem.error(document.keyLocationOf(field), field.toString(), message);
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
