package io.etcdwright.watch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * A person's "hands off" for a cluster ({@code etcdwright watch suspend}): while it stands, every
 * watcher holds every step, routine ones included, until {@code watch resume}. Who, when and why,
 * so the next person (or the 3 a.m. pager) knows whom to ask.
 *
 * @param by     who suspended it: {@code user@host} of the process that ran suspend
 * @param at     when
 * @param reason what they gave with {@code --reason}; may be empty
 */
public record Suspension(String by, Instant at, String reason) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public Suspension {
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(at, "at");
        reason = reason == null ? "" : reason;
    }

    /** "suspended by ops@ws1 2 h ago: kernel upgrade on the hosts". */
    public String describe(Instant now) {
        long minutes = Math.max(0, Duration.between(at, now).toMinutes());
        String ago = minutes < 120 ? minutes + " min ago" : minutes / 60 + " h ago";
        return "suspended by " + by + " at " + at + " (" + ago + ")" + (reason.isEmpty() ? "" : ": " + reason);
    }

    /** The value stored in the cluster's etcd. */
    public String toJson() {
        ObjectNode node = JSON.createObjectNode();
        node.put("by", by);
        node.put("at", at.toString());
        node.put("reason", reason);
        return node.toString();
    }

    /** The stored value read back; empty when it is not one (written by something else): such a key is shown, not trusted. */
    public static Optional<Suspension> parse(String json) {
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || !node.path("by").isTextual() || !node.path("at").isTextual()) {
                return Optional.empty();
            }
            return Optional.of(new Suspension(node.path("by").asText(), Instant.parse(node.path("at").asText()),
                    node.path("reason").asText("")));
        } catch (IOException | DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
