package io.etcdwright.watch;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;
import java.util.Objects;

/**
 * One line of the watcher's event log: an action it took (a step it ran, and how that ended) or a
 * step it held (and why, with the command a person runs). A machine reads the log (one JSON object
 * a line, the fields below, nothing else), so every field is a value, not prose to parse.
 *
 * @param time     when the action ended, or when the step was found held
 * @param cycle    the cycle's id: {@code CLUSTER-N}, N counting from 1 since the watcher started
 * @param cluster  the cluster's name
 * @param step     the step's id, as {@code plan} shows it ({@code h2/start})
 * @param safety   the step's safety class ({@code routine}, {@code repair}, {@code change}, {@code never})
 * @param outcome  what became of it: ok, changed or failed (it ran), held (it did not)
 * @param millis   how long it ran; 0 when held
 * @param reason   for a held step why it waits, for a failed one its error; empty otherwise
 * @param command  for a held step the command a person runs; empty otherwise
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record WatchEvent(Instant time, String cycle, String cluster, String step, String safety, Outcome outcome,
                         long millis, String reason, String command) {
    public WatchEvent {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(outcome, "outcome");
        reason = reason == null ? "" : reason;
        command = command == null ? "" : command;
    }

    /** What became of a step in a cycle. */
    public enum Outcome {
        OK, CHANGED, FAILED, HELD;

        @com.fasterxml.jackson.annotation.JsonValue
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Milliseconds are always written, 0 included: "took no time" is not "unknown". */
    @JsonProperty("millis")
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public long millis() {
        return millis;
    }
}
