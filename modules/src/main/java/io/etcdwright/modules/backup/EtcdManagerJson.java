package io.etcdwright.modules.backup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.List;

/**
 * etcd-manager's files are written by golang/protobuf's jsonpb with {@code Indent: "  "}
 * (etcdadm etcd-manager/pkg/apis/etcd/json.go:24-28): fields in proto order, lowerCamel names,
 * zero values left out, int64 as a quoted string, {@code "name": value} one per line, no final
 * newline. Written here byte for byte the same, so etcd-manager and a diff see no difference.
 * Reading is jsonpb's: either name form (json or proto), int64 quoted or not.
 */
final class EtcdManagerJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private EtcdManagerJson() {
    }

    /** One field: its JSON name and its value already in JSON (a quoted string, a number, an object). */
    record Field(String name, String json) {
    }

    static String object(List<Field> fields, String indent) {
        if (fields.isEmpty()) {
            return "{}";
        }
        StringBuilder b = new StringBuilder("{\n");
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            b.append(indent).append("  \"").append(f.name()).append("\": ").append(f.json());
            b.append(i < fields.size() - 1 ? ",\n" : "\n");
        }
        return b.append(indent).append('}').toString();
    }

    static String string(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode read(String what, byte[] content) throws IOException {
        try {
            JsonNode node = JSON.readTree(content);
            if (node == null || !node.isObject()) {
                throw new IOException(what + " is not a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new IOException(what + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** A field by its JSON name or its proto name, as jsonpb accepts either. */
    static JsonNode field(JsonNode o, String jsonName, String protoName) {
        JsonNode v = o.get(jsonName);
        return v != null ? v : o.get(protoName);
    }

    static long int64(String what, JsonNode v) throws IOException {
        if (v == null || v.isNull()) {
            return 0;
        }
        if (v.isIntegralNumber()) {
            return v.asLong();
        }
        if (v.isTextual()) {
            try {
                return Long.parseLong(v.asText());
            } catch (NumberFormatException e) {
                throw new IOException(what + " is not an integer: '" + v.asText() + "'");
            }
        }
        throw new IOException(what + " is not an integer: " + v);
    }

    static String text(JsonNode v) {
        return v == null || v.isNull() ? "" : v.asText();
    }

}
