package io.etcdwright.modules.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * What a state object says about itself, readable without its key (it holds no secret) and
 * repeated inside the encrypted part, where it is proven: which cluster, which version (a serial
 * every write raises by one), and who wrote it, when, with which command.
 */
public record StateHeader(int format, String cluster, long serial, long previousSerial, String writtenBy,
                          String command, Instant writtenAt, int files) {
    public static final int FORMAT = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    public StateHeader {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(writtenBy, "writtenBy");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(writtenAt, "writtenAt");
        writtenAt = writtenAt.truncatedTo(ChronoUnit.MILLIS);
    }

    ObjectNode toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", format);
        n.put("cluster", cluster);
        n.put("serial", serial);
        n.put("previous_serial", previousSerial);
        n.put("written_by", writtenBy);
        n.put("command", command);
        n.put("written_at", writtenAt.toString());
        n.put("files", files);
        return n;
    }

    String toJsonLine() {
        return toJson().toString();
    }

    static StateHeader parse(JsonNode n) throws IOException {
        if (n == null || !n.isObject() || !n.path("serial").canConvertToLong() || !n.path("cluster").isTextual()
                || !n.path("written_at").isTextual()) {
            throw new IOException("its header is not an etcdwright state header");
        }
        try {
            return new StateHeader(n.path("format").asInt(0), n.path("cluster").asText(), n.path("serial").asLong(),
                    n.path("previous_serial").asLong(), n.path("written_by").asText("?"), n.path("command").asText("?"),
                    Instant.parse(n.path("written_at").asText()), n.path("files").asInt(0));
        } catch (DateTimeParseException e) {
            throw new IOException("its header's written_at is not a time: " + e.getMessage(), e);
        }
    }

    static StateHeader parse(String line) throws IOException {
        return parse(JSON.readTree(line));
    }

    /** "serial 7, written by alice@ws1 (etcdwright apply) at 2026-11-27T17:02:03Z". */
    public String describe() {
        return "serial " + serial + ", written by " + writtenBy + " (etcdwright " + command + ") at "
                + writtenAt.truncatedTo(ChronoUnit.SECONDS);
    }
}
